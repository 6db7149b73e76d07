import type { FastifyInstance } from 'fastify'
import { ERRORS, badRequest, conflict, notFound } from '../edge/errors.js'
import { EngineError, type AlarmRow } from '../data/engine.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { splitOverrideAreas } from './user-geofences.js'
import { ALARM_FIELDS } from '../../schemas/alarms.js'
import { engineRules, type AlarmKind, type AlarmType, type DiffRules } from '../../schemas/alarm-types.js'
import { toTransferAlarm } from '../../schemas/profiles.js'
import { META_FIELDS, canon, differences, predict, sameAlarm } from '../../lib/alarm-diff.js'
import { Undo } from '../../lib/undo.js'

type Row = Record<string, unknown>
/** A stored alarm as the API shows it: JSON-text list columns parsed to arrays. */
export type Alarm = Row & { uid: number, id: string, profile_no: number }

/** Why an item of a batch was not written: the message, and the fields it names when a rule of the service refused it. */
interface BatchRefusal { reason: string, details: Array<{ field: string, message: string }> }

/**
 * Which alarm a row would meet on the engine's duplicate check (alarm-engine.md 1.3), and how: `present`
 * the same alarm is stored, `takeover` the engine would rewrite that stored alarm with the row,
 * `same-key` the table's unique key refuses a second row, `repeated` an earlier row of the same batch.
 * `uid` is the stored alarm met (null for an earlier row of the batch).
 */
export interface Collision { code: 'present' | 'takeover' | 'same-key' | 'repeated', uid: number | null }

/** One item of a batch create, by its place in the request. */
export interface BatchCreateItem {
  index: number
  status: 'created' | 'duplicate' | 'refused'
  alarm?: Alarm
  reason?: string
  details?: BatchRefusal['details']
  /** For a duplicate, and for an item refused because it meets an alarm: which one, and how. */
  collision?: Collision
  /** While planning: the earlier item of the batch this one equals. */
  sameAs?: number
}

/** One alarm of a bulk update, by its uid before the change. */
export interface BulkUpdateItem {
  uid: number
  status: 'updated' | 'unchanged' | 'refused'
  alarm?: Alarm
  reason?: string
  details?: BatchRefusal['details']
}

/** One row to write: a new alarm, or the new content of `replaces`. */
interface Step {
  candidate: Row
  replaces?: Alarm
  /** Delete `replaces` before writing: the engine would insert a second row under the same unique key. */
  deleteFirst?: boolean
}

/** Columns the engine keeps as JSON text but the API shows as lists. */
const LIST_COLUMNS = ['override_areas', 'change_types']
/** Columns where null is a value ("any gym"), sent as such; other nulls are left out so the engine applies its default. */
const NULL_MEANS_ANY = new Set(['gym_id', 'station_id'])

function parseList (value: unknown): unknown {
  if (typeof value !== 'string') return value
  try {
    const parsed: unknown = JSON.parse(value)
    return Array.isArray(parsed) ? parsed : value
  } catch {
    return value
  }
}

/** The row as the API shows it; copied only when a list column changes (most rows have none: the list is null). */
export function present (row: AlarmRow): Alarm {
  let shown: Row = row
  for (const column of LIST_COLUMNS) {
    const value = row[column]
    if (typeof value !== 'string') continue
    if (shown === row) shown = { ...row }
    shown[column] = parseList(value)
  }
  return shown as Alarm
}

/** The alarm's own fields, without the row's bookkeeping. */
const content = (row: Row): Row => Object.fromEntries(Object.entries(row).filter(([field]) => !META_FIELDS.has(field)))

/** The type's fields a client sent, without nulls (null = "keep" on updates, "default" on creates). */
function given (kind: AlarmKind, body: Row): Row {
  const known = ALARM_FIELDS[kind.type]
  return Object.fromEntries(Object.entries(body).filter(([field, value]) => Object.hasOwn(known, field) && value !== null))
}

