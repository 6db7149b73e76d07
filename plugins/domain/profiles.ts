import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { ERRORS, conflict, notFound, notSupported } from '../edge/errors.js'
import { parseAreaText } from './area-selection.js'
import type { AlarmRow, EngineHuman, EngineProfile } from '../data/engine.js'
import type { NewAlarms } from './alarm-writer.js'
import { DEFAULT_MAX_PROFILES, MAX_PROFILES_KEY } from '../data/site-settings.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { Undo } from '../../lib/undo.js'
import { ALARM_DISABLE_KEYS, NG_ONLY_ALARM_TYPES, type AlarmType } from '../../schemas/alarm-types.js'
import { parseActiveHours, type ActiveHour, type Profile } from '../../schemas/profiles.js'

/** The alarm types that have at least one alarm in the profile. */
export function typesIn (alarms: Record<AlarmType, AlarmRow[]>, profileNo: number): AlarmType[] {
  return (Object.keys(alarms) as AlarmType[]).filter((type) => alarms[type].some((row) => Number(row.profile_no) === profileNo))
}

/** Stored active hours as rules; PoracleJS stores `{}` for "none", and anything unreadable counts as none. */
export function storedActiveHours (text: string): ActiveHour[] {
  try {
    return parseActiveHours(text)
  } catch {
    return []
  }
}

function toProfile (row: EngineProfile, currentNo: number): Profile {
  return {
    id: row.id,
    profileNo: Number(row.profile_no),
    name: row.name,
    area: row.area ?? '[]',
    latitude: Number(row.latitude),
    longitude: Number(row.longitude),
    active: Number(row.profile_no) === currentNo,
    // PoracleJS stores `{}` for "no schedule" (it cannot store what it was given on add).
    activeHours: row.active_hours === undefined || row.active_hours === null || row.active_hours === '{}' ? '[]' : row.active_hours
  }
}

export interface ProfileState {
  human: EngineHuman
  rows: EngineProfile[]
  /** The rows as the client sees them, plus the synthetic entry when the active number has no row. */
  profiles: Profile[]
}

export function findProfile (state: ProfileState, profileNo: number): Profile {
  const profile = state.profiles.find((p) => p.profileNo === profileNo)
  if (profile === undefined) throw notFound('Profile not found.')
  return profile
}

/** The lowest number without a row: the one the engine gives the next profile it adds. */
const lowestFree = (rows: EngineProfile[]) => {
  const taken = new Set(rows.map((r) => Number(r.profile_no)))
  let n = 1
  while (taken.has(n)) n++
  return n
}

/**
 * Refuses a name another of the user's profiles has (letter case aside): the profile switcher, the
 * overview and the engine's bot commands tell profiles apart by name, so two "Home (copy)" would be
 * indistinguishable. `except` is the profile being renamed, which may keep its own name.
 */
export function ensureNameFree (state: ProfileState, name: string, except?: number): void {
  const wanted = name.trim().toLowerCase()
  const taken = state.profiles.find((p) => p.profileNo !== except && p.name.trim().toLowerCase() === wanted)
  if (taken !== undefined) {
    throw conflict(`You already have a profile named "${taken.name}". Choose another name.`, {
      reason: 'profile_name_taken',
      details: [{ field: '/name', message: 'is already the name of another profile' }]
    })
  }
}

/** `name`, or `name (2)`, `name (3)`, ... whichever is not taken yet. */
export function uniqueName (taken: string[], name: string): string {
  const names = new Set(taken.map((n) => n.toLowerCase()))
  if (!names.has(name.toLowerCase())) return name
  for (let n = 2; ; n++) {
    const suffix = ` (${n})`
    // profiles.name is varchar(255): shorten the name rather than the number.
    const candidate = name.slice(0, 255 - suffix.length) + suffix
    if (!names.has(candidate.toLowerCase())) return candidate
  }
}

export interface Geography {
  area: string[]
  latitude: number
  longitude: number
}

export const geographyOf = (profile: Profile): Geography => ({ area: parseAreaText(profile.area), latitude: profile.latitude, longitude: profile.longitude })

/** What the engine copies into a profile it adds: the human's (that is, the active profile's) geography. */
export const humanGeography = (human: EngineHuman): Geography => ({ area: parseAreaText(human.area), latitude: Number(human.latitude), longitude: Number(human.longitude) })

export function sameGeography (a: Geography, b: Geography): boolean {
  const areas = (g: Geography) => JSON.stringify([...g.area].map((n) => n.toLowerCase()).sort())
  return areas(a) === areas(b) && a.latitude === b.latitude && a.longitude === b.longitude
}

