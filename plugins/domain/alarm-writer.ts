import type { FastifyInstance } from 'fastify'
import { notFound } from '../edge/errors.js'
import { EngineError } from '../data/engine.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { splitOverrideAreas } from './user-geofences/fence-rules.js'
import type { AlarmKind, AlarmType } from '../../schemas/alarm-types.js'
import { canon, differences, predict, sameAlarm } from '../../lib/alarm-diff.js'
import { check, content, given, normalize, prepare, type Alarm, type OverrideAreasWrite, type Row, type Step } from './alarm-writer/rows.js'
import { TAKEOVER, conflictFor, plan, unstored } from './alarm-writer/refusals.js'
import { createEngineWrites } from './alarm-writer/engine-writes.js'
import { createBatches } from './alarm-writer/batches.js'
import { createAutoDelete } from './alarm-writer/auto-delete.js'

// The alarm writer's words, for the concerns that write through it (its parts are in plugins/domain/alarm-writer/).
export { present, hasAutoDelete } from './alarm-writer/rows.js'
export type { Collision } from './alarm-writer/refusals.js'

/**
 * One list of override areas as the engine can take it: `names` trimmed, lower-cased and without
 * repeats; `sent` without private fences (null for none); `own` when the user's own fences were among
 * them, so the full list is written directly once the alarm exists.
 */
export interface FenceSplit { names: string[], sent: string[] | null, own: boolean }

/**
 * Alarms to create as they are, in one engine create call, without the planning of `create`: their
 * caller checked them already. `ownAreas` is the full override area list to write into the rows the
 * call creates (the body is sent without the user's own fences, see `splitOwnFences`).
 */
export interface NewAlarms { type: AlarmType, body: Row | Row[], ownAreas: string[] | null }

