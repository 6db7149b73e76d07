import { createHash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { ERRORS, peerFault } from '../edge/errors.js'
import { fetchJson, UpstreamError } from '../../lib/fetch-json.js'
import { firstContaining, ringProblem, withBox, type BoundingBox, type LatLon } from '../../lib/polygon.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'

/** The reference's admin-geofence cache lifetime. */
const ADMIN_TTL_MS = 5 * 60_000
const DEFAULT_COLOR = '#3399ff'

/** An admin geofence as the feed serves it (Poracle format), plus its bounding box for point lookups. */
export interface AdminFence {
  id: number
  name: string
  path: LatLon[]
  group: string
  description: string
  color: string
  userSelectable: true
  displayInMatches: true
  box: BoundingBox
}

export interface AdminFences {
  fences: AdminFence[]
  /** The fences as JSON array elements joined by commas, built once per refresh for the feed. */
  json: string
  /** SHA-256 of `json`: changes exactly when the admin part of the feed changes. */
  hash: string
  /** Lower-cased names, for uniqueness checks of user fence names. */
  names: Set<string>
  /** False when Koji could not be read and there was no earlier copy. */
  fresh: boolean
}

export interface KojiRegion {
  id: number
  name: string
  displayName: string
  polygon: LatLon[]
}

/** A fence pushed to Koji (approval of a user fence). */
export interface KojiSave {
  name: string
  displayName: string
  group: string
  parentId: number | null
  path: LatLon[]
}

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const dataOf = (answer: unknown): unknown => (isObject(answer) ? answer.data : undefined)

const EMPTY: AdminFences = { fences: [], json: '', hash: createHash('sha256').update('').digest('hex'), names: new Set(), fresh: false }

export const kojiUnavailable = () => new ERRORS.GeofenceServerRejected()

/** Koji refusing (an error status) is "rejected"; no answer, a slow one or an unusable one are the peer-fault statuses. */
const kojiFault = (err: unknown) =>
  err instanceof UpstreamError && err.reason !== 'status' ? peerFault('Koji', err.reason) : kojiUnavailable()

function createKoji (fastify: FastifyInstance) {
  const { config, clock, log } = fastify
  const base = config.KOJI_API_ADDRESS.replace(/\/+$/, '')
  const configured = base !== '' && config.KOJI_PROJECT_NAME !== ''
  const headers: Record<string, string> = config.KOJI_BEARER_TOKEN !== '' ? { authorization: `Bearer ${config.KOJI_BEARER_TOKEN}` } : {}
  const call = (path: string, init: { method?: 'GET' | 'POST', body?: unknown } = {}) =>
    fetchJson({ service: 'Koji', url: base + path, timeoutMs: config.KOJI_TIMEOUT_MS, maxBytes: config.KOJI_MAX_BYTES, headers, ...init })

  let cached: { value: AdminFences, until: number } | null = null
  let lastGood: AdminFences | null = null
  let inFlight: Promise<AdminFences> | null = null

  interface Reference { id: number, name: string, parent: number | null }
  async function reference (): Promise<Reference[]> {
    const data = dataOf(await call('/api/v1/geofence/reference'))
    if (!Array.isArray(data)) throw new UpstreamError('Koji', 'invalid')
    return data.filter(isObject).filter((r) => typeof r.name === 'string' && Number.isInteger(Number(r.id)))
      .map((r) => ({ id: Number(r.id), name: String(r.name), parent: r.parent === undefined || r.parent === null ? null : Number(r.parent) }))
  }

  /** A fence as Koji's feature route gives it: display name and [lat, lon] outer ring. */
  async function feature (name: string): Promise<{ displayName: string, polygon: LatLon[] }> {
    const data = dataOf(await call(`/api/v1/geofence/area/${encodeURIComponent(name)}?rt=feature`))
    const props = isObject(data) && isObject(data.properties) ? data.properties : {}
    const geometry = isObject(data) && isObject(data.geometry) ? data.geometry : {}
    const ring = Array.isArray(geometry.coordinates) && Array.isArray(geometry.coordinates[0]) ? geometry.coordinates[0] as unknown[] : []
    const polygon = ring.filter((p): p is [number, number] => Array.isArray(p) && p.length >= 2).map(([lon, lat]) => [lat, lon] as LatLon)
    return { displayName: typeof props.name === 'string' && props.name !== '' ? props.name : name, polygon }
  }

  async function regionList (refs: Reference[]): Promise<KojiRegion[]> {
    const parentIds = new Set(refs.map((r) => r.parent).filter((p): p is number => p !== null))
    const regions = refs.filter((r) => parentIds.has(r.id))
    return Promise.all(regions.map(async (r) => ({ id: r.id, name: r.name, ...(await feature(r.name)) })))
  }

  async function load (): Promise<AdminFences> {
    const refs = await reference()
    const regions = await regionList(refs)
    const regionById = new Map(regions.map((r) => [r.id, r]))
    const byName = new Map(refs.map((r) => [r.name, r]))
    const data = dataOf(await call(`/api/v1/geofence/poracle/${encodeURIComponent(config.KOJI_PROJECT_NAME)}?name=true`))
    if (!Array.isArray(data)) throw new UpstreamError('Koji', 'invalid')
    const regionNames = new Set(regions.map((r) => r.name))
    const fences: AdminFence[] = []
    for (const entry of data) {
      const name = isObject(entry) && typeof entry.name === 'string' ? entry.name : ''
      if (name === '' || regionNames.has(name)) continue
      const problem = ringProblem(isObject(entry) ? entry.path : undefined)
      if (problem !== null) {
        log.warn({ fence: name, problem }, 'Koji geofence skipped: malformed polygon')
        continue
      }
      const e = entry as Json
      const ref = byName.get(name)
      const region = ref?.parent !== null && ref?.parent !== undefined ? regionById.get(ref.parent) : undefined
      fences.push(withBox({
        id: fences.length + 1,
        name,
        path: e.path as LatLon[],
        group: region?.displayName ?? '',
        description: typeof e.description === 'string' ? e.description : '',
        color: typeof e.color === 'string' && /^#[0-9a-f]{6}$/i.test(e.color) ? e.color : DEFAULT_COLOR,
        userSelectable: true as const,
        displayInMatches: true as const
      }))
    }
    const json = fences.map(({ box: _box, ...fence }) => JSON.stringify(fence)).join(',')
    return { fences, json, hash: createHash('sha256').update(json).digest('hex'), names: new Set(fences.map((f) => f.name.toLowerCase())), fresh: true }
  }

  /**
   * The admin geofences, cached five minutes. When Koji fails the last good copy is served (and Koji is
   * asked again on the next request after the cache time); without one, no admin fences.
   */
  async function adminFences (): Promise<AdminFences> {
    if (!configured) return EMPTY
    const now = clock.now()
    if (cached !== null && cached.until > now) return cached.value
    inFlight ??= load().then((value) => {
      lastGood = value
      return value
    }, (err: unknown) => {
      log.warn({ reason: err instanceof UpstreamError ? err.message : String(err), lastGood: lastGood !== null }, 'Koji admin geofences unavailable; serving the last good copy')
      return lastGood ?? EMPTY
    }).then((value) => {
      cached = { value, until: clock.now() + ADMIN_TTL_MS }
      return value
    }).finally(() => { inFlight = null })
    return inFlight
  }

  return {
    configured,
    adminFences,

    /** The name of the first admin fence that contains the point, or null. */
    async areaAt (lat: number, lon: number): Promise<string | null> {
      return firstContaining((await adminFences()).fences, lat, lon)
    },

    /** Regions (fences that are another fence's parent) for the drawing page; [] when Koji fails. */
    async regions (): Promise<KojiRegion[]> {
      if (!configured) return []
      try {
        return await regionList(await reference())
      } catch (err) {
        log.warn({ reason: err instanceof Error ? err.message : String(err) }, 'Koji regions unavailable')
        return []
      }
    },

    /** Whether Koji knows this region id (approval with a chosen region). */
    async regionExists (id: number): Promise<boolean> {
      const refs = await reference().catch((err: unknown) => { throw kojiFault(err) })
      return refs.some((r) => r.id === id && refs.some((c) => c.parent === id))
    },

    /** Publishes a fence in the project (userSelectable, displayInMatches); 502 when Koji refuses. */
    async save (fence: KojiSave): Promise<void> {
      await saveFeature(fence, [config.KOJI_PROJECT_ID])
    },

    /** Takes a fence out of the project (Koji keeps the fence itself). */
    async remove (fence: KojiSave): Promise<void> {
      await saveFeature(fence, [])
    },

    /** Drops the cache so the next read asks Koji (after a save or a removal). */
    invalidate (): void { cached = null }
  }

  async function saveFeature (fence: KojiSave, projects: number[]): Promise<void> {
    if (!configured) throw new ERRORS.GeofenceServerMissing()
    const ring = [...fence.path, fence.path[0] as LatLon].map(([lat, lon]) => [lon, lat])
    try {
      await call('/api/v1/geofence/save-koji', {
        method: 'POST',
        body: {
          area: {
            type: 'FeatureCollection',
            features: [{
              type: 'Feature',
              geometry: { type: 'Polygon', coordinates: [ring] },
              properties: {
                __name: fence.name,
                __mode: 'unset',
                __projects: projects,
                __parent: fence.parentId,
                name: fence.displayName,
                group: fence.group,
                parent: fence.parentId,
                userSelectable: true,
                displayInMatches: true
              }
            }]
          }
        }
      })
    } catch (err) {
      log.warn({ reason: err instanceof Error ? err.message : String(err), fence: fence.name }, 'Koji refused a geofence save')
      throw kojiFault(err)
    }
  }
}

export type Koji = ReturnType<typeof createKoji>

declare module 'fastify' {
  interface FastifyInstance {
    koji: Koji
  }
}

/** The Koji geofence server: admin geofences (cached, last good copy on failure), regions, and publishing. */
export default decoratorPlugin('koji', createKoji, ['config', 'clock'])
