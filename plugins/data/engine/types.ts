import { ERRORS } from '../../edge/errors.js'
import type { ActiveHour } from '../../../schemas/profiles.js'
import type { AlarmType, EngineGeneration } from '../../../schemas/alarm-types.js'

/** What the engine client takes and gives: its error and the engine's records, in the engine's field names. */

export type EngineErrorKind =
  | 'unreachable' | 'timeout' | 'not_found' | 'bad_request' | 'forbidden' | 'conflict'
  | 'unavailable' | 'unsupported' | 'auth' | 'invalid_response' | 'failed' | 'down' | 'too_large'

const STATUS_OF: Record<EngineErrorKind, number> = {
  unreachable: 503,
  timeout: 504,
  not_found: 404,
  bad_request: 400,
  forbidden: 403,
  conflict: 409,
  unavailable: 503,
  unsupported: 501,
  auth: 502,
  invalid_response: 502,
  failed: 502,
  /** Known down (the circuit breaker is open): failing fast rather than waiting for another timeout. */
  down: 503,
  too_large: 502
}

/**
 * The catalogue entry of each peer-fault kind: its code, and for the 502s the message answered in place
 * of the error's own (which may quote the engine and is for logs).
 */
const ENTRY_OF: Partial<Record<EngineErrorKind, { code: string, message?: string }>> = {
  unreachable: { code: new ERRORS.EngineUnavailable().code },
  down: { code: new ERRORS.EngineUnavailable().code },
  timeout: { code: new ERRORS.EngineTimeout().code },
  auth: new ERRORS.EngineRefused(),
  invalid_response: new ERRORS.EngineBadAnswer(),
  failed: new ERRORS.EngineBadAnswer(),
  too_large: new ERRORS.EngineAnswerTooLarge()
}

/** 5xx kinds whose message helps the user and reveals nothing; the 502s answer their entry's message. */
const EXPOSED_5XX = new Set<EngineErrorKind>(['unreachable', 'timeout', 'unavailable', 'unsupported', 'down'])

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
 * Any failed engine call. `kind` says what went wrong; the HTTP status follows from it: no connection
 * or the breaker open 503, no complete answer in time 504, an answer that cannot be used (a wrong
 * secret, HTML, not JSON, an error status, over ENGINE_MAX_BYTES) 502, user or profile gone 404,
 * rejected input 400, collision 409, a temporarily unavailable feature 503, a route this engine lacks 501.
 */
export class EngineError extends ERRORS.Engine {
  constructor (readonly kind: EngineErrorKind, message: string, readonly details: EngineErrorDetails) {
    super(message)
    this.name = 'EngineError'
    this.statusCode = STATUS_OF[kind]
    this.expose = STATUS_OF[kind] < 500 || EXPOSED_5XX.has(kind)
    const entry = ENTRY_OF[kind]
    if (entry !== undefined) {
      (this as { code: string }).code = entry.code
      if (entry.message !== undefined) this.publicMessage = entry.message
    }
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

/** One template to render for a sample webhook (`engine.dts.render`). */
export interface TemplateRenderInput {
  /** The scanner webhook's kind as the engine's enrichment names it (pokemon, raid, egg, quest, …). */
  webhookType: string
  webhook: Record<string, unknown>
  /** The DTS template type (monster, raid, egg, quest, …, fort-update). */
  templateType: string
  template: string
  platform: 'discord' | 'telegram'
  language: string
}

export interface TestAlertInput {
  type: string
  webhook: Record<string, unknown>
  target: { id: string, name?: string, type?: string, language?: string, template?: string, latitude?: number, longitude?: number }
}
