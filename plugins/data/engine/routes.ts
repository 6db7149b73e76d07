import { ALARM_TYPES, KIND_OF, NG_ONLY_ALARM_TYPES, type AlarmType } from '../../../schemas/alarm-types.js'
import type { ActiveHour } from '../../../schemas/profiles.js'
import type { FastifyBaseLogger } from 'fastify'
import { siteRoutes } from './site-routes.js'
import { createTransport, isObject, num, pathOf, strings, text, type EngineClientOptions, type Json, type Segment } from './transport.js'
import {
  EngineError, type AlarmInput, type AlarmRow, type EngineArea, type EngineHuman, type EngineProfile, type HumanInput,
  type ProfileInput, type SummarySchedule, type TrackingSnapshot, type TrackingWriteResult
} from './types.js'

/**
 * The engine's route table (PoracleNG 5.x, and PoracleJS 4.8 where its API allows): one typed method per
 * engine route the service uses (alarm-engine.md section 1), over the transport: a member's alarms, the
 * member, profiles and summaries here, the site-wide routes in site-routes.ts.
 */

/** How `orFallback` answers and reports an engine failure. */
export interface FallbackOptions<T> {
  /** The request's logger in a handler, else the app's. */
  log: Pick<FastifyBaseLogger, 'warn'>
  /** The warning, saying what is answered instead. */
  message: string
  fallback: T
  /** Any error falls back, not only the engine's: for reads that fail open whatever broke (kind "unknown"). */
  anyError?: boolean
  /** More fields for the log line. */
  context?: Record<string, unknown>
}

/** `uid: 0` would make PoracleNG update row 0 (nothing); `profile_no` would be taken at face value. */
function cleanAlarm (row: AlarmInput): AlarmInput {
  const { profile_no: _profileNo, uid, ...rest } = row
  return uid === undefined || uid === null || uid === 0 || uid === '0' ? rest : { ...rest, uid }
}

/**
 * "The engine failed: log it and answer this": runs `work`; when it fails with an EngineError (or with
 * anything, for `anyError`), logs `message` as a warning with the error's kind and path and answers
 * `fallback`. Other errors are thrown. The one place a read degrades instead of failing.
 */
export async function orFallback<T> (work: () => Promise<T>, { log, message, fallback, anyError = false, context = {} }: FallbackOptions<T>): Promise<T> {
  try {
    return await work()
  } catch (err) {
    if (err instanceof EngineError) log.warn({ ...context, kind: err.kind, path: err.details.path }, message)
    else if (anyError) log.warn({ ...context, kind: 'unknown' }, message)
    else throw err
    return fallback
  }
}