function createProfiles (fastify: FastifyInstance) {
  const { engine, engineDb, featureGates, areaSelection, alarmWriter, siteSettings, userWriteLock, log } = fastify

  /** Refuses a profile past the site's cap (`max_profiles_per_user`, DEFAULT_MAX_PROFILES unset). */
  async function ensureRoomForOneMore (state: ProfileState): Promise<void> {
    const cap = Number(await siteSettings.get(MAX_PROFILES_KEY) ?? DEFAULT_MAX_PROFILES)
    if (state.profiles.length >= cap) {
      throw conflict(`You have ${state.profiles.length} profiles, the most this site allows (${cap}). Delete one to make room.`, { reason: 'profile_limit_reached', limit: cap })
    }
  }

  /**
   * Adds a profile and learns its number by comparing the list before and after (the engine takes the
   * lowest free number and does not say which). When the active profile is PoracleJS's implicit profile
   * without a row and would be the number taken, it gets its row first, so the new profile does not
   * swallow the alarms of the implicit one. Active hours go through `update` because PoracleJS ignores
   * them on `add`.
   */
  async function create (state: ProfileState, name: string, activeHours: ActiveHour[]): Promise<number> {
    ensureNameFree(state, name)
    await ensureRoomForOneMore(state)
    const userId = state.human.id
    const current = Number(state.human.current_profile_no)
    let before = state.rows
    if (!before.some((r) => Number(r.profile_no) === current) && lowestFree(before) === current) {
      await engine.profiles.add(userId, { name: 'Default' })
      before = await engine.profiles.list(userId)
    }
    await engine.profiles.add(userId, { name })
    const after = await engine.profiles.list(userId)
    const known = new Set(before.map((r) => Number(r.profile_no)))
    const added = after.filter((r) => !known.has(Number(r.profile_no)))
    // A bot command of the same user may have added one at the same moment: prefer the one with our name.
    const mine = added.find((r) => r.name === name) ?? added[0]
    if (mine === undefined) throw new ERRORS.ProfileNotCreated()
    const profileNo = Number(mine.profile_no)
    if (activeHours.length > 0) {
      try {
        await engine.profiles.update(userId, { profile_no: profileNo, active_hours: activeHours })
      } catch (err) {
        await engine.profiles.delete(userId, profileNo).catch((undoErr: unknown) => log.error({ err: undoErr, profileNo }, 'could not remove a half-created profile'))
        throw err
      }
    }
    return profileNo
  }

  /**
   * Writes areas and location to the active profile through the engine (which mirrors both into the
   * human): the engine has no call that sets another profile's geography.
   */
  async function writeGeography (userId: string, geography: Geography): Promise<void> {
    await areaSelection.write(userId, geography.area)
    await engine.humans.setLocation(userId, geography.latitude, geography.longitude)
  }

  /**
   * The user's profiles and, read fresh, the active number: the engine's scheduler and bot commands change
   * it behind the service's back. PoracleJS users registered by a bot have no row for their implicit
   * profile 1 until one is added, so the active number is shown as a synthetic "Default" entry.
   */
  async function load (userId: string): Promise<ProfileState> {
    const [human, rows] = await Promise.all([engine.humans.one(userId), engine.profiles.list(userId)])
    const current = Number(human.current_profile_no)
    const profiles = rows.map((row) => toProfile(row, current))
    if (!profiles.some((p) => p.profileNo === current)) {
      profiles.push({ id: userId, profileNo: current, name: 'Default', area: human.area ?? '[]', latitude: Number(human.latitude), longitude: Number(human.longitude), active: true, activeHours: '[]' })
    }
    return { human, rows, profiles }
  }

  /**
   * Deletes a profile (the engine removes its alarms too). PoracleJS compares the path value with `===`
   * to a number and so never moves the user off a deleted active profile; whenever the active number
   * has no row afterwards, the user is switched to the lowest remaining profile, as PoracleNG does itself.
   */
  async function deleteProfile (userId: string, profileNo: number): Promise<void> {
    await engine.profiles.delete(userId, profileNo)
    const [human, rows] = await Promise.all([engine.humans.one(userId), engine.profiles.list(userId)])
    const remaining = rows.map((r) => Number(r.profile_no)).sort((a, b) => a - b)
    const first = remaining[0]
    if (first !== undefined && !remaining.includes(Number(human.current_profile_no))) {
      await engine.humans.switchProfile(userId, first)
    }
  }

  /** Refuses a type the site or the engine has switched off (403 naming the switch, 501 for the engine), before any write. */
  async function ensureAlarmTypes (types: AlarmType[]): Promise<void> {
    if (types.some((t) => NG_ONLY_ALARM_TYPES.has(t)) && await engine.generation() === 'js') {
      throw notSupported('Fort change and max battle alarms are not supported by this alarm engine (PoracleJS).')
    }
    for (const key of new Set(types.map((t) => ALARM_DISABLE_KEYS[t]))) await featureGates.ensure(key)
  }

  return {
    create,
    writeGeography,
    ensureAlarmTypes,
    load,
    delete: deleteProfile,

    /** A member's new, empty profile, as listed. */
    async add (userId: string, name: string, activeHours: ActiveHour[]): Promise<Profile> {
      return await userWriteLock.run(userId, async () => {
        const profileNo = await create(await load(userId), name, activeHours)
        return findProfile(await load(userId), profileNo)
      })
    },

    /** Makes `profileNo` the active profile; answers it as listed, active. */
    async switchTo (userId: string, profileNo: number): Promise<Profile> {
      return await userWriteLock.run(userId, async () => {
        const state = await load(userId)
        const profile = findProfile(state, profileNo)
        // Without a row it is the synthetic entry of a PoracleJS user's implicit profile: active already, and
        // the engine would not find it.
        if (state.rows.some((r) => Number(r.profile_no) === profileNo)) await engine.humans.switchProfile(userId, profileNo)
        return { ...profile, active: true }
      })
    },

    /**
     * Renames and/or reschedules a profile. The engine cannot rename: the name is written to its database
     * and the engine told to reload; a schedule that then fails takes the name back.
     */
    async change (userId: string, profileNo: number, changes: { name?: string, activeHours?: ActiveHour[] }, requestLog: FastifyBaseLogger): Promise<Profile> {
      return await userWriteLock.run(userId, async () => {
        const { name, activeHours } = changes
        const state = await load(userId)
        const row = state.rows.find((r) => Number(r.profile_no) === profileNo)
        if (row === undefined) throw notFound('Profile not found.')
        if (name !== undefined) ensureNameFree(state, name, profileNo)
        const undo = new Undo(requestLog)
        await undo.guard(async () => {
          if (name !== undefined && name !== row.name) {
            const rename = (to: string) => engineDb.renameProfile(userId, profileNo, to)
            await rename(name)
            undo.push('restore the profile name', async () => { await rename(row.name); await engine.reload() })
            await engine.reload()
          }
          if (activeHours !== undefined) await engine.profiles.update(userId, { profile_no: profileNo, active_hours: activeHours })
        })
        return findProfile(await load(userId), profileNo)
      })
    },

    /** Deletes one of the member's profiles, never the last one (the engine would keep it and say it had not). */
    async remove (userId: string, profileNo: number): Promise<void> {
      await userWriteLock.run(userId, async () => {
        const state = await load(userId)
        if (!state.rows.some((r) => Number(r.profile_no) === profileNo)) throw notFound('Profile not found.')
        if (state.rows.length === 1) throw conflict('The last profile cannot be deleted.')
        await deleteProfile(userId, profileNo)
      })
    },

    /**
     * A new profile with the alarms of `fromProfileNo`, through the engine's copy call. The engine gives the
     * new profile the active profile's areas and location; the source's are written to it instead.
     */
    async duplicate (userId: string, fromProfileNo: number, name: string, requestLog: FastifyBaseLogger): Promise<Profile> {
      return await userWriteLock.run(userId, async () => {
        const state = await load(userId)
        const source = findProfile(state, fromProfileNo)
        const snapshot = await engine.tracking.allProfiles(userId)
        await ensureAlarmTypes(typesIn(snapshot.alarms, fromProfileNo))
        const current = Number(state.human.current_profile_no)
        const undo = new Undo(requestLog)
        const profileNo = await undo.guard(async () => {
          const created = await create(state, name, storedActiveHours(source.activeHours))
          undo.push('delete the new profile', () => engine.profiles.delete(userId, created))
          await engine.profiles.copy(userId, fromProfileNo, created)
          const wanted = geographyOf(source)
          if (!sameGeography(wanted, humanGeography(state.human))) {
            await engine.humans.switchProfile(userId, created)
            undo.push('switch back to the active profile', () => engine.humans.switchProfile(userId, current))
            await writeGeography(userId, wanted)
            await engine.humans.switchProfile(userId, current)
            undo.pop()
          }
          return created
        })
        return findProfile(await load(userId), profileNo)
      })
    },

    /**
     * Creates a profile and fills it with `alarms` through the alarm writer, one engine create call per
     * alarm: the engine writes alarms only to the active profile (PoracleJS has no other way), so the user
     * is switched to the new profile for the copy and back afterwards. Any failure deletes the new
     * profile and switches back. Returns the new number and how many alarms were written.
     */
    async createFilled (state: ProfileState, name: string, opts: { activeHours: ActiveHour[], alarms: NewAlarms[], geography?: Geography }, requestLog: FastifyBaseLogger): Promise<{ profileNo: number, copied: number }> {
      const userId = state.human.id
      const current = Number(state.human.current_profile_no)
      const undo = new Undo(requestLog)
      return undo.guard(async () => {
        const profileNo = await create(state, name, opts.activeHours)
        undo.push('delete the new profile', () => engine.profiles.delete(userId, profileNo))
        await engine.humans.switchProfile(userId, profileNo)
        undo.push('switch back to the active profile', () => engine.humans.switchProfile(userId, current))
        if (opts.geography !== undefined) await writeGeography(userId, opts.geography)
        await alarmWriter.insert(userId, opts.alarms)
        await engine.humans.switchProfile(userId, current)
        undo.pop()
        return { profileNo, copied: opts.alarms.length }
      })
    }
  }
}

export type Profiles = ReturnType<typeof createProfiles>

declare module 'fastify' {
  interface FastifyInstance {
    profiles: Profiles
  }
}

/** The user's alarm profiles over the engine: reading, adding (empty or filled), deleting, their geography. */
export default decoratorPlugin('profiles', createProfiles, ['engine', 'engine-db', 'user-write-lock', 'site-settings', 'feature-gates', 'area-selection', 'alarm-writer'])
