import fp from 'fastify-plugin'
import { Agent, request } from 'undici'
import type { FastifyBaseLogger } from 'fastify'
import { AppError } from './errors.js'
import type { ActiveHour } from '../schemas/profiles.js'
import { ALARM_TYPES, KIND_OF, NG_ONLY_ALARM_TYPES, type AlarmType, type EngineGeneration } from '../schemas/alarm-types.js'

/**
 * The alarm engine client (PoracleNG 5.x, and PoracleJS 4.8 where its API allows): one typed method per
 * engine route the service uses (alarm-engine.md section 1). Every call carries the shared secret and a
 * timeout, percent-encodes each path segment (webhook user ids are URLs), and checks both the HTTP status
 * and the body's `status` field, because PoracleJS reports most errors with HTTP 200.
 */

export type EngineErrorKind =
  | 'unreachable' | 'timeout' | 'not_found' | 'bad_request' | 'forbidden' | 'conflict'
  | 'unavailable' | 'unsupported' | 'auth' | 'invalid_response' | 'failed'

const STATUS_OF: Record<EngineErrorKind, number> = {
  unreachable: 500,
  timeout: 500,
  not_found: 404,
  bad_request: 400,
  forbidden: 403,
  conflict: 409,
  unavailable: 503,
  unsupported: 501,
  auth: 500,
  invalid_response: 500,
  failed: 500
}

/** 5xx kinds whose message helps the user and reveals nothing; the others get the generic 5xx text. */
const EXPOSED_5XX = new Set<EngineErrorKind>(['unreachable', 'timeout', 'unavailable', 'unsupported'])

export interface EngineErrorDetails {
  method: string
  /** The request path (percent-encoded), with webhook ids shown as `{webhook}`: safe to log. */
  path: string
  /** The engine's HTTP status, when it answered. */
  status?: number
  /** The engine's own error text, when it gave one. */
  engineMessage?: string
}

/**
 * Any failed engine call. `kind` says what went wrong; the HTTP status follows from it: unreachable or
 * timed out 500 (the spec's "alarm operations fail with 500"), user or profile gone 404, rejected input
 * 400, collision 409, a temporarily unavailable feature 503, a route this engine lacks 501, and a wrong
 * secret or an unreadable answer 500 without details.
 */
export class EngineError extends AppError {
  constructor (readonly kind: EngineErrorKind, message: string, readonly details: EngineErrorDetails) {
    super(STATUS_OF[kind], message, {}, STATUS_OF[kind] < 500 || EXPOSED_5XX.has(kind))
    this.name = 'EngineError'
  }
}

/** A tracking row as the engine stores it (snake_case columns), plus `description` when asked for. */
export interface AlarmRow {
  uid: number
  id: string
  profile_no: number
  description?: string
  [field: string]: unknown
}

/** A tracking row to write, in the engine's field names. `uid` (pokemon only) asks for an update of that row. */
export type AlarmInput = Record<string, unknown>

/** The result of a tracking write. Only PoracleNG reports counts and uids; PoracleJS sends only its message. */
export type TrackingWriteResult =
  | {
      generation: 'ng'
      message: string
      /** Inserted uids, then the uids of updated rows (new ones for every type except pokemon); null when nothing was written. */
      newUids: number[] | null
      alreadyPresent: number
      updates: number
      insert: number
    }
  | { generation: 'js', message: string }

export interface EngineHuman {
  id: string
  type: string
  name: string
  enabled: number
  /** JSON text array of lower-case area names. */
  area: string
  latitude: number
  longitude: number
  fails: number
  last_checked: string | null
  language: string | null
  admin_disable: number
  disabled_date: string | null
  current_profile_no: number
  /** JSON text array. */
  community_membership: string
  /** JSON text array or null. */
  area_restriction: string | null
  notes: string
  blocked_alerts: string | null
}