function createAlarmWriter (fastify: FastifyInstance) {
  const { engine, userWriteLock, userGeofences } = fastify
  const engineWrites = createEngineWrites(fastify)
  const { list, rulesOf, apply, writeOwnAreas } = engineWrites
  const batches = createBatches(engineWrites)

  /**
   * A write runs under the user's write lock (plugins/data/user-write-lock.ts): its read-plan-write-check
   * sequence assumes nobody else changes the user's alarms or active profile meanwhile.
   */
  const locked = <A extends unknown[], R>(write: (kind: AlarmKind, userId: string, ...rest: A) => Promise<R>) =>
    (kind: AlarmKind, userId: string, ...rest: A): Promise<R> => userWriteLock.run(userId, () => write(kind, userId, ...rest))

  const find = (rows: Alarm[], uid: number): Alarm => {
    const row = rows.find((r) => r.uid === uid)
    if (row === undefined) throw notFound('Alarm not found.')
    return row
  }

  return {
    list,

    async one (kind: AlarmKind, userId: string, uid: number): Promise<Alarm> {
      return find(await list(kind, userId), uid)
    },

    /** `created: false` with uid 0 when the engine already had this exact alarm. */
    create: locked(async (kind: AlarmKind, userId: string, body: Row): Promise<{ created: boolean, alarm: Alarm }> => {
      const { sent, candidate } = prepare(kind, body)
      check(kind, candidate)
      const before = await list(kind, userId)
      const rules = await rulesOf(kind)
      const twin = before.find((r) => sameAlarm(candidate, r))
      if (twin !== undefined) {
        // Max battles have no duplicate detection in the engine: answer as the other types do, without writing.
        if (rules.match === null) return { created: false, alarm: { ...twin, uid: 0 } }
        if (predict(rules, candidate, before).kind === 'update') throw conflictFor(kind, TAKEOVER)
      } else {
        plan(kind, rules, before, [{ candidate }])
      }
      const [stored] = await apply(kind, userId, before, [{ candidate: sent }])
      if (stored && !before.some((r) => r.uid === stored.uid)) return { created: true, alarm: stored }
      const existing = stored ?? twin
      if (existing === undefined) throw unstored(kind)
      return { created: false, alarm: { ...existing, uid: 0 } }
    }),

    createMany: locked(batches.createMany),
    updateMany: locked(batches.updateMany),

    /** Null or absent fields keep their stored values; stored columns the API does not know are sent back unchanged. */
    update: locked(async (kind: AlarmKind, userId: string, uid: number, body: Row): Promise<Alarm> => {
      const before = await list(kind, userId)
      const stored = find(before, uid)
      const candidate = normalize({ ...content(stored), ...given(kind, body) })
      check(kind, candidate)
      if (differences(candidate, stored).length === 0) return stored
      const steps: Step[] = [{ candidate, replaces: stored }]
      plan(kind, await rulesOf(kind), before, steps)
      const [result] = await apply(kind, userId, before, steps)
      return result as Alarm
    }),

    remove: locked(async (kind: AlarmKind, userId: string, uid: number): Promise<void> => {
      find(await list(kind, userId), uid)
      try {
        await engine.tracking.deleteByUid(kind.type, userId, uid, { silent: true })
      } catch (err) {
        // Already gone is what the caller wanted.
        if (!(err instanceof EngineError && err.kind === 'not_found')) throw err
      }
    }),

    removeAll: locked(async (kind: AlarmKind, userId: string): Promise<number> => {
      const rows = await list(kind, userId)
      await engine.tracking.bulkDelete(kind.type, userId, rows.map((r) => r.uid), { silent: true })
      return rows.length
    }),

    /**
     * Sets `distance` on the given alarms (all of the type when `uids` is null): the stored rows are
     * changed in memory and posted back in one call. Alarms already at that distance are not rewritten.
     */
    setDistance: locked(async (kind: AlarmKind, userId: string, distance: number, uids: number[] | null): Promise<number> => {
      const before = await list(kind, userId)
      const selected = uids === null ? before : uids.map((uid) => find(before, uid))
      const steps: Step[] = selected
        .filter((r) => canon(r.distance) !== canon(distance))
        .map((r) => ({ candidate: { ...content(r), distance }, replaces: r }))
      if (steps.length === 0) return 0
      for (const step of steps) check(kind, step.candidate)
      plan(kind, await rulesOf(kind), before, steps)
      await apply(kind, userId, before, steps)
      return steps.length
    }),

    /**
     * Splits each list of override areas for the engine (see `FenceSplit`); another user's private fence
     * is a 400 naming that list's `field`. Nothing is written: callers split before their first write.
     */
    async splitOwnFences (userId: string, lists: Array<{ names: unknown[], field: string }>): Promise<FenceSplit[]> {
      const normalized = lists.map(({ names }) => [...new Set(names.map((n) => String(n).trim().toLowerCase()))])
      const owners = normalized.some((names) => names.length > 0) ? await userGeofences.privateNames() : new Map<string, string>()
      return normalized.map((names, i) => ({ names, ...splitOverrideAreas(owners, userId, names, lists[i]?.field ?? '') }))
    },

    /**
     * Creates each entry's alarms in one engine create call, in order, and writes the full override areas
     * of entries with `ownAreas` into the rows their call created (all in one direct write at the end).
     * For an empty profile only (a new profile being filled): the engine would match rows sent here to
     * stored alarms and rewrite them (alarm-engine.md 1.3); `createMany` skips those instead.
     */
    insert: (userId: string, entries: NewAlarms[]): Promise<void> => userWriteLock.run(userId, async () => {
      const uids = async (type: AlarmType) => new Set((await engine.tracking.get(type, userId)).map((r) => r.uid))
      const writes: OverrideAreasWrite[] = []
      for (const entry of entries) {
        const areas = entry.ownAreas
        const before = areas !== null ? await uids(entry.type) : null
        await engine.tracking.create(entry.type, userId, entry.body, { silent: true })
        if (before === null || areas === null) continue
        const fresh = [...await uids(entry.type)].filter((uid) => !before.has(uid))
        writes.push(...fresh.map((uid) => ({ type: entry.type, uid, areas })))
      }
      await writeOwnAreas(userId, writes)
    }),

    /** Deletes those of `uids` the user still has (active profile); alarms deleted elsewhere meanwhile are skipped. */
    removeExisting: (type: AlarmType, userId: string, uids: number[]): Promise<void> => userWriteLock.run(userId, async () => {
      const existing = new Set((await engine.tracking.get(type, userId)).map((r) => r.uid))
      await engine.tracking.bulkDelete(type, userId, uids.filter((uid) => existing.has(uid)), { silent: true })
    }),

    /** Auto-delete on or off for every alarm of a type, under the user's write lock (`alarm-writer/auto-delete.ts`). */
    setAutoDelete: createAutoDelete(fastify)
  }
}

export type AlarmWriter = ReturnType<typeof createAlarmWriter>

declare module 'fastify' {
  interface FastifyInstance {
    alarmWriter: AlarmWriter
  }
}

/**
 * The one way alarms are written: the alarm routes, cleaning, quick picks and profile copies all go
 * through it, under the user's write lock, with their own fences and undo handled here.
 */
export default decoratorPlugin('alarm-writer', createAlarmWriter, ['engine', 'engine-db', 'alarm-events', 'user-write-lock', 'user-geofences'])