/** The spec's storage rules: grunt types and area names lower-case, "" means "none" for ids and labels. */
function normalize (row: Row): Row {
  const out = { ...row }
  if (typeof out.grunt_type === 'string') out.grunt_type = out.grunt_type.toLowerCase()
  for (const field of ['gym_id', 'station_id', 'override_location_label']) if (out[field] === '') out[field] = null
  if (Array.isArray(out.override_areas)) {
    const areas = [...new Set(out.override_areas.map((a) => String(a).trim().toLowerCase()).filter((a) => a !== ''))]
    out.override_areas = areas.length > 0 ? areas : null
  }
  return out
}

/** What goes to the engine: no bookkeeping, and nulls only where null means "any". */
function outgoing (row: Row): Row {
  return Object.fromEntries(Object.entries(content(row)).filter(([field, value]) => value !== null || NULL_MEANS_ANY.has(field)))
}

interface Problem { field: string, message: string }
const invalid = (details: Problem[]) => badRequest('Invalid request', { details })

/** Rules across fields, checked on the complete row that will be stored. */
function check (kind: AlarmKind, row: Row): void {
  const details: Problem[] = []
  const num = (field: string) => (typeof row[field] === 'number' ? row[field] : null)
  for (const [low, high] of kind.ranges ?? []) {
    const a = num(low)
    const b = num(high)
    if (a !== null && b !== null && a > b) details.push({ field: `/${low}`, message: `must not be greater than ${high}` })
  }
  if (kind.type === 'raid' && num('pokemon_id') === 9000 && num('level') === null) {
    details.push({ field: '/level', message: 'is required for raids by level (pokemon_id 9000)' })
  }
  const label = row.override_location_label
  const areas = Array.isArray(row.override_areas) && row.override_areas.length > 0
  const distance = num('distance') ?? 0
  if (typeof label === 'string' && areas) details.push({ field: '/override_areas', message: 'cannot be combined with override_location_label' })
  if (areas && distance > 0) details.push({ field: '/distance', message: 'must be 0 when override_areas is set' })
  if (typeof label === 'string' && distance <= 0) details.push({ field: '/distance', message: 'must be greater than 0 when override_location_label is set' })
  if (details.length > 0) throw invalid(details)
}

const TAKEOVER = 'This change would overwrite another of your alarms; edit that one instead.'

/** The engine answered success but its list does not show the written alarm. */
const unstored = (kind: AlarmKind) =>
  new EngineError('invalid_response', 'The alarm engine did not store the change.', { method: 'POST', path: `/api/tracking/${kind.type}/{user}` })

const sameKey = (fields: string[], a: Row, b: Row) => fields.every((f) => canon(a[f]) === canon(b[f]))

/** One alarm's full override areas, own fence names included, to write directly (`writeOwnAreas`). */
interface OverrideAreasWrite { type: AlarmType, uid: number, areas: string[] }

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

/** Bit 1 of `clean`: delete the message when the event expires. Bit 2 (edit in place) and 4 (summary) stay as they are. */
const AUTO_DELETE = 1
export const hasAutoDelete = (row: AlarmRow) => (Number(row.clean) & AUTO_DELETE) === AUTO_DELETE

