import type { FastifyInstance } from 'fastify'
import { EngineError, type EngineArea } from '../data/engine.js'
import { notFound } from '../edge/errors.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { pointInPolygon, type LatLon } from '../../lib/polygon.js'

/** `humans.area` is JSON text; rows written by old tools hold a comma list instead. */
export function parseAreaText (text: string | null | undefined): string[] {
  if (text === null || text === undefined || text.trim() === '') return []
  try {
    const parsed: unknown = JSON.parse(text)
    if (Array.isArray(parsed)) return parsed.map(String)
  } catch {
    // not JSON: fall through to the comma list
  }
  return text.split(',').map((a) => a.trim()).filter((a) => a !== '')
}

/** The rings of an engine fence (`multipath` for several, else `path`); none when it has no usable outline. */
function ringsOf (fence: Record<string, unknown>): LatLon[][] {
  const rings = Array.isArray(fence.multipath) ? fence.multipath : Array.isArray(fence.path) ? [fence.path] : []
  return rings.filter((ring): ring is LatLon[] => Array.isArray(ring))
}

/**
 * The one place where a user's area selection is read and written, for the areas page and for the
 * profile operations that carry areas from one profile to another.
 *
 * User-drawn geofences reach the engine through the service's geofence feed as `userSelectable: false`
 * fences. PoracleNG's `setAreas` drops such names and both engines list them to everyone, so: `available`
 * hides other users' private fences, and `write` never passes on another user's private name (PoracleJS
 * would accept it) and puts the caller's own fence names back with `areaWriter` after `setAreas`.
 */
function createAreaSelection (fastify: FastifyInstance) {
  const { engine, userGeofences, areaWriter, userWriteLock } = fastify

  /** The user's selected areas (the active profile's, which the engine mirrors into `humans.area`). */
  async function selected (userId: string): Promise<string[]> {
    return parseAreaText((await engine.humans.one(userId)).area)
  }

  /** Whether the user may see a fence: every fence except user-drawn private ones of other users. */
  async function visibility (userId: string): Promise<(name: string) => boolean> {
    const privateNames = await userGeofences.privateNames()
    return (name) => {
      const owner = privateNames.get(name.toLowerCase())
      return owner === undefined || owner === userId
    }
  }

  return {
    selected,
    visibility,

    /** The areas the user may choose: the engine's list without other users' private fences. */
    async available (userId: string): Promise<EngineArea[]> {
      const [areas, visible] = await Promise.all([engine.humans.areas(userId), visibility(userId)])
      return areas.filter((area) => visible(String(area.name)))
    },

    /**
     * The names of the fences the user may see that hold a point, in the engine's order: how the
     * dashboard names a place where no geocoder is configured.
     */
    async at (userId: string, lat: number, lon: number): Promise<string[]> {
      const [fences, visible] = await Promise.all([engine.geofence.all(), visibility(userId)])
      return fences.flatMap((fence) => {
        const name = fence.name
        if (typeof name !== 'string' || !visible(name)) return []
        return ringsOf(fence).some((ring) => pointInPolygon(lat, lon, ring)) ? [name] : []
      })
    },

    /**
     * Replaces the active profile's selection. Names are lower-cased (the engine matches them
     * case-sensitively against lower-case stored names); the engine silently drops names it does not
     * allow, so the answer is the selection read back, not the request.
     */
    async write (userId: string, names: string[]): Promise<string[]> {
      return await userWriteLock.run(userId, async () => {
        const privateNames = await userGeofences.privateNames()
        const wanted = [...new Set(names.map((n) => n.trim().toLowerCase()).filter((n) => n !== ''))]
          .filter((n) => privateNames.get(n) === undefined || privateNames.get(n) === userId)
        const own = wanted.filter((n) => privateNames.get(n) === userId)
        await engine.humans.setAreas(userId, wanted)
        if (own.length > 0) await areaWriter.add(userId, own)
        return selected(userId)
      })
    },

    /** The engine's map picture of one fence the user may see; another user's private fence has none. */
    async mapOf (userId: string, fenceName: string): Promise<string> {
      const name = fenceName.trim().toLowerCase()
      if (!(await visibility(userId))(name)) throw notFound('No map for this area.')
      try {
        return await engine.geofence.areaMap(name)
      } catch (err) {
        if (!(err instanceof EngineError)) throw err
        throw notFound('No map for this area.')
      }
    }
  }
}

export type AreaSelection = ReturnType<typeof createAreaSelection>

declare module 'fastify' {
  interface FastifyInstance {
    areaSelection: AreaSelection
  }
}

export default decoratorPlugin('area-selection', createAreaSelection, ['engine', 'user-write-lock', 'user-geofences', 'area-writer'])
