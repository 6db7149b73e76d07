import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Ajv, type ValidateFunction } from 'ajv'
import { badRequest } from '../edge/errors.js'
import { activeProfileAt, alarmTypesOf, explain, missingField, readEvent, type EventFences, type ExplainResult, type MemberProfile, type MemberState, type ScannerEvent } from '../../lib/alarm-explain.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { parseAreaText } from './area-selection.js'
import { storedActiveHours } from './profiles.js'
import { MESSAGE_SCHEMAS, type EventType, type Explanation, type ExplanationRequest } from '../../schemas/alarm-explanations.js'
import { ALARM_TYPES, type AlarmType } from '../../schemas/alarm-types.js'

/**
 * "Why didn't I get that alert?" (docs/explanations.md): reads the member (every profile, every alarm,
 * paused, disabled, blocked kinds), the engine's fences (plugins/domain/engine-fences.ts) and its grunt
 * names, and hands them with the event to the one matcher (lib/alarm-explain.ts, lib/alarm-match.ts).
 */

type Row = Record<string, unknown>

/** One scanner event, read once, with the fences it lies in: matched against every member with a push device. */
export interface PreparedEvent { type: EventType, event: ScannerEvent, fences: EventFences }

function createAlarmExplanations (fastify: FastifyInstance) {
  const { config, clock, engine, engineFences, alarmEstimates } = fastify
  // Messages are only read here, never stored: the free-text keyword of the schemas is not needed.
  const ajv = new Ajv({ allErrors: true, strict: false })
  const validators = new Map<EventType, ValidateFunction>()

  /** The message checked against its type's schema: a 400 naming every bad field, never a 500 later. */
  function checkMessage (type: EventType, message: Row): void {
    let validate = validators.get(type)
    if (validate === undefined) {
      validate = ajv.compile(MESSAGE_SCHEMAS[type])
      validators.set(type, validate)
    }
    if (!validate(message)) {
      throw badRequest('Invalid request', {
        details: (validate.errors ?? []).slice(0, 10).map((e) => ({
          field: `event.message${e.instancePath.replace(/\//g, '.')}${'missingProperty' in e.params ? `.${String(e.params.missingProperty)}` : ''}`,
          message: e.message ?? 'is invalid'
        }))
      })
    }
    const missing = missingField(type, message)
    if (missing !== null) throw badRequest('Invalid request', { details: [{ field: `event.message.${missing}`, message: 'is required' }] })
  }

  function validTimeZone (zone: string): string {
    try {
      new Intl.DateTimeFormat('en-GB', { timeZone: zone }).format(0)
      return zone
    } catch {
      throw badRequest('Invalid request', { details: [{ field: 'timeZone', message: 'is not a time zone' }] })
    }
  }

  async function member (userId: string, types: AlarmType[]): Promise<MemberState> {
    const { human, alarms, profiles } = await engine.tracking.allProfiles(userId)
    const current = Number(human.current_profile_no)
    const place = (lat: unknown, lon: unknown) => ({ latitude: Number(lat), longitude: Number(lon) })
    const list: MemberProfile[] = profiles.map((p) => ({
      profileNo: Number(p.profile_no),
      name: p.name,
      areas: parseAreaText(p.area ?? '[]').map((a) => a.toLowerCase()),
      place: place(p.latitude, p.longitude),
      activeHours: storedActiveHours(typeof p.active_hours === 'string' ? p.active_hours : JSON.stringify(p.active_hours ?? []))
    }))
    // The active profile's areas and location are the human's (setAreas and setLocation write both, the human first).
    const humanSide = { areas: parseAreaText(human.area).map((a) => a.toLowerCase()), place: place(human.latitude, human.longitude) }
    const active = list.find((p) => p.profileNo === current)
    if (active === undefined) list.push({ profileNo: current, name: 'Default', activeHours: [], ...humanSide })
    else Object.assign(active, humanSide)
    const blocked = parseAreaText(human.blocked_alerts ?? '[]')
    return {
      language: human.language ?? null,
      enabled: Number(human.enabled) === 1,
      adminDisabled: Number(human.admin_disable) === 1,
      blockedAlerts: blocked,
      currentProfileNo: current,
      profiles: list,
      alarms: types.flatMap((type) => (alarms[type] ?? []).map((row) => ({ type, row: row as Row })))
    }
  }

  /** The fences containing the event and the grunt names, read once per event however many members it is matched for. */
  async function context (type: EventType, message: Row, atS: number): Promise<PreparedEvent> {
    const grunts = type === 'invasion' ? await alarmEstimates.grunts() : new Map()
    const event = readEvent(type, message, atS, grunts)
    const fences = await engineFences.current()
    return { type, event, fences: { at: new Set(fences.at(event.latitude, event.longitude)), known: fences.known } }
  }

  return {
    /**
     * A scanner event read for matching against many members (push alerts): null when the message is not
     * one the engine would read (its schema, or a field the engine needs), instead of the explanation's 400.
     */
    async prepare (type: EventType, message: Row, atS: number): Promise<PreparedEvent | null> {
      try {
        checkMessage(type, message)
      } catch {
        return null
      }
      return context(type, message, atS)
    },

    /** Every profile and alarm of the member, as the matcher reads them (one engine call). */
    memberState: (userId: string): Promise<MemberState> => member(userId, ALARM_TYPES as AlarmType[]),

    /** Whether the engine alerts the member for a prepared event, with the profile active at `atMs`. */
    decide (state: MemberState, prepared: PreparedEvent, atMs: number, timeZone: string): ExplainResult {
      const active = activeProfileAt(state, atMs, clock.now(), timeZone)
      return explain(state, prepared.event, prepared.fences, active)
    },

    /** Per member: `EXPLAIN_RATE_MAX` explanations a minute (each reads every profile from the engine). */
    rateLimit: { max: config.EXPLAIN_RATE_MAX, timeWindow: 60_000, keyGenerator: (request: FastifyRequest) => `explanations:user:${request.user.userId}` },

    /** One event against every alarm of every profile of the member. */
    async explain (userId: string, request: ExplanationRequest): Promise<Explanation> {
      const { type } = request.event
      const message = request.event.message as Row
      checkMessage(type, message)
      const zone = validTimeZone(request.timeZone ?? 'UTC')
      const nowMs = clock.now()
      const atS = request.at ?? Math.floor(nowMs / 1000)
      const [m, fences, grunts] = await Promise.all([
        member(userId, alarmTypesOf(type)),
        engineFences.current(),
        type === 'invasion' ? alarmEstimates.grunts() : Promise.resolve(new Map())
      ])
      const event = readEvent(type, message, atS, grunts)
      const active = activeProfileAt(m, atS * 1000, nowMs, zone)
      return explain(m, event, { at: new Set(fences.at(event.latitude, event.longitude)), known: fences.known }, active)
    }
  }
}

export type AlarmExplanations = ReturnType<typeof createAlarmExplanations>

declare module 'fastify' {
  interface FastifyInstance {
    alarmExplanations: AlarmExplanations
  }
}

export default decoratorPlugin('alarm-explanations', createAlarmExplanations, ['config', 'clock', 'engine', 'engine-fences', 'alarm-estimates'])
