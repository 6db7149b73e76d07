import type { AlarmKind } from '../../../schemas/alarm-types.js'
import { differences, sameAlarm } from '../../../lib/alarm-diff.js'
import { check, content, given, normalize, prepare, type Alarm, type Row, type Step } from './rows.js'
import { plan, reasonOf, refusalOf, type BatchRefusal, type Collision } from './refusals.js'
import type { EngineWrites } from './engine-writes.js'

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

/**
 * The alarm writer's batch writes, many alarms of one type in one engine call, each item answered on its
 * own: the items the service or the engine would refuse are refused with their reason, the others written.
 * The caller holds the user's write lock.
 */
export function createBatches ({ list, rulesOf, applyBatch }: EngineWrites) {
  return {
    /**
     * Creates many alarms of one type in one engine call and says, per item, whether it was created, was
     * already there, or was refused and why. Items refused by the service's own rules do not stop the others.
     * An item the engine would match to a stored alarm (the same one, or one it would rewrite: alarm-engine.md
     * 1.3) is never sent: it is a duplicate or refused, with the `collision`. With `whole`, an engine
     * failure of the write fails the call instead of refusing every item.
     */
    async createMany (kind: AlarmKind, userId: string, bodies: Row[], { whole = false } = {}): Promise<BatchCreateItem[]> {
      const before = await list(kind, userId)
      const rules = await rulesOf(kind)
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
    },

    /**
     * Applies one partial change to many alarms of one type in one engine call: each alarm keeps every
     * field the patch does not name. Per uid: updated (with its possibly new uid), unchanged, or refused.
     */
    async updateMany (kind: AlarmKind, userId: string, uids: number[], patch: Row): Promise<BulkUpdateItem[]> {
      const before = await list(kind, userId)
      const rules = await rulesOf(kind)
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
      if (steps.length > 0) plan(kind, rules, before, steps)
      const stored = await applyBatch(kind, userId, before, steps, false)
      accepted.forEach(({ at }, i) => {
        const outcome = outcomes[at] as BulkUpdateItem
        if (!Array.isArray(stored)) { Object.assign(outcome, stored); return }
        Object.assign(outcome, { status: 'updated', alarm: stored[i] as Alarm })
      })
      return outcomes
    }
  }
}
