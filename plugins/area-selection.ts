import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { EngineArea } from './engine.js'

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

/**
 * The one place where a user's area selection is read and written, for the areas page and for the
 * profile operations that carry areas from one profile to another.
 *
 * Geofence seam: user-drawn geofences reach the engine through the service's geofence feed as
 * `userSelectable: false` fences. The engine's `setAreas` drops such names and its area list shows them
 * to everyone. The geofence concern therefore extends `available` (hide other users' private fences) and
 * `write` (re-add the caller's own fence names to `humans.area` and the active `profiles.area` in one
 * transaction, then reload the engine). Until then the engine's own answers are the whole truth.
 */
function createAreaSelection (fastify: FastifyInstance) {
  const { engine } = fastify

  /** The user's selected areas (the active profile's, which the engine mirrors into `humans.area`). */
  async function selected (userId: string): Promise<string[]> {
    return parseAreaText((await engine.humans.one(userId)).area)
  }

  return {
    selected,

    /** The areas the user may choose. */
    async available (userId: string): Promise<EngineArea[]> {
      return engine.humans.areas(userId)
    },

    /**
     * Replaces the active profile's selection. Names are lower-cased (the engine matches them
     * case-sensitively against lower-case stored names); the engine silently drops names it does not
     * allow, so the answer is the selection read back, not the request.
     */
    async write (userId: string, names: string[]): Promise<string[]> {
      const wanted = [...new Set(names.map((n) => n.trim().toLowerCase()).filter((n) => n !== ''))]
      await engine.humans.setAreas(userId, wanted)
      return selected(userId)
    }
  }
}

export type AreaSelection = ReturnType<typeof createAreaSelection>

declare module 'fastify' {
  interface FastifyInstance {
    areaSelection: AreaSelection
  }
}

export default fp(async (fastify) => {
  fastify.decorate('areaSelection', createAreaSelection(fastify))
}, { name: 'area-selection', fastify: '5.x', dependencies: ['engine'] })