function createAlarmWriter (fastify: FastifyInstance) {
  const { engine, engineDb, alarmEvents, log, userWriteLock, userGeofences } = fastify

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

  const lists = (row: Row | undefined) => (Array.isArray(row?.override_areas) ? row.override_areas.map(String) : [])

  /**
   * Each step goes to the engine without the user's own fence names (plugins/user-geofences.ts,
   * splitOverrideAreas) and keeps its full list to write directly afterwards. A stored row holding such
   * names no longer equals anything the engine is sent, so the engine would insert beside it: where the
   * type has a unique key, the old row is deleted first (as for any insert under the same key).
   */
  async function withoutOwnFences (kind: AlarmKind, userId: string, steps: Step[]): Promise<Array<string[] | null>> {
    if (!steps.some((s) => lists(s.candidate).length > 0 || lists(s.replaces).length > 0)) return steps.map(() => null)
    const owners = await userGeofences.privateNames()
    const own = (n: string) => owners.get(n) === userId
    return steps.map((step) => {
      const list = lists(step.candidate)
      const split = splitOverrideAreas(owners, userId, list, '/override_areas')
      if (kind.uniqueKey !== undefined && step.replaces !== undefined && lists(step.replaces).some(own) &&
        sameKey(kind.uniqueKey, step.candidate, step.replaces)) step.deleteFirst = true
      if (!split.own) return null
      step.candidate = { ...step.candidate, override_areas: split.sent }
      return list
    })
  }

  /**
   * A write runs under the user's write lock (plugins/user-write-lock.ts): its read-plan-write-check
   * sequence assumes nobody else changes the user's alarms or active profile meanwhile.
   */
  const locked = <A extends unknown[], R>(write: (kind: AlarmKind, userId: string, ...rest: A) => Promise<R>) =>
    (kind: AlarmKind, userId: string, ...rest: A): Promise<R> => userWriteLock.run(userId, () => write(kind, userId, ...rest))

  const conflictFor = (kind: AlarmKind, message: string) => conflict(message, { trackingType: kind.type })

  async function list (kind: AlarmKind, userId: string): Promise<Alarm[]> {
    const rows = await engine.tracking.get(kind.type, userId)
    return rows.map(present).sort((a, b) => a.uid - b.uid)
  }

  const find = (rows: Alarm[], uid: number): Alarm => {
    const row = rows.find((r) => r.uid === uid)
    if (row === undefined) throw notFound('Alarm not found.')
    return row
  }

  /** Refuses a batch the engine would turn into duplicates or into a change of an alarm not in it (reference 5.3). */
  async function plan (kind: AlarmKind, before: Alarm[], steps: Step[]): Promise<void> {
    const rules = engineRules(kind.type, await engine.generation())
    const replaced = new Set(steps.flatMap((s) => (s.replaces ? [s.replaces.uid] : [])))
    const untouched = before.filter((r) => !replaced.has(r.uid))
    steps.forEach((step, i) => {
      const others = steps.filter((_, j) => j !== i).map((s) => s.candidate)
      if (untouched.some((r) => sameAlarm(step.candidate, r)) || others.some((c) => sameAlarm(step.candidate, c))) {
        throw conflictFor(kind, steps.length > 1
          ? 'This change would make two of your alarms identical.'
          : 'You already have an identical alarm.')
      }
      if (kind.uniqueKey !== undefined) {
        const key = kind.uniqueKey
        if (untouched.some((r) => sameKey(key, step.candidate, r)) || others.some((c) => sameKey(key, step.candidate, c))) {
          throw conflictFor(kind, `You already have an alarm with this ${key.join(' and ').replace(/_/g, ' ')}.`)
        }
      }
      // Pokemon updates name their uid and bypass the engine's comparison.
      if (kind.type === 'pokemon' && step.replaces) return
      const outcome = predict(rules, step.candidate, before)
      if (outcome.kind === 'update' && outcome.row.uid !== step.replaces?.uid) {
        throw conflictFor(kind, TAKEOVER)
      }
      if (outcome.kind === 'insert' && step.replaces && kind.uniqueKey !== undefined && sameKey(kind.uniqueKey, step.candidate, step.replaces)) {
        step.deleteFirst = true
      }
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
        const areas = lists(r)
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
        if (sent[i]?.override_areas !== r.override_areas) rewrites.push({ type: kind.type, uid: back.uid, areas: lists(r) })
        if (!explicit(r)) alarmEvents.emit('uidChanged', { userId, type: kind.type, oldUid: r.uid, newUid: back.uid })
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
      steps.forEach((s, i) => {
        const newUid = results[i]?.uid
        if (s.replaces && newUid !== undefined && newUid !== s.replaces.uid) {
          alarmEvents.emit('uidChanged', { userId, type: kind.type, oldUid: s.replaces.uid, newUid })
        }
      })
      return results
    })
  }

  /** The complete row a create body becomes, as the engine will store and compare it (see `create`). */
  function prepare (kind: AlarmKind, body: Row): { sent: Row, candidate: Row } {
    const sent = normalize({ ...kind.createDefaults, ...given(kind, body) })
    // The complete row the engine will compare and store; raids of one pokemon are stored at level 9000.
    const candidate = { ...kind.engineDefaults, ...sent }
    if (kind.type === 'raid' && candidate.pokemon_id !== 9000) candidate.level = 9000
    return { sent, candidate }
  }

  /**
   * Why the step at `i` cannot be written beside `untouched` rows and the `accepted` steps: the checks of
   * `plan`, one step at a time, so a batch refuses only its bad items.
   */
  function refusalOf (kind: AlarmKind, rules: DiffRules, before: Alarm[], untouched: Row[], accepted: Step[], step: Step): { reason: string, collision: Collision } | null {
    const others = accepted.map((s) => s.candidate)
    const met = (rows: Row[], test: (r: Row) => boolean, code: Collision['code']): Collision | null => {
      const stored = rows.find(test)
      if (stored !== undefined) return { code, uid: Number(stored.uid) }
      return others.some(test) ? { code: 'repeated', uid: null } : null
    }
    const twin = met(untouched, (r) => sameAlarm(step.candidate, r), 'present')
    if (twin !== null) return { reason: 'This change would make two of your alarms identical.', collision: twin }
    // Pokemon updates name their uid and bypass the engine's comparison.
    const outcome = kind.type === 'pokemon' && step.replaces ? null : predict(rules, step.candidate, before)
    // Checked before the unique key: the engine would rewrite that alarm, which says more than "the same key".
    if (outcome?.kind === 'update' && outcome.row.uid !== step.replaces?.uid) return { reason: TAKEOVER, collision: { code: 'takeover', uid: Number(outcome.row.uid) } }
    if (kind.uniqueKey !== undefined) {
      const key = kind.uniqueKey
      const keyed = met(untouched, (r) => sameKey(key, step.candidate, r), 'same-key')
      if (keyed !== null) return { reason: `You already have an alarm with this ${key.join(' and ').replace(/_/g, ' ')}.`, collision: keyed }
    }
    return null
  }

  /** A rule the service checks, as an item's reason: the message and the fields it names. */
  function reasonOf (err: unknown): BatchRefusal {
    if (err instanceof ERRORS.BadRequest) {
      const details = (err as { extra?: { details?: Problem[] } }).extra?.details ?? []
      return { reason: details.length > 0 ? details.map((d) => `${d.field.replace(/^\//, '')} ${d.message}`).join('; ') : err.message, details }
    }
    throw err
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
      const rules = engineRules(kind.type, await engine.generation())
      const twin = before.find((r) => sameAlarm(candidate, r))
      if (twin !== undefined) {
        // Max battles have no duplicate detection in the engine: answer as the other types do, without writing.
        if (rules.match === null) return { created: false, alarm: { ...twin, uid: 0 } }
        if (predict(rules, candidate, before).kind === 'update') throw conflictFor(kind, TAKEOVER)
      } else {
        await plan(kind, before, [{ candidate }])
      }
      const [stored] = await apply(kind, userId, before, [{ candidate: sent }])
      if (stored && !before.some((r) => r.uid === stored.uid)) return { created: true, alarm: stored }
      const existing = stored ?? twin
      if (existing === undefined) throw unstored(kind)
      return { created: false, alarm: { ...existing, uid: 0 } }
    }),

    /**
     * Creates many alarms of one type in one engine call and says, per item, whether it was created, was
     * already there, or was refused and why. Items refused by the service's own rules do not stop the others.
     * An item the engine would match to a stored alarm (the same one, or one it would rewrite: alarm-engine.md
     * 1.3) is never sent: it is a duplicate or refused, with the `collision`. With `whole`, an engine
     * failure of the write fails the call instead of refusing every item.
     */
    createMany: locked(async (kind: AlarmKind, userId: string, bodies: Row[], { whole = false } = {}): Promise<BatchCreateItem[]> => {
      const before = await list(kind, userId)
      const rules = engineRules(kind.type, await engine.generation())
      const outcomes: BatchCreateItem[] = bodies.map((_, index) => ({ index, status: 'refused' }))
      const accepted: Step[] = []
      /** The accepted steps as complete rows, to compare with later items. */
      const complete: Row[] = []
      const acceptedAt: number[] = []
      bodies.forEach((body, index) => {
        const outcome = outcomes[index] as BatchCreateItem
        const { sent, candidate } = prepare(kind, body)
        try {
          check(kind, candidate)
        } catch (err) {
          Object.assign(outcome, reasonOf(err))
          return
        }
        const twin = before.find((r) => sameAlarm(candidate, r))
        if (twin !== undefined) {
          Object.assign(outcome, { status: 'duplicate', alarm: twin, collision: { code: 'present', uid: twin.uid } })
          return
        }
        const earlier = complete.findIndex((c) => sameAlarm(candidate, c))
        if (earlier >= 0) {
          Object.assign(outcome, { status: 'duplicate', sameAs: acceptedAt[earlier], collision: { code: 'repeated', uid: null } })
          return
        }
        const refusal = refusalOf(kind, rules, before, before, complete.map((c) => ({ candidate: c })), { candidate })
        if (refusal !== null) {
          Object.assign(outcome, { ...refusal, details: [] })
          return
        }
        accepted.push({ candidate: sent })
        complete.push(candidate)
        acceptedAt.push(index)
      })
      const stored = await applyBatch(kind, userId, before, accepted, whole)
      acceptedAt.forEach((index, i) => {
        const outcome = outcomes[index] as BatchCreateItem
        if (!Array.isArray(stored)) { Object.assign(outcome, stored); return }
        const row = stored[i] ?? null
        if (row === null) Object.assign(outcome, { status: 'duplicate', collision: { code: 'present', uid: null } })
        else if (before.some((r) => r.uid === row.uid)) Object.assign(outcome, { status: 'duplicate', alarm: row, collision: { code: 'present', uid: row.uid } })
        else Object.assign(outcome, { status: 'created', alarm: row })
      })
      for (const outcome of outcomes) {
        // An item equal to an earlier one of the batch shares that one's stored row.
        if (outcome.sameAs !== undefined) {
          const first = outcomes[outcome.sameAs]
          if (first?.alarm !== undefined) outcome.alarm = first.alarm
          if (first?.status === 'refused') Object.assign(outcome, { status: 'refused', reason: first.reason, details: first.details })
          delete outcome.sameAs
        }
      }
      return outcomes
    }),

    /**
     * Applies one partial change to many alarms of one type in one engine call: each alarm keeps every
     * field the patch does not name. Per uid: updated (with its possibly new uid), unchanged, or refused.
     */
    updateMany: locked(async (kind: AlarmKind, userId: string, uids: number[], patch: Row): Promise<BulkUpdateItem[]> => {
      const before = await list(kind, userId)
      const rules = engineRules(kind.type, await engine.generation())
      const change = given(kind, patch)
      const outcomes: BulkUpdateItem[] = uids.map((uid) => ({ uid, status: 'refused' }))
      const planned: Array<{ step: Step, at: number }> = []
      uids.forEach((uid, at) => {
        const outcome = outcomes[at] as BulkUpdateItem
        const stored = before.find((r) => r.uid === uid)
        if (stored === undefined) { Object.assign(outcome, { reason: 'Alarm not found.', details: [] }); return }
        const candidate = normalize({ ...content(stored), ...change })
        try {
          check(kind, candidate)
        } catch (err) {
          Object.assign(outcome, reasonOf(err))
          return
        }
        if (differences(candidate, stored).length === 0) { Object.assign(outcome, { status: 'unchanged', alarm: stored }); return }
        planned.push({ step: { candidate, replaces: stored }, at })
      })
      // Rows no step rewrites stay as they are, and so do rows whose change is refused on the way.
      const moving = new Set(planned.map((p) => p.step.replaces?.uid))
      const accepted: Array<{ step: Step, at: number }> = []
      for (const item of planned) {
        const staying = before.filter((r) => !moving.has(r.uid))
        const refusal = refusalOf(kind, rules, before, staying, accepted.map((a) => a.step), item.step)
        if (refusal === null) { accepted.push(item); continue }
        Object.assign(outcomes[item.at] as BulkUpdateItem, { reason: refusal.reason, details: [] })
        moving.delete(item.step.replaces?.uid)
      }
      const steps = accepted.map((a) => a.step)
      // Sets `deleteFirst` where the engine would otherwise insert beside a row under the same unique key.
      if (steps.length > 0) await plan(kind, before, steps)
      const stored = await applyBatch(kind, userId, before, steps, false)
      accepted.forEach(({ at }, i) => {
        const outcome = outcomes[at] as BulkUpdateItem
        if (!Array.isArray(stored)) { Object.assign(outcome, stored); return }
        Object.assign(outcome, { status: 'updated', alarm: stored[i] as Alarm })
      })
      return outcomes
    }),

    /** Null or absent fields keep their stored values; stored columns the API does not know are sent back unchanged. */
    update: locked(async (kind: AlarmKind, userId: string, uid: number, body: Row): Promise<Alarm> => {
      const before = await list(kind, userId)
      const stored = find(before, uid)
      const candidate = normalize({ ...content(stored), ...given(kind, body) })
      check(kind, candidate)
      if (differences(candidate, stored).length === 0) return stored
      const steps: Step[] = [{ candidate, replaces: stored }]
      await plan(kind, before, steps)
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
      await plan(kind, before, steps)
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

    /**
     * Switches auto-delete on or off for every alarm of a type and registers on `undo` how to put the
     * changed alarms back. Each changed alarm is posted back with only the bit changed: the engine sees a
     * one-field change of an updatable field and updates the row in place (pokemon are addressed by uid,
     * which the engine honours for that type only). Max battles are insert-only upstream, so they are
     * deleted and created again. An alarm whose changed row the engine would match to another of the
     * user's alarms first (alarm-engine.md 1.3: that one differs in one updatable field, or equals it) is
     * left as it is: sent, it would rewrite that other alarm. Says how many alarms changed.
     */
    setAutoDelete: (type: AlarmType, userId: string, enabled: boolean, undo: Undo): Promise<number> => userWriteLock.run(userId, async () => {
      const stored = (await engine.tracking.get(type, userId)).sort((a, b) => a.uid - b.uid)
      const rules = engineRules(type, await engine.generation())
      const flipped = (body: Row): Row => {
        const clean = Number(body.clean ?? 0)
        return { ...body, clean: enabled ? clean | AUTO_DELETE : clean & ~AUTO_DELETE }
      }
      // Pokemon are addressed by uid and max battles are written anew: only the other types are matched by content.
      const matchedToItself = (row: AlarmRow): boolean => {
        if (type === 'pokemon' || rules.match === null) return true
        const outcome = predict(rules, flipped(toTransferAlarm(type, row)), stored)
        return outcome.kind === 'update' && outcome.row.uid === row.uid
      }
      const rows = stored.filter((row) => hasAutoDelete(row) !== enabled && matchedToItself(row))
      if (rows.length === 0) return 0
      const originals: Row[] = rows.map((row) => ({ ...toTransferAlarm(type, row), ...(type === 'pokemon' ? { uid: row.uid } : {}) }))
      const changed = originals.map(flipped)
      const create = (bodies: Row[]) => engine.tracking.create(type, userId, bodies, { silent: true })

      if (type !== 'maxbattle') {
        await create(changed)
        undo.push(`put back the ${type} alarms' auto-delete`, async () => { await create(originals) })
        return rows.length
      }
      await engine.tracking.bulkDelete(type, userId, rows.map((row) => row.uid), { silent: true })
      undo.push('restore the deleted max battle alarms', async () => { await create(originals) })
      const result = await create(changed)
      const newUids = result.generation === 'ng' ? result.newUids ?? [] : []
      undo.pop()
      undo.push('put back the max battle alarms\' auto-delete', async () => {
        await engine.tracking.bulkDelete(type, userId, newUids, { silent: true })
        await create(originals)
      })
      return rows.length
    })
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