export interface EngineProfile {
  uid: number
  id: string
  profile_no: number
  name: string
  /** JSON text array. */
  area: string
  latitude: number
  longitude: number
  /** JSON text: [{ day, hours, mins }, ...] (or {} for profiles PoracleJS added). */
  active_hours: string
}

export interface EngineArea {
  name: string
  group: string
  description: string
  userSelectable: boolean
}

export interface ProfileInput {
  name: string
  active_hours?: ActiveHour[]
}

export interface HumanInput {
  id: string
  name: string
  type?: string
  enabled?: boolean
  /** Sent as the JSON string PoracleNG binds it to. */
  area?: string[]
  latitude?: number
  longitude?: number
  admin_disable?: boolean
  language?: string
  community?: string[]
  profile_name?: string
  notes?: string
}

export interface TrackingSnapshot {
  human: EngineHuman
  alarms: Record<AlarmType, AlarmRow[]>
}

export interface SummarySchedule {
  id: string
  alert_type: string
  active_hours: unknown
}

export interface PoracleWebConfig {
  version: string | null
  locale: string | null
  providerUrl: string | null
  /** The first key when the engine lists several. */
  staticKey: string | null
  /** A number in PoracleJS's config, a string in PoracleNG's: always a string here. */
  defaultTemplateName: string
  admins: { discord: string[], telegram: string[] }
  maxDistance: number | null
  defaultDistance: number | null
  /** Alarm kinds the engine has switched off (lower-case hook names); null when the engine does not say. */
  disabledHooks: string[] | null
  everythingFlagPermissions: string | null
  pvpCaps: number[]
  /** The whole answer, for fields not mapped above. */
  raw: Record<string, unknown>
}

export interface EngineHealth {
  generation: EngineGeneration
  /** Newer PoracleNG releases report these; older engines do not. */
  version: string | null
  capabilities: Record<string, boolean> | null
}

export interface TestAlertInput {
  type: string
  webhook: Record<string, unknown>
  target: { id: string, name?: string, type?: string, language?: string, template?: string, latitude?: number, longitude?: number }
}

export interface EngineClientOptions {
  /** PORACLE_API_ADDRESS, e.g. http://poracle:3030 */
  baseUrl: string
  /** PORACLE_API_SECRET; not sent when empty (an open PoracleNG API). */
  secret: string
  /** ENGINE_TIMEOUT_MS, applied to every call. */
  timeoutMs: number
  log: Pick<FastifyBaseLogger, 'warn' | 'error'>
}

type Json = Record<string, unknown>
type Segment = string | number
type Query = Record<string, string | number | boolean | undefined>

interface CallOptions {
  method?: 'GET' | 'POST' | 'DELETE'
  query?: Query
  body?: unknown
  /**
   * PoracleJS validates alarm rows by throwing before its try block, which fastify answers with a 500
   * carrying the reason: on routes that validate input that 500 is a rejected request, not a crash.
   */
  jsRejectsWith500?: boolean
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null)
const num = (value: unknown): number | null => {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value
  return typeof n === 'number' && Number.isFinite(n) ? n : null
}
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : [])

