import type { FastifyInstance } from 'fastify'
import { ERRORS } from '../../edge/errors.js'
import { EngineError } from '../../data/engine.js'
import { splitOverrideAreas } from '../user-geofences/fence-rules.js'
import { engineRules, type AlarmKind, type DiffRules } from '../../../schemas/alarm-types.js'
import { sameAlarm } from '../../../lib/alarm-diff.js'
import { Undo } from '../../../lib/undo.js'
import { areaList, content, outgoing, present, sameKey, type Alarm, type OverrideAreasWrite, type Row, type Step } from './rows.js'
import { conflictFor, unstored, type BatchRefusal } from './refusals.js'

export type EngineWriteDeps = Pick<FastifyInstance, 'engine' | 'engineDb' | 'alarmEvents' | 'log' | 'userGeofences'>

/**
 * The alarm writer's side of the engine: reading a user's alarms of a type, writing planned steps in one
 * engine call and reconciling what the engine made of them, putting everything back when a write fails
 * halfway, and the direct write of override areas naming the user's own fences.
 */
export function createEngineWrites ({ engine, engineDb, alarmEvents, log, userGeofences }: EngineWriteDeps) {
  async function list (kind: AlarmKind, userId: string): Promise<Alarm[]> {
    const rows = await engine.tracking.get(kind.type, userId)
    return rows.map(present).sort((a, b) => a.uid - b.uid)
  }

  /** The engine's duplicate rules for the type, as the running engine generation applies them. */
  const rulesOf = async (kind: AlarmKind): Promise<DiffRules> => engineRules(kind.type, await engine.generation())

  /**
   * The second half of `splitOwnFences`: the alarms were sent to the engine without the user's own fence
   * names, so their full lists are written straight into the engine DB and the engine re-reads them.
   * PoracleNG only: PoracleJS has no per-alarm override areas and does not read the column. Says whether
   * anything was written.
   */
  async function writeOwnAreas (userId: string, writes: OverrideAreasWrite[]): Promise<boolean> {
    if (writes.length === 0 || await engine.generation() !== 'ng') return false
    for (const w of writes) await engineDb.setOverrideAreas(w.type, userId, w.uid, w.areas)
    await engine.reload()
    return true
  }

  /**
   * Each step goes to the engine without the user's own fence names (plugins/domain/user-geofences.ts,
   * splitOverrideAreas) and keeps its full list to write directly afterwards. A stored row holding such
   * names no longer equals anything the engine is sent, so the engine would insert beside it: where the
   * type has a unique key, the old row is deleted first (as for any insert under the same key).
   */
  async function withoutOwnFences (kind: AlarmKind, userId: string, steps: Step[]): Promise<Array<string[] | null>> {
    if (!steps.some((s) => areaList(s.candidate).length > 0 || areaList(s.replaces).length > 0)) return steps.map(() => null)
    const owners = await userGeofences.privateNames()
    const own = (n: string) => owners.get(n) === userId
    return steps.map((step) => {
      const names = areaList(step.candidate)
      const split = splitOverrideAreas(owners, userId, names, '/override_areas')
      if (kind.uniqueKey !== undefined && step.replaces !== undefined && areaList(step.replaces).some(own) &&
        sameKey(kind.uniqueKey, step.candidate, step.replaces)) step.deleteFirst = true
      if (!split.own) return null
      step.candidate = { ...step.candidate, override_areas: split.sent }
      return names
    })
  }

  /**
   * Puts back what a failed multi-step write changed: rows it added go, rows it removed or altered return
   * (under new uids where the engine assigns them). Best effort: the engine may be the reason it failed,
   * and the undo list logs a failure here.
   * `fullAreas` are the steps' override areas before the own fence names were taken out: a row the write
   * added may hold either list, depending on where it failed. Rows come back with their override areas
   * exactly: the engine is sent what it can store and private fence names are written directly after.
   */
  async function restore (kind: AlarmKind, userId: string, before: Alarm[], steps: Step[], fullAreas: Array<string[] | null>): Promise<void> {
    const current = await list(kind, userId)
    const known = new Set(before.map((r) => r.uid))
    const written = steps.flatMap((s, i) => {
      const full = fullAreas[i]
      return full === null || full === undefined ? [s.candidate] : [s.candidate, { ...s.candidate, override_areas: full }]
    })
    const added = current.filter((r) => !known.has(r.uid) && written.some((c) => sameAlarm(c, r)))
    const damaged = before.filter((r) => {
      const now = current.find((c) => c.uid === r.uid)
      return now === undefined || !sameAlarm(content(r), now)
    })
    if (added.length === 0 && damaged.length === 0) return
    const explicit = (r: Alarm) => kind.type === 'pokemon' && current.some((c) => c.uid === r.uid)
    const doomed = [...added.map((r) => r.uid), ...damaged.filter((r) => !explicit(r) && current.some((c) => c.uid === r.uid)).map((r) => r.uid)]
    await engine.tracking.bulkDelete(kind.type, userId, doomed, { silent: true })
    if (damaged.length > 0) {
      const owners = await userGeofences.privateNames()
      // What the engine is sent and will show for each row; rows whose list held private fences also keep it.
      const sent = damaged.map((r) => {
        const areas = areaList(r)
        const kept = areas.filter((n) => !owners.has(n))
        return kept.length === areas.length ? content(r) : { ...content(r), override_areas: kept.length > 0 ? kept : null }
      })
      await engine.tracking.create(kind.type, userId, damaged.map((r, i) => {
        const body = outgoing(sent[i] as Row)
        return explicit(r) ? { ...body, uid: r.uid } : body
      }), { silent: true })
      const after = await list(kind, userId)
      const rewrites: OverrideAreasWrite[] = []
      for (const [i, r] of damaged.entries()) {
        const back = explicit(r) ? after.find((a) => a.uid === r.uid) : after.find((a) => !known.has(a.uid) && sameAlarm(sent[i] as Row, a))
        if (back === undefined) continue
        if (sent[i]?.override_areas !== r.override_areas) rewrites.push({ type: kind.type, uid: back.uid, areas: areaList(r) })
        if (!explicit(r)) await alarmEvents.emit('uidChanged', { userId, type: kind.type, oldUid: r.uid, newUid: back.uid })
      }
      await writeOwnAreas(userId, rewrites)
    }
    log.warn({ type: kind.type, removed: added.length, restored: damaged.length }, 'undid a partly applied alarm change')
  }

  /**
   * Writes the steps in one engine call and reconciles the outcome (reference 5.3): finds each step's
   * stored row, deletes rows the engine superseded instead of updating, reports uid changes, and undoes
   * everything when the engine changed an alarm outside the batch or a later step fails.
   * Returns each step's stored row, or null when the engine stored nothing new (already present).
   */
  async function apply (kind: AlarmKind, userId: string, before: Alarm[], steps: Step[]): Promise<Array<Alarm | null>> {
    const explicit = kind.type === 'pokemon'
    const fullAreas = await withoutOwnFences(kind, userId, steps)
    // An update is the create call with the uid present (the spec); only pokemon rows are matched by it.
    const bodies = steps.map((s) => (s.replaces && s.deleteFirst !== true ? { ...outgoing(s.candidate), uid: s.replaces.uid } : outgoing(s.candidate)))
    const early = steps.filter((s) => s.deleteFirst === true).map((s) => (s.replaces as Alarm).uid)
    const undo = new Undo(log)
    undo.push(`restore the ${kind.type} alarms as they were`, () => restore(kind, userId, before, steps, fullAreas))
    return undo.guard(async () => {
      await engine.tracking.bulkDelete(kind.type, userId, early, { silent: true })
      await engine.tracking.create(kind.type, userId, bodies.length === 1 ? bodies[0] as Row : bodies, { silent: true })
      const after = await list(kind, userId)
      const replaced = new Set(steps.flatMap((s) => (s.replaces ? [s.replaces.uid] : [])))
      const disturbed = before.some((r) => {
        if (replaced.has(r.uid)) return false
        const now = after.find((a) => a.uid === r.uid)
        return now === undefined || !sameAlarm(content(r), now)
      })
      if (disturbed) throw conflictFor(kind, 'The alarm engine merged this change into another of your alarms; nothing was changed.')

      const known = new Set(before.map((r) => r.uid))
      const claimed = new Set<number>()
      const results = steps.map((step) => {
        const pick = (row: Alarm | undefined) => { if (row !== undefined) claimed.add(row.uid); return row ?? null }
        const free = after.filter((a) => !claimed.has(a.uid))
        // A pokemon update keeps its uid, whatever the engine made of the values (PoracleJS caps distance).
        if (explicit && step.replaces) return pick(free.find((a) => a.uid === step.replaces?.uid))
        const fresh = free.filter((a) => !known.has(a.uid))
        return pick(fresh.find((a) => sameAlarm(step.candidate, a)) ??
          free.find((a) => sameAlarm(step.candidate, a)) ??
          // A single new row is the one written even where the engine normalised a value differently.
          (steps.length === 1 && fresh.length === 1 ? fresh[0] : undefined))
      })
      if (results.some((r, i) => r === null && steps[i]?.replaces !== undefined)) throw unstored(kind)
      // Only the step's own row (new, or the one it replaces), never an older alarm the engine matched.
      const rewrites = results.flatMap((row, i) => {
        const areas = fullAreas[i]
        return areas === null || areas === undefined || row === null || (known.has(row.uid) && row.uid !== steps[i]?.replaces?.uid)
          ? []
          : [{ row, write: { type: kind.type, uid: row.uid, areas } }]
      })
      // PoracleJS has no per-alarm override areas: it stores none of the names, so nothing is written there.
      if (await writeOwnAreas(userId, rewrites.map((r) => r.write))) {
        for (const { row, write } of rewrites) row.override_areas = write.areas
      }

      const superseded = steps.flatMap((s, i) => {
        const old = s.replaces?.uid
        return old !== undefined && results[i]?.uid !== old && after.some((a) => a.uid === old) ? [old] : []
      })
      await engine.tracking.bulkDelete(kind.type, userId, superseded, { silent: true })
      for (const [i, s] of steps.entries()) {
        const newUid = results[i]?.uid
        if (s.replaces && newUid !== undefined && newUid !== s.replaces.uid) {
          await alarmEvents.emit('uidChanged', { userId, type: kind.type, oldUid: s.replaces.uid, newUid })
        }
      }
      return results
    })
  }

  /**
   * Writes the accepted steps in one engine call. When the engine refuses the batch as a whole (a 400),
   * every item of it is refused with the engine's own reason, unless `whole` (the caller answers the
   * engine's refusal itself); other failures fail the request.
   */
  async function applyBatch (kind: AlarmKind, userId: string, before: Alarm[], steps: Step[], whole: boolean): Promise<Array<Alarm | null> | BatchRefusal> {
    if (steps.length === 0) return []
    try {
      return await apply(kind, userId, before, steps)
    } catch (err) {
      if (whole) throw err
      if (err instanceof EngineError && err.kind === 'bad_request') return { reason: err.details.engineMessage ?? err.message, details: [] }
      if (err instanceof ERRORS.Conflict) return { reason: err.message, details: [] }
      throw err
    }
  }

  return { list, rulesOf, writeOwnAreas, apply, applyBatch }
}

export type EngineWrites = ReturnType<typeof createEngineWrites>