export function createEngineClient (options: EngineClientOptions) {
  const transport = createTransport(options)
  const { call, object, invalid, health, generation, requireNg, withBudget, close } = transport
  const { config, geofence, masterdata, dts, test, reload } = siteRoutes(transport)

  /** PoracleJS ignores `?profile_no=` and always uses the active profile: refuse rather than touch the wrong one. */
  async function requireActiveProfileOnJs (userId: string, profileNo: number | undefined, method: string, segments: Segment[]): Promise<void> {
    if (profileNo === undefined || await generation() !== 'js') return
    const human = await humans.one(userId)
    if (human.current_profile_no !== profileNo) {
      throw new EngineError('unsupported', 'PoracleJS only reads and writes the alarms of the active profile.', { method, path: pathOf(segments) })
    }
  }

  async function trackingRoute (type: AlarmType, method: string, segments: Segment[]): Promise<void> {
    if (NG_ONLY_ALARM_TYPES.has(type)) await requireNg(method, segments)
  }

  function rows (value: unknown): AlarmRow[] {
    // PoracleNG sends null instead of an empty list in some answers.
    return Array.isArray(value) ? value.filter(isObject) as AlarmRow[] : []
  }

  function toHuman (value: unknown, method: string, segments: Segment[]): EngineHuman {
    if (!isObject(value) || typeof value.id !== 'string') throw invalid(method, segments, 'no human')
    return value as unknown as EngineHuman
  }

  function snapshot (answer: Json, segments: Segment[]): TrackingSnapshot {
    const alarms = Object.fromEntries(ALARM_TYPES.map((type) => [type, rows(answer[KIND_OF[type].engineName])])) as Record<AlarmType, AlarmRow[]>
    return { human: toHuman(answer.human, 'GET', segments), alarms }
  }

  const tracking = {
    /** The user's alarms of one type, of the active profile unless `profileNo` is given (PoracleNG only). */
    async get (type: AlarmType, userId: string, opts: { profileNo?: number } = {}): Promise<AlarmRow[]> {
      const segments = ['api', 'tracking', KIND_OF[type].engineName, userId]
      await trackingRoute(type, 'GET', segments)
      await requireActiveProfileOnJs(userId, opts.profileNo, 'GET', segments)
      const answer = await object(segments, { query: { profile_no: opts.profileNo } })
      return rows(answer[type])
    },

    /**
     * Creates or updates alarms (alarm-engine.md 1.3: the engine compares each row with the profile's
     * rows and reports already present, updated and inserted ones). `uid` 0 or null and `profile_no` are
     * removed from every row; `silent` suppresses the engine's confirmation message (PoracleNG only).
     */
    async create (type: AlarmType, userId: string, input: AlarmInput | AlarmInput[], opts: { silent: boolean, profileNo?: number }): Promise<TrackingWriteResult> {
      const segments = ['api', 'tracking', KIND_OF[type].engineName, userId]
      await trackingRoute(type, 'POST', segments)
      await requireActiveProfileOnJs(userId, opts.profileNo, 'POST', segments)
      const body = Array.isArray(input) ? input.map(cleanAlarm) : cleanAlarm(input)
      const answer = await object(segments, {
        method: 'POST',
        body,
        query: { silent: opts.silent ? 'true' : undefined, profile_no: opts.profileNo },
        jsRejectsWith500: true
      })
      const message = text(answer.message) ?? ''
      if (!('newUids' in answer) && !('insert' in answer)) return { generation: 'js', message }
      return {
        generation: 'ng',
        message,
        newUids: Array.isArray(answer.newUids) ? answer.newUids.map(Number) : null,
        alreadyPresent: num(answer.alreadyPresent) ?? 0,
        updates: num(answer.updates) ?? 0,
        insert: num(answer.insert) ?? 0
      }
    },

    /** Deletes one alarm of the user (any profile; a uid that does not exist is not an error). */
    async deleteByUid (type: AlarmType, userId: string, uid: number, opts: { silent: boolean }): Promise<void> {
      const segments = ['api', 'tracking', KIND_OF[type].engineName, userId, 'byUid', uid]
      await trackingRoute(type, 'DELETE', segments)
      await call(segments, { method: 'DELETE', query: { silent: opts.silent ? 'true' : undefined } })
    },

    async bulkDelete (type: AlarmType, userId: string, uids: number[], opts: { silent: boolean }): Promise<void> {
      if (uids.length === 0) return
      const segments = ['api', 'tracking', KIND_OF[type].engineName, userId, 'delete']
      await trackingRoute(type, 'POST', segments)
      await call(segments, { method: 'POST', body: uids, query: { silent: opts.silent ? 'true' : undefined } })
    },

    /** The human and every alarm of one profile (the active one unless `profileNo`, PoracleNG only). */
    async all (userId: string, opts: { profileNo?: number, includeDescriptions?: boolean } = {}): Promise<TrackingSnapshot> {
      const segments = ['api', 'tracking', 'all', userId]
      await requireActiveProfileOnJs(userId, opts.profileNo, 'GET', segments)
      const answer = await object(segments, { query: { profile_no: opts.profileNo, includeDescriptions: opts.includeDescriptions } })
      return snapshot(answer, segments)
    },

    /** The human, every alarm of every profile (rows carry `profile_no`) and the profiles. */
    async allProfiles (userId: string, opts: { includeDescriptions?: boolean } = {}): Promise<TrackingSnapshot & { profiles: EngineProfile[] }> {
      const segments = ['api', 'tracking', 'allProfiles', userId]
      const answer = await object(segments, { query: { includeDescriptions: opts.includeDescriptions } })
      return { ...snapshot(answer, segments), profiles: Array.isArray(answer.profile) ? answer.profile.filter(isObject) as unknown as EngineProfile[] : [] }
    },

    /** PoracleJS: reload its monster cache after direct SQL writes to `monsters`; PoracleNG: reload all tracking state. */
    async refresh (): Promise<void> {
      await call(['api', 'tracking', 'pokemon', 'refresh'])
    }
  }

  const humans = {
    /** The full human row; a user the engine does not know is a `not_found` EngineError (a 404 for the caller). */
    async one (userId: string, opts: { timeoutMs?: number } = {}): Promise<EngineHuman> {
      const segments = ['api', 'humans', 'one', userId]
      return toHuman((await object(segments, opts)).human, 'GET', segments)
    },

    /** The full human row, or null for a user the engine does not know; other failures still throw. */
    async find (userId: string, opts: { timeoutMs?: number } = {}): Promise<EngineHuman | null> {
      try {
        return await humans.one(userId, opts)
      } catch (error) {
        if (error instanceof EngineError && error.kind === 'not_found') return null
        throw error
      }
    },

    /** The areas the user may choose (not the user's selection, which is `one().area`). */
    async areas (userId: string): Promise<EngineArea[]> {
      const answer = await object(['api', 'humans', userId])
      return Array.isArray(answer.areas) ? answer.areas.filter(isObject) as unknown as EngineArea[] : []
    },

    /** Registers a user with profile 1 (PoracleNG only); an existing id is a `conflict`. */
    async create (input: HumanInput): Promise<EngineHuman> {
      const segments = ['api', 'humans']
      await requireNg('POST', segments)
      const { area, ...rest } = input
      const answer = await object(segments, { method: 'POST', body: area === undefined ? rest : { ...rest, area: JSON.stringify(area) } })
      return toHuman(answer.human, 'POST', segments)
    },

    async start (userId: string): Promise<void> {
      await call(['api', 'humans', userId, 'start'], { method: 'POST' })
    },

    async stop (userId: string): Promise<void> {
      await call(['api', 'humans', userId, 'stop'], { method: 'POST' })
    },

    /** Sets only the `admin_disable` flag (PoracleNG only). */
    async adminDisabled (userId: string, state: boolean): Promise<void> {
      const segments = ['api', 'humans', userId, 'adminDisabled']
      await requireNg('POST', segments)
      await call(segments, { method: 'POST', body: { state } })
    },

    /** Makes a profile active; the engine copies its areas and location into the human. */
    async switchProfile (userId: string, profileNo: number): Promise<void> {
      await call(['api', 'humans', userId, 'switchProfile', profileNo], { method: 'POST' })
    },

    /** Writes the location to the human and its active profile; outside permitted areas is `forbidden`. */
    async setLocation (userId: string, latitude: number, longitude: number): Promise<void> {
      await call(['api', 'humans', userId, 'setLocation', latitude, longitude], { method: 'POST' })
    },

    async checkLocation (userId: string, latitude: number, longitude: number): Promise<boolean> {
      const answer = await object(['api', 'humans', userId, 'checkLocation', latitude, longitude])
      return answer.locationOk === true
    },

    /** Sets the user's areas (human and active profile); returns what the engine kept, as it drops unknown or not permitted names silently. */
    async setAreas (userId: string, areas: string[]): Promise<string[]> {
      const answer = await object(['api', 'humans', userId, 'setAreas'], { method: 'POST', body: areas })
      return strings(answer.setAreas)
    },

    /** Delegated administration (channels, webhooks, users) the engine grants this user. */
    async administrationRoles (userId: string): Promise<Json> {
      const answer = await object(['api', 'humans', userId, 'getAdministrationRoles'])
      return isObject(answer.admin) ? answer.admin : {}
    }
  }

  const profiles = {
    async list (userId: string): Promise<EngineProfile[]> {
      const answer = await call(['api', 'profiles', userId])
      const list = Array.isArray(answer) ? answer : isObject(answer) && Array.isArray(answer.profile) ? answer.profile : []
      return list.filter(isObject) as unknown as EngineProfile[]
    },

    /** Adds profiles at the lowest free numbers, copying the human's areas and location; the numbers are not returned. */
    async add (userId: string, input: ProfileInput | ProfileInput[]): Promise<void> {
      await call(['api', 'profiles', userId, 'add'], { method: 'POST', body: input, jsRejectsWith500: true })
    },

    /** Changes active hours (the only field the engine updates). Arrays are sent as arrays: PoracleJS double-encodes strings. */
    async update (userId: string, input: { profile_no: number, active_hours: ActiveHour[] } | Array<{ profile_no: number, active_hours: ActiveHour[] }>): Promise<void> {
      await call(['api', 'profiles', userId, 'update'], { method: 'POST', body: input, jsRejectsWith500: true })
    },

    /** Replaces every alarm of profile `to` with copies (new uids) of profile `from`. */
    async copy (userId: string, from: number, to: number): Promise<void> {
      await call(['api', 'profiles', userId, 'copy', from, to], { method: 'POST' })
    },

    /** Deletes a profile and its alarms. PoracleJS leaves `current_profile_no` on the deleted profile: switch afterwards. */
    async delete (userId: string, profileNo: number): Promise<void> {
      await call(['api', 'profiles', userId, 'byProfileNo', profileNo], { method: 'DELETE' })
    }
  }

  const summaries = {
    async list (userId: string): Promise<SummarySchedule[]> {
      const segments = ['api', 'summaries', userId]
      await requireNg('GET', segments)
      const answer = await object(segments)
      return Array.isArray(answer.schedules) ? answer.schedules.filter(isObject) as unknown as SummarySchedule[] : []
    },

    /** One schedule, or null when the user has none of that type. */
    async get (userId: string, alertType: string): Promise<SummarySchedule | null> {
      const segments = ['api', 'summaries', userId, alertType]
      await requireNg('GET', segments)
      try {
        const answer = await object(segments)
        return isObject(answer.schedule) ? answer.schedule as unknown as SummarySchedule : null
      } catch (err) {
        if (err instanceof EngineError && err.kind === 'not_found' && /schedule/i.test(err.details.engineMessage ?? '')) return null
        throw err
      }
    },

    async set (userId: string, alertType: string, activeHours: ActiveHour[]): Promise<void> {
      const segments = ['api', 'summaries', userId, alertType]
      await requireNg('POST', segments)
      await call(segments, { method: 'POST', body: { active_hours: activeHours } })
    },

    async delete (userId: string, alertType: string): Promise<void> {
      const segments = ['api', 'summaries', userId, alertType]
      await requireNg('DELETE', segments)
      await call(segments, { method: 'DELETE' })
    },

    /** Sends the buffered summary now. */
    async trigger (userId: string, alertType: string): Promise<void> {
      const segments = ['api', 'summaries', userId, alertType, 'trigger']
      await requireNg('POST', segments)
      await call(segments, { method: 'POST' })
    }
  }

  return { generation, health, tracking, humans, profiles, config, summaries, geofence, masterdata, dts, test, reload, orFallback, withBudget, close }
}

export type EngineClient = ReturnType<typeof createEngineClient>
