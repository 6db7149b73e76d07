import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { ALARM_TYPES, type AlarmType } from '../../schemas/alarm-types.js'
import { TRANSFER_VERSION, fromTransferAlarm, toTransferAlarm, type ProfileExport } from '../../schemas/profiles.js'
import { findProfile, geographyOf, humanGeography, sameGeography, storedActiveHours, typesIn, uniqueName } from './profiles.js'
import type { AlarmWriter, NewAlarms } from './alarm-writer.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'

interface AlarmToCopy {
  type: AlarmType
  body: Record<string, unknown>
}

/**
 * The engine drops names of user-drawn fences from override areas, so an alarm naming the user's own
 * fence is sent without them and keeps its full list for the alarm writer to write once created.
 * Another user's fence is a 400 on that alarm, before anything is written.
 */
async function withoutOwnFences (alarmWriter: AlarmWriter, userId: string, alarms: AlarmToCopy[]): Promise<NewAlarms[]> {
  const position = new Map<AlarmType, number>()
  const splits = await alarmWriter.splitOwnFences(userId, alarms.map((alarm) => {
    const index = position.get(alarm.type) ?? 0
    position.set(alarm.type, index + 1)
    const names = Array.isArray(alarm.body.override_areas) ? alarm.body.override_areas as unknown[] : []
    return { names, field: `/alarms/${alarm.type}/${index}/override_areas` }
  }))
  return alarms.map((alarm, i) => {
    const split = splits[i]
    if (split === undefined || !split.own) return { ...alarm, ownAreas: null }
    const body = { ...alarm.body }
    if (split.sent === null) delete body.override_areas
    else body.override_areas = split.sent
    return { type: alarm.type, body, ownAreas: split.names }
  })
}

/** What a duplicate or an import answers: the alarms written, the new profile, and the active one (unchanged). */
export interface CopyResult { alarmsCopied: number, newProfileNo: number, activeProfileNo: number }

/**
 * Every alarm of every profile at once, and a profile moved alarm by alarm: duplicated into a new
 * profile, exported as a file, imported from one. Writes run under the user's write lock and through the
 * alarm writer; a failure part-way deletes the new profile (profiles.createFilled).
 */
function createProfileOverview (fastify: FastifyInstance) {
  const { alarmWriter, engine, profiles, userWriteLock } = fastify

  return {
    async all (userId: string) {
      const snapshot = await engine.tracking.allProfiles(userId, { includeDescriptions: true })
      return { human: { ...snapshot.human }, profile: snapshot.profiles.map((p) => ({ ...p })), ...snapshot.alarms }
    },

    async exportOne (userId: string, profileNo: number): Promise<ProfileExport> {
      const [state, snapshot] = await Promise.all([profiles.load(userId), engine.tracking.allProfiles(userId, { includeDescriptions: false })])
      const profile = findProfile(state, profileNo)
      const alarms = Object.fromEntries(ALARM_TYPES.map((type) => [
        type,
        snapshot.alarms[type].filter((row) => Number(row.profile_no) === profileNo).map((row) => toTransferAlarm(type, row))
      ]))
      return { profileName: profile.name, version: TRANSFER_VERSION, alarms }
    },

    /** A new profile named `name` holding copies of the alarms, geography and schedule of `profileNo`. */
    async duplicate (userId: string, profileNo: number, name: string, requestLog: FastifyBaseLogger): Promise<CopyResult> {
      return await userWriteLock.run(userId, async () => {
        const [state, snapshot] = await Promise.all([profiles.load(userId), engine.tracking.allProfiles(userId, { includeDescriptions: false })])
        const source = findProfile(state, profileNo)
        await profiles.ensureAlarmTypes(typesIn(snapshot.alarms, profileNo))
        const alarms = await withoutOwnFences(alarmWriter, userId, ALARM_TYPES.flatMap((type) => snapshot.alarms[type]
          .filter((row) => Number(row.profile_no) === profileNo)
          .map((row) => ({ type, body: toTransferAlarm(type, row) }))))
        const wanted = geographyOf(source)
        const result = await profiles.createFilled(state, name, {
          activeHours: storedActiveHours(source.activeHours),
          alarms,
          ...(sameGeography(wanted, humanGeography(state.human)) ? {} : { geography: wanted })
        }, requestLog)
        return { alarmsCopied: result.copied, newProfileNo: result.profileNo, activeProfileNo: Number(state.human.current_profile_no) }
      })
    },

    /** A new profile from an exported file; its name is made unique among the user's profiles. */
    async import (userId: string, profileName: string, imported: Partial<Record<AlarmType, Array<Record<string, unknown>>>>, requestLog: FastifyBaseLogger): Promise<CopyResult> {
      return await userWriteLock.run(userId, async () => {
        const all = ALARM_TYPES.flatMap((type) => (imported[type] ?? []).map((alarm) => ({ type, body: fromTransferAlarm(alarm) })))
        await profiles.ensureAlarmTypes([...new Set(all.map((a) => a.type))])
        const alarms = await withoutOwnFences(alarmWriter, userId, all)
        const state = await profiles.load(userId)
        const name = uniqueName(state.profiles.map((p) => p.name), profileName.trim())
        const result = await profiles.createFilled(state, name, { activeHours: [], alarms }, requestLog)
        return { alarmsCopied: result.copied, newProfileNo: result.profileNo, activeProfileNo: Number(state.human.current_profile_no) }
      })
    }
  }
}

export type ProfileOverview = ReturnType<typeof createProfileOverview>

declare module 'fastify' {
  interface FastifyInstance {
    profileOverview: ProfileOverview
  }
}

export default decoratorPlugin('profile-overview', createProfileOverview, ['engine', 'user-write-lock', 'alarm-writer', 'profiles'])
