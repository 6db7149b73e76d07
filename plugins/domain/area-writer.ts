import type { FastifyInstance } from 'fastify'
import type { PoolConnection } from 'mariadb'
import { parseAreaText } from './area-selection.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'

/** Which rows a change touches: the user's current selection (`humans` + the active profile) or every profile. */
export type AreaScope = 'active' | 'all'

const lower = (names: string[]) => names.map((n) => n.trim().toLowerCase()).filter((n) => n !== '')

/** Adds names at the end, skipping ones already present (case-insensitively), keeping the stored order. */
export function addNames (current: string[], names: string[]): string[] {
  const out = [...current]
  const seen = new Set(current.map((n) => n.toLowerCase()))
  for (const name of lower(names)) if (!seen.has(name)) { seen.add(name); out.push(name) }
  return out
}

export function removeNames (current: string[], names: string[]): string[] {
  const doomed = new Set(lower(names))
  return current.filter((n) => !doomed.has(n.toLowerCase()))
}

/** Renames in place; when the new name is already there the old one is simply dropped. */
export function renameName (current: string[], from: string, to: string): string[] {
  const target = to.toLowerCase()
  const has = current.some((n) => n.toLowerCase() === target)
  return current.flatMap((n) => (n.toLowerCase() === from.toLowerCase() ? (has ? [] : [target]) : [n]))
}

/**
 * Direct writes of area names into the engine's tables, for the names the engine's own `setAreas` would
 * drop (user geofences are served as `userSelectable: false`). `humans.area` and `profiles.area` change in
 * one transaction with the rows locked, and the engine is told to reload before the commit: when it
 * cannot be told, the change is rolled back and the error is the caller's. After the commit the engine is
 * told once more, so that it reads the committed rows rather than the ones it saw during the transaction.
 */
function createAreaWriter (fastify: FastifyInstance) {
  const { engineDb, engine, log } = fastify

  async function rewrite (connection: PoolConnection, userId: string, scope: AreaScope, edit: (areas: string[]) => string[]): Promise<boolean> {
    const humans = await connection.query('SELECT area, current_profile_no FROM humans WHERE id = ? FOR UPDATE', [userId]) as Array<{ area: string | null, current_profile_no: number }>
    const human = humans[0]
    if (human === undefined) return false
    const profiles = await connection.query('SELECT profile_no, area FROM profiles WHERE id = ? FOR UPDATE', [userId]) as Array<{ profile_no: number, area: string | null }>
    let changed = false
    const humanBefore = parseAreaText(human.area)
    const humanAfter = edit(humanBefore)
    if (JSON.stringify(humanAfter) !== JSON.stringify(humanBefore)) {
      await connection.query('UPDATE humans SET area = ? WHERE id = ?', [JSON.stringify(humanAfter), userId])
      changed = true
    }
    for (const profile of profiles) {
      if (scope === 'active' && Number(profile.profile_no) !== Number(human.current_profile_no)) continue
      const before = parseAreaText(profile.area)
      const after = edit(before)
      if (JSON.stringify(after) === JSON.stringify(before)) continue
      await connection.query('UPDATE profiles SET area = ? WHERE id = ? AND profile_no = ?', [JSON.stringify(after), userId, profile.profile_no])
      changed = true
    }
    return changed
  }

  /** Applies `edit` to the user's area lists; true when a row changed. Throws (rolled back) when the engine cannot reload. */
  async function update (userId: string, scope: AreaScope, edit: (areas: string[]) => string[]): Promise<boolean> {
    const changed = await engineDb.transaction(async (_tx, connection) => {
      const wrote = await rewrite(connection, userId, scope, edit)
      if (wrote) await engine.reload()
      return wrote
    })
    if (changed) {
      await engine.reload().catch((err: unknown) => {
        log.warn({ reason: err instanceof Error ? err.message : String(err) }, 'alarm engine reload after the committed area change failed; it applies at the next reload')
      })
    }
    return changed
  }

  return {
    add: (userId: string, names: string[], scope: AreaScope = 'active') => update(userId, scope, (a) => addNames(a, names)),
    remove: (userId: string, names: string[], scope: AreaScope) => update(userId, scope, (a) => removeNames(a, names)),
    rename: (userId: string, from: string, to: string) => update(userId, 'all', (a) => renameName(a, from, to))
  }
}

export type AreaWriter = ReturnType<typeof createAreaWriter>

declare module 'fastify' {
  interface FastifyInstance {
    areaWriter: AreaWriter
  }
}

export default decoratorPlugin('area-writer', createAreaWriter, ['engine-db', 'engine'])
