import type { FastifyInstance } from 'fastify'
import { boundingBox, boxContains, pointInPolygon, type BoundingBox, type LatLon } from '../../lib/polygon.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'

/**
 * The fences by the names the engine uses: its own list (`/api/geofence/all`: its geofence files, Koji's
 * fences and this service's feed, whatever its configuration loads). Estimates, the areas page, "which
 * area is this point in" and the explanations all read this one copy, so an area means the same polygon
 * everywhere, and an area the engine does not know is known not to be one. Koji is read only for its
 * regions and written on approvals (plugins/domain/koji.ts).
 */

/** How long a read is used before the engine's fingerprint (`/api/geofence/all/hash`) is asked again. */
const CHECK_MS = 10_000

type Json = Record<string, unknown>

export interface EngineFence {
  /** Lower case: how members' areas name it. */
  name: string
  /** As the engine lists it. */
  displayName: string
  /** One polygon, or several for a `multipath` fence; each with its box. */
  parts: Array<{ path: LatLon[], box: BoundingBox }>
  /** The engine's fence object, as its list gave it (the map draws these). */
  raw: Json
}

export interface FenceSet {
  fences: EngineFence[]
  byName: ReadonlyMap<string, EngineFence>
  /** False when the engine could not be read and there was no earlier copy. */
  fresh: boolean
  /** Every fence containing the point (lower-case names), in the engine's order. */
  at: (lat: number, lon: number) => string[]
  known: (name: string) => boolean
}

const isPoint = (p: unknown): p is LatLon => Array.isArray(p) && p.length >= 2 && typeof p[0] === 'number' && typeof p[1] === 'number'
const ring = (v: unknown): LatLon[] | null => (Array.isArray(v) && v.length >= 3 && v.every(isPoint) ? v.map((p) => [p[0], p[1]] as LatLon) : null)

/** A fence object of the engine's list, with its polygons boxed; null when it has no name or no polygon. */
export function readFence (raw: Json): EngineFence | null {
  if (typeof raw.name !== 'string' || raw.name === '') return null
  const rings = [ring(raw.path), ...(Array.isArray(raw.multipath) ? raw.multipath.map(ring) : [])].filter((r): r is LatLon[] => r !== null)
  if (rings.length === 0) return null
  return { name: raw.name.toLowerCase(), displayName: raw.name, parts: rings.map((path) => ({ path, box: boundingBox(path) })), raw }
}

export function fenceSet (list: Json[], fresh: boolean): FenceSet {
  const fences = list.map(readFence).filter((f): f is EngineFence => f !== null)
  const byName = new Map<string, EngineFence>()
  for (const f of fences) if (!byName.has(f.name)) byName.set(f.name, f)
  return {
    fences,
    byName,
    fresh,
    at: (lat, lon) => fences.filter((f) => f.parts.some((p) => boxContains(p.box, lat, lon) && pointInPolygon(lat, lon, p.path))).map((f) => f.name),
    known: (name) => byName.has(name.toLowerCase())
  }
}

function createEngineFences (fastify: FastifyInstance) {
  const { engine, clock, log } = fastify
  let kept: { set: FenceSet, hash: string, checked: number } | null = null
  let inFlight: Promise<FenceSet> | null = null

  const fingerprint = (areas: Record<string, string>) => JSON.stringify(Object.entries(areas).sort(([a], [b]) => a.localeCompare(b)))

  async function refresh (): Promise<FenceSet> {
    try {
      // The fingerprint first: when it has not changed, the polygons are not read again.
      const hash = fingerprint(await engine.geofence.hash())
      if (kept !== null && kept.hash === hash) {
        kept.checked = clock.now()
        return kept.set
      }
      const set = fenceSet(await engine.geofence.all(), true)
      kept = { set, hash, checked: clock.now() }
      return set
    } catch (err) {
      log.warn({ reason: err instanceof Error ? err.message : String(err) }, kept === null ? 'alarm engine geofences unavailable; no fences known' : 'alarm engine geofences unavailable; keeping the last copy')
      return kept?.set ?? fenceSet([], false)
    }
  }

  /** The engine's fences, checked against its fingerprint at most every ten seconds; the last copy while it is unreachable. */
  async function current (): Promise<FenceSet> {
    if (kept !== null && clock.now() - kept.checked < CHECK_MS) return kept.set
    inFlight ??= refresh().finally(() => { inFlight = null })
    return await inFlight
  }

  return {
    current,

    /** After a change this service made to the fences the engine loads: the next read asks again. */
    invalidate (): void {
      if (kept !== null) kept.checked = -Infinity
    },

    /** The first of the engine's fences containing the point (as the engine lists its name), or null. */
    async areaAt (lat: number, lon: number): Promise<string | null> {
      const set = await current()
      const name = set.at(lat, lon)[0]
      return name === undefined ? null : (set.byName.get(name) as EngineFence).displayName
    }
  }
}

export type EngineFences = ReturnType<typeof createEngineFences>

declare module 'fastify' {
  interface FastifyInstance {
    engineFences: EngineFences
  }
}

export default decoratorPlugin('engine-fences', createEngineFences, ['clock', 'engine'])