const urlPath = (segments: Segment[]) => '/' + segments.map((s) => encodeURIComponent(String(s))).join('/')
/** The path for logs and error details: a webhook user id is a URL whose last part is its secret token. */
const pathOf = (segments: Segment[]) => '/' + segments.map((s) => (/^https?:\/\//i.test(String(s)) ? '{webhook}' : encodeURIComponent(String(s)))).join('/')

/** `uid: 0` would make PoracleNG update row 0 (nothing); `profile_no` would be taken at face value. */
function cleanAlarm (row: AlarmInput): AlarmInput {
  const { profile_no: _profileNo, uid, ...rest } = row
  return uid === undefined || uid === null || uid === 0 || uid === '0' ? rest : { ...rest, uid }
}

export function createEngineClient (options: EngineClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '')
  const { secret, timeoutMs, log } = options
  // undici's request API over a keep-alive pool: the engine is called on nearly every user request, and
  // fetch's WHATWG layers cost about twice the CPU per call for nothing this client uses.
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: 64 })
  let detected: Promise<EngineGeneration> | null = null
  let known: EngineGeneration | null = null

  const engineName = (generation: EngineGeneration | null) =>
    generation === 'js' ? 'PoracleJS' : generation === 'ng' ? 'PoracleNG' : 'the alarm engine'

  function errorFor (status: number, body: Json | null, rawText: string, generation: EngineGeneration | null, opts: CallOptions, details: EngineErrorDetails): EngineError {
    const engineMessage = text(body?.message) ?? text(body?.error) ?? text(body?.reason) ?? (rawText.length > 0 && rawText.length <= 300 ? rawText : null)
    const d: EngineErrorDetails = engineMessage === null ? details : { ...details, engineMessage }
    if (body?.status === 'authError' || status === 401 || body?.webserver === 'unhappy' || (status === 403 && body === null)) {
      // A wrong secret or an IP allow-list miss is an operator problem: log it, show the user nothing.
      log.error({ method: d.method, path: d.path, status }, 'alarm engine refused the service: check PORACLE_API_SECRET and the engine\'s IP allow list')
      return new EngineError('auth', 'The alarm engine refused the service\'s credentials.', d)
    }
    // A 404 that is not a JSON error object (gin's text) or is fastify's route-not-found means the route is missing.
    if (status === 404 && (body === null || (body.statusCode === 404 && /^Route /.test(text(body.message) ?? '')))) {
      return new EngineError('unsupported', `Not supported by this alarm engine (${engineName(generation)}).`, d)
    }
    const message = engineMessage ?? 'The alarm engine rejected the request.'
    if (status === 200) {
      // PoracleJS: an error reported inside a 200.
      if (/not found/i.test(message)) return new EngineError('not_found', message, d)
      if (/not permitted/i.test(message)) return new EngineError('forbidden', message, d)
      return new EngineError('failed', `The alarm engine failed: ${message}`, d)
    }
    // PoracleJS crashes on a missing user's pokemon list before its own "User not found" check.
    if (status === 500 && /reading 'language'/.test(message)) return new EngineError('not_found', 'User not found', d)
    // fastify's own error shape ({ statusCode, error, message }) only comes from PoracleJS.
    if (status === 500 && opts.jsRejectsWith500 === true && typeof body?.statusCode === 'number') {
      return new EngineError('bad_request', message, d)
    }
    switch (status) {
      case 400: return new EngineError('bad_request', message, d)
      case 403: return new EngineError('forbidden', message, d)
      case 404: return new EngineError('not_found', message, d)
      case 409: return new EngineError('conflict', message, d)
      // Transient by definition (e.g. the summary store): the caller may retry, so no engine detail leaks.
      case 503: return new EngineError('unavailable', 'This alarm engine feature is temporarily unavailable.', d)
      default: return new EngineError('failed', `The alarm engine failed: ${message}`, d)
    }
  }

  async function call (segments: Segment[], opts: CallOptions = {}): Promise<unknown> {
    const method = opts.method ?? 'GET'
    const path = pathOf(segments)
    const search = new URLSearchParams()
    for (const [key, value] of Object.entries(opts.query ?? {})) if (value !== undefined) search.set(key, String(value))
    const pathWithQuery = search.toString() !== '' ? `${urlPath(segments)}?${search.toString()}` : urlPath(segments)
    const details: EngineErrorDetails = { method, path }
    if (baseUrl === '') throw new EngineError('unreachable', 'The alarm engine is unreachable: PORACLE_API_ADDRESS is not set.', details)

    const headers: Record<string, string> = { accept: 'application/json' }
    if (secret !== '') headers['x-poracle-secret'] = secret
    if (opts.body !== undefined) headers['content-type'] = 'application/json'
    let status: number
    let rawText: string
    const signal = AbortSignal.timeout(timeoutMs)
    try {
      const response = await request(baseUrl + pathWithQuery, {
        method,
        headers,
        signal,
        dispatcher: agent,
        ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {})
      })
      status = response.statusCode
      rawText = await response.body.text()
    } catch (err) {
      if (signal.aborted) {
        log.warn({ method, path, timeoutMs }, 'alarm engine call timed out')
        throw new EngineError('timeout', `The alarm engine timed out after ${timeoutMs} ms.`, details)
      }
      log.warn({ method, path, err: (err as Error).cause ?? err }, 'alarm engine unreachable')
      throw new EngineError('unreachable', 'The alarm engine is unreachable.', details)
    }

    let parsed: unknown
    let isJson = true
    try {
      parsed = JSON.parse(rawText)
    } catch {
      isJson = false
    }
    const body = isJson && isObject(parsed) ? parsed : null
    const failed = status < 200 || status >= 300 || body?.status === 'error' || body?.status === 'authError' || body?.webserver === 'unhappy'
    if (failed) {
      const error = errorFor(status, body, rawText, known, opts, { ...details, status })
      if (error.kind === 'failed' || error.kind === 'unsupported') log.warn({ method, path, status, engineMessage: error.details.engineMessage }, 'alarm engine call failed')
      throw error
    }
    if (!isJson) {
      log.warn({ method, path, status }, 'alarm engine answered something that is not JSON')
      throw new EngineError('invalid_response', 'The alarm engine sent an unreadable answer.', { ...details, status })
    }
    return parsed
  }

  const invalid = (method: string, segments: Segment[], what: string) =>
    new EngineError('invalid_response', `The alarm engine sent an unexpected answer (${what}).`, { method, path: pathOf(segments) })

  /** Calls a route whose answer must be a JSON object. */
  async function object (segments: Segment[], opts: CallOptions = {}): Promise<Json> {
    const answer = await call(segments, opts)
    if (!isObject(answer)) throw invalid(opts.method ?? 'GET', segments, 'not an object')
    return answer
  }

  function toHealth (answer: Json): EngineHealth {
    const capabilities = isObject(answer.capabilities)
      ? Object.fromEntries(Object.entries(answer.capabilities).filter(([, v]) => typeof v === 'boolean')) as Record<string, boolean>
      : null
    // PoracleJS answers {"webserver":"happy",...}; PoracleNG {"status":"healthy"} (newer ones add version and capabilities).
    return { generation: 'webserver' in answer ? 'js' : 'ng', version: text(answer.version), capabilities }
  }

  async function health (): Promise<EngineHealth> {
    const result = toHealth(await object(['health']))
    known ??= result.generation
    return result
  }

  /** The engine's generation, learnt once from /health and cached; a failed probe is retried next time. */
  function generation (): Promise<EngineGeneration> {
    if (known !== null) return Promise.resolve(known)
    if (detected === null) {
      const probe = health().then((h) => h.generation)
      detected = probe
      probe.catch(() => { if (detected === probe) detected = null })
    }
    return detected
  }

  async function requireNg (method: string, segments: Segment[]): Promise<void> {
    if (await generation() === 'js') {
      throw new EngineError('unsupported', 'Not supported by this alarm engine (PoracleJS).', { method, path: pathOf(segments) })
    }
  }

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
    /** The full human row; a user the engine does not know is a `not_found` EngineError. */
    async one (userId: string): Promise<EngineHuman> {
      const segments = ['api', 'humans', 'one', userId]
      return toHuman((await object(segments)).human, 'GET', segments)
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

  const config = {
    async poracleWeb (): Promise<PoracleWebConfig> {
      const raw = await object(['api', 'config', 'poracleWeb'])
      const admins = isObject(raw.admins) ? raw.admins : {}
      const staticKey = Array.isArray(raw.staticKey) ? raw.staticKey[0] : raw.staticKey
      const template = raw.defaultTemplateName
      return {
        version: text(raw.version),
        locale: text(raw.locale),
        providerUrl: text(raw.providerURL),
        staticKey: text(staticKey),
        defaultTemplateName: typeof template === 'number' || (typeof template === 'string' && template !== '') ? String(template) : '1',
        admins: { discord: strings(admins.discord), telegram: strings(admins.telegram) },
        maxDistance: num(raw.maxDistance),
        defaultDistance: num(raw.defaultDistance),
        disabledHooks: Array.isArray(raw.disabledHooks) ? raw.disabledHooks.map((h) => String(h).toLowerCase()) : null,
        everythingFlagPermissions: text(raw.everythingFlagPermissions),
        pvpCaps: Array.isArray(raw.pvpCaps) ? raw.pvpCaps.map(num).filter((n): n is number => n !== null) : [],
        raw
      }
    },

    /** The engine's configuration values by section, secrets masked (PoracleNG only). */
    async values (section?: string): Promise<Record<string, Json>> {
      const segments = ['api', 'config', 'values']
      await requireNg('GET', segments)
      const answer = await object(segments, { query: { section } })
      return isObject(answer.values) ? answer.values as Record<string, Json> : {}
    },

    /** Template ids per platform, alarm type and language. */
    async templates (): Promise<Json> {
      const { status: _status, ...templates } = await object(['api', 'config', 'templates'])
      return templates
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

  const mapUrl = async (segments: Segment[]): Promise<string> => {
    const url = text((await object(segments)).url)
    if (url === null) throw invalid('GET', segments, 'no url')
    return url
  }

  const geofence = {
    /** The fences the engine has loaded, in Poracle format. */
    async all (): Promise<Json[]> {
      const answer = await object(['api', 'geofence', 'all'])
      return Array.isArray(answer.geofence) ? answer.geofence.filter(isObject) : []
    },

    /** Makes the engine download its URL geofences (such as this service's feed) again. */
    async reload (): Promise<void> {
      await call(['api', 'geofence', 'reload'])
    },

    areaMap: (area: string) => mapUrl(['api', 'geofence', area, 'map']),
    distanceMap: (latitude: number, longitude: number, distance: number) => mapUrl(['api', 'geofence', 'distanceMap', latitude, longitude, distance]),
    locationMap: (latitude: number, longitude: number) => mapUrl(['api', 'geofence', 'locationMap', latitude, longitude])
  }

  const masterdata = {
    /** Raw GameData objects (no status wrapper). */
    monsters: async (locale?: string): Promise<Json> => object(['api', 'masterdata', 'monsters'], { query: { locale } }),
    grunts: async (): Promise<Json> => object(['api', 'masterdata', 'grunts'])
  }

  /** Renders and delivers a test alert to a target (PoracleNG only). */
  async function test (input: TestAlertInput): Promise<void> {
    const segments = ['api', 'test']
    await requireNg('POST', segments)
    await call(segments, { method: 'POST', body: input })
  }

  /** Makes the engine re-read tracking state after direct database writes. */
  async function reload (): Promise<void> {
    if (await generation() === 'ng') await call(['api', 'reload'])
    else await call(['api', 'tracking', 'pokemon', 'refresh'])
  }

  /** Ends the pooled connections (the app closes it on shutdown). */
  const close = () => agent.close()

  return { generation, health, tracking, humans, profiles, config, summaries, geofence, masterdata, test, reload, close }
}

export type EngineClient = ReturnType<typeof createEngineClient>

declare module 'fastify' {
  interface FastifyInstance {
    engine: EngineClient
  }
}

export default fp(async (fastify) => {
  const { config } = fastify
  const engine = createEngineClient({
    baseUrl: config.PORACLE_API_ADDRESS,
    secret: config.PORACLE_API_SECRET,
    timeoutMs: config.ENGINE_TIMEOUT_MS,
    log: fastify.log
  })
  fastify.decorate('engine', engine)
  fastify.addHook('onClose', async () => { await engine.close() })
}, { name: 'engine', dependencies: ['config'], fastify: '5.x' })
