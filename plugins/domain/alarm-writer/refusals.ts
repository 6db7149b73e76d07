import { ERRORS, conflict } from '../../edge/errors.js'
import { EngineError } from '../../data/engine.js'
import type { AlarmKind, DiffRules } from '../../../schemas/alarm-types.js'
import { predict, sameAlarm } from '../../../lib/alarm-diff.js'
import { sameKey, type Alarm, type Problem, type Row, type Step } from './rows.js'

/*
 * Which writes the alarm writer refuses before the engine sees them, and how a refusal reads: as a 409
 * for a single write (`plan`), or as one item's reason in a batch (`refusalOf`, `reasonOf`).
 */

/**
 * Which alarm a row would meet on the engine's duplicate check (alarm-engine.md 1.3), and how: `present`
 * the same alarm is stored, `takeover` the engine would rewrite that stored alarm with the row,
 * `same-key` the table's unique key refuses a second row, `repeated` an earlier row of the same batch.
 * `uid` is the stored alarm met (null for an earlier row of the batch).
 */
export interface Collision { code: 'present' | 'takeover' | 'same-key' | 'repeated', uid: number | null }

/** Why an item of a batch was not written: the message, and the fields it names when a rule of the service refused it. */
export interface BatchRefusal { reason: string, details: Problem[] }

export const TAKEOVER = 'This change would overwrite another of your alarms; edit that one instead.'

export const conflictFor = (kind: AlarmKind, message: string) => conflict(message, { trackingType: kind.type })

/** The engine answered success but its list does not show the written alarm. */
export const unstored = (kind: AlarmKind) =>
  new EngineError('invalid_response', 'The alarm engine did not store the change.', { method: 'POST', path: `/api/tracking/${kind.type}/{user}` })

const keyWords = (key: string[]) => `You already have an alarm with this ${key.join(' and ').replace(/_/g, ' ')}.`

/**
 * Refuses a batch the engine would turn into duplicates or into a change of an alarm not in it (reference
 * 5.3), and marks the steps whose old row must go first (`deleteFirst`). `rules` are the engine's.
 */
export function plan (kind: AlarmKind, rules: DiffRules, before: Alarm[], steps: Step[]): void {
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
        throw conflictFor(kind, keyWords(key))
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
 * Why `step` cannot be written beside `untouched` rows and the `accepted` steps: the checks of `plan`,
 * one step at a time, so a batch refuses only its bad items.
 */
export function refusalOf (kind: AlarmKind, rules: DiffRules, before: Alarm[], untouched: Row[], accepted: Step[], step: Step): { reason: string, collision: Collision } | null {
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
    if (keyed !== null) return { reason: keyWords(key), collision: keyed }
  }
  return null
}

/** A rule the service checks, as an item's reason: the message and the fields it names. */
export function reasonOf (err: unknown): BatchRefusal {
  if (err instanceof ERRORS.BadRequest) {
    const details = (err as { extra?: { details?: Problem[] } }).extra?.details ?? []
    return { reason: details.length > 0 ? details.map((d) => `${d.field.replace(/^\//, '')} ${d.message}`).join('; ') : err.message, details }
  }
  throw err
}
