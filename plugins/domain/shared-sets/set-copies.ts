import { eq, sql } from 'drizzle-orm'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { sharedSets } from '../../../db/schema/service.js'
import { badRequest } from '../../edge/errors.js'
import { KIND_OF, type AlarmType } from '../../../schemas/alarm-types.js'
import { ALARM_FIELDS } from '../../../schemas/alarms.js'
import type { Copy, CopyResult, SharedAlarm, Unavailable, UndoCopy } from '../../../schemas/shared-sets.js'
import { Undo } from '../../../lib/undo.js'
import { findProfile } from '../profiles.js'
import type { Collision } from '../alarm-writer.js'

type Row = Record<string, unknown>
type CopyDeps = Pick<FastifyInstance, 'db' | 'engine' | 'alarmWriter' | 'profiles' | 'userWriteLock'>

/** What a copy needs of the set it copies from: the set that answers, its alarms, and what of them this site does not offer. */
export interface SetSource {
  ensureSharingOn: () => Promise<void>
  live: (token: string) => Promise<typeof sharedSets.$inferSelect>
  alarmsOf: (row: typeof sharedSets.$inferSelect) => SharedAlarm[]
  unavailableOf: (alarms: SharedAlarm[]) => Promise<Unavailable[]>
}

/** How a skipped row is told to the viewer, by the alarm writer's collision. */
const SKIP_REASON: Record<Collision['code'], CopyResult['skipped'][number]['reason']> = {
  present: 'already-have',
  takeover: 'would-change-yours',
  'same-key': 'same-key',
  repeated: 'repeated'
}

/** A set's alarm as a create body: its filters, without the type. */
export const createBody = (alarm: SharedAlarm): Row => {
  const { type: _type, ...filters } = alarm
  return Object.fromEntries(Object.entries(filters).filter(([field]) => field in ALARM_FIELDS[alarm.type]))
}

/** A set's alarms copied into a viewer's profile through the alarm writer, and such a copy taken back. */
export function createSetCopies ({ db, engine, alarmWriter, profiles, userWriteLock }: CopyDeps, { ensureSharingOn, live, alarmsOf, unavailableOf }: SetSource) {
  /**
   * Runs `work` with the user's `profileNo` active (the engine writes only to the active profile,
   * PoracleJS has no other way), switching back afterwards; `undo` takes the switch back on failure.
   */
  async function inProfile<T> (userId: string, profileNo: number, undo: Undo, work: () => Promise<T>): Promise<T> {
    const state = await profiles.load(userId)
    findProfile(state, profileNo)
    const current = Number(state.human.current_profile_no)
    if (current === profileNo) return work()
    await engine.humans.switchProfile(userId, profileNo)
    undo.push('switch back to the active profile', () => engine.humans.switchProfile(userId, current))
    const result = await work()
    // The switch-back step stays on `undo`: should this call fail, the caller's guard undoes the work in
    // the profile it went to, then tries the switch again.
    await engine.humans.switchProfile(userId, current)
    return result
  }

  return {
    /**
     * Copies the chosen alarms of a set into one of the viewer's profiles: one alarm-writer batch per type
     * (one engine write each), so exact duplicates and rows the engine would write over one of the
     * viewer's alarms are skipped, never sent. Types or areas this site does not offer are skipped with
     * their reason. Any failure takes back what the copy wrote and switches the profile back.
     */
    async copy (token: string, userId: string, body: Copy, log: FastifyBaseLogger): Promise<CopyResult> {
      await ensureSharingOn()
      const row = await live(token)
      const alarms = alarmsOf(row)
      const indexes = body.indexes ?? alarms.map((_, i) => i)
      const beyond = indexes.findIndex((i) => i >= alarms.length)
      if (beyond >= 0) throw badRequest('The set has fewer alarms.', { details: [{ field: `/indexes/${beyond}`, message: `must be below ${alarms.length}` }] })
      const unavailable = new Map((await unavailableOf(alarms)).map((u) => [u.index, u]))
      const skipped: CopyResult['skipped'] = []
      const byType = new Map<AlarmType, number[]>()
      for (const index of [...indexes].sort((a, b) => a - b)) {
        const alarm = alarms[index] as SharedAlarm
        const refusal = unavailable.get(index)
        if (refusal !== undefined) skipped.push({ index, type: alarm.type, reason: refusal.reason, message: refusal.message })
        else byType.set(alarm.type, [...byType.get(alarm.type) ?? [], index])
      }
      const added: CopyResult['added'] = []
      await userWriteLock.run(userId, async () => {
        const undo = new Undo(log)
        await undo.guard(() => inProfile(userId, body.profileNo, undo, async () => {
          for (const [type, at] of byType) {
            const outcomes = await alarmWriter.createMany(KIND_OF[type], userId, at.map((i) => createBody(alarms[i] as SharedAlarm)))
            const fresh: number[] = []
            outcomes.forEach((outcome, i) => {
              const index = at[i] as number
              if (outcome.status === 'created' && outcome.alarm !== undefined) {
                added.push({ index, type, uid: outcome.alarm.uid })
                fresh.push(outcome.alarm.uid)
              } else {
                skipped.push({ index, type, reason: outcome.collision === undefined ? 'refused' : SKIP_REASON[outcome.collision.code], message: outcome.reason ?? null })
              }
            })
            undo.push(`delete the copied ${type} alarms`, () => alarmWriter.removeExisting(type, userId, fresh))
          }
        }))
      })
      if (added.length > 0) await db.db.update(sharedSets).set({ copies: sql`${sharedSets.copies} + 1` }).where(eq(sharedSets.token, token))
      added.sort((a, b) => a.index - b.index)
      skipped.sort((a, b) => a.index - b.index)
      return {
        profileNo: body.profileNo,
        requested: indexes.length,
        added,
        skipped,
        undo: { profileNo: body.profileNo, alarms: added.map(({ type, uid }) => ({ type, uid })) }
      }
    },

    /**
     * Takes a copy back: deletes those of the named alarms that are still in the profile (one engine
     * call per type). Alarms of other profiles and alarms deleted meanwhile are left alone.
     */
    async undoCopy (userId: string, body: UndoCopy, log: FastifyBaseLogger): Promise<void> {
      const byType = new Map<AlarmType, number[]>()
      for (const { type, uid } of body.alarms) byType.set(type, [...byType.get(type) ?? [], uid])
      await userWriteLock.run(userId, async () => {
        const undo = new Undo(log)
        await undo.guard(() => inProfile(userId, body.profileNo, undo, async () => {
          for (const [type, uids] of byType) await alarmWriter.removeExisting(type, userId, uids)
        }))
      })
    }
  }
}
