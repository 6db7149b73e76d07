import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Ajv, type ValidateFunction } from 'ajv'
import { badRequest, notFound, notSupported } from '../edge/errors.js'
import {
  activeProfileAt, alarmTypesOf, explain, missingField, readEvent,
  type EventFences, type ExplainResult, type MemberProfile, type MemberState, type ScannerEvent
} from '../../lib/alarm-explain.js'
import { eventIds } from './alarm-explanations/event-ids.js'
import { boxesOf, pageOf, placeTest, placesOf } from '../../lib/recent-list.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { TtlCache } from '../../lib/ttl-cache.js'
import { parseAreaText } from './area-selection.js'
import { storedActiveHours } from './profiles.js'
import type { EngineFence } from './engine-fences.js'
import type { MemberRows } from '../data/engine-db.js'
import { MESSAGE_SCHEMAS, type EventType, type Explanation, type ExplanationRequest, type RecentList, type RecentQuery } from '../../schemas/alarm-explanations.js'
import { ALARM_TYPES, type AlarmType } from '../../schemas/alarm-types.js'

/**
 * "Why didn't I get that alert?" (docs/explanations.md): reads the member (every profile, every alarm,
 * paused, disabled, blocked kinds), the engine's fences (plugins/domain/engine-fences.ts) and its grunt
 * names, and hands them with the event to the one matcher (lib/alarm-explain.ts, lib/alarm-match.ts).
 */

type Row = Record<string, unknown>

/** Members whose state (every profile and alarm) is kept at most: the oldest is read again first. */
const MEMBERS_KEPT = 500

/** One scanner event, read once, with the fences it lies in: matched against every member with a push device. */
export interface PreparedEvent { type: EventType, event: ScannerEvent, fences: EventFences }

function createAlarmExplanations (fastify: FastifyInstance) {
  const { config, clock, engine, engineDb, engineFences, alarmEstimates, recentEvents, cacheEviction } = fastify
  const ids = eventIds(config.JWT_SECRET)
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

  async function member (userId: string): Promise<MemberState> {
    // Without the engine's descriptions: it would word each of a thousand alarms for an answer that names them itself.
    const { human, alarms, profiles } = await engine.tracking.allProfiles(userId, { includeDescriptions: false })
    return stateFrom({ human: human as unknown as Row, alarms: alarms as MemberRows['alarms'], profiles: profiles as unknown as Row[] })
  }

  /** A member's state from the engine's rows, however they were read (its API for one member, its database for many). */
  function stateFrom ({ human, alarms, profiles }: MemberRows): MemberState {
    const current = Number(human.current_profile_no)
    const place = (lat: unknown, lon: unknown) => ({ latitude: Number(lat), longitude: Number(lon) })
    const text = (value: unknown): string | null => typeof value === 'string' ? value : null
    const list: MemberProfile[] = profiles.map((p) => ({
      profileNo: Number(p.profile_no),
      name: String(p.name ?? ''),
      areas: parseAreaText(text(p.area) ?? '[]').map((a) => a.toLowerCase()),
      place: place(p.latitude, p.longitude),
      activeHours: storedActiveHours(typeof p.active_hours === 'string' ? p.active_hours : JSON.stringify(p.active_hours ?? []))
    }))
    // The active profile's areas and location are the human's (setAreas and setLocation write both, the human first).
    const humanSide = { areas: parseAreaText(text(human.area)).map((a) => a.toLowerCase()), place: place(human.latitude, human.longitude) }
    const active = list.find((p) => p.profileNo === current)
    if (active === undefined) list.push({ profileNo: current, name: 'Default', activeHours: [], ...humanSide })
    else Object.assign(active, humanSide)
    const blocked = parseAreaText(text(human.blocked_alerts) ?? '[]')
    return {
      language: text(human.language),
      enabled: Number(human.enabled) === 1,
      adminDisabled: Number(human.admin_disable) === 1,
      blockedAlerts: blocked,
      currentProfileNo: current,
      profiles: list,
      alarms: (ALARM_TYPES as AlarmType[]).flatMap((type) => (alarms[type] ?? []).map((row) => ({ type, row })))
    }
  }

  /*
   * A member's state is kept for EXPLAIN_MEMBER_SECONDS: one engine read then serves the member's next
   * questions (a member goes through several events of the recent list). Anything the member (or an admin,
   * for them) writes through the API forgets it at once, on every instance, before the write is answered;
   * a change made elsewhere (the chat bot) shows once it ends. Listeners (push alerts) hear the same.
   */
  const kept = new TtlCache<string, MemberState>(clock, MEMBERS_KEPT)
  const changeListeners: Array<(userId: string) => void> = []
  // Raised by every change: a read that began before one is answered but not kept.
  let changes = 0
  cacheEviction.on('member-state', (userId) => {
    changes++
    kept.delete(userId)
    for (const listener of changeListeners) listener(userId)
  })
  const changed = (userId: string): void => { cacheEviction.evict('member-state', userId).catch(() => {}) }
  fastify.addHook('onSend', async (request, reply, payload) => {
    if (request.method === 'GET' || request.method === 'HEAD' || reply.statusCode >= 400 || request.routeOptions.config.changes === false) return payload
    const userId = (request as { user?: { userId?: string } }).user?.userId
    if (userId === undefined) return payload
    changed(userId)
    // An admin's change of a member names them in the query (plugins/domain/admin-users.ts).
    const subject = (request.query as { id?: unknown } | undefined)?.id
    if (request.url.startsWith('/api/admin/users') && typeof subject === 'string' && subject !== userId) changed(subject)
    return payload
  })

  async function keptMember (userId: string): Promise<MemberState> {
    return kept.getOrLoad(userId, async () => {
      const before = changes
      const value = await member(userId)
      return { value, ttlMs: before === changes ? config.EXPLAIN_MEMBER_SECONDS * 1000 : 0 }
    })
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

    /** Every profile and alarm of the member, as the matcher reads them (one engine call, never kept). */
    memberState: member,

    /**
     * The same for many members at once, from the engine's database (one pass over each table, where one
     * engine call each scans every table each time): push alerts' members, read when an instance starts.
     * A member the engine does not know is absent.
     */
    async memberStates (userIds: readonly string[]): Promise<Map<string, MemberState>> {
      const rows = await engineDb.memberRows(userIds)
      return new Map([...rows].map(([userId, member]) => [userId, stateFrom(member)]))
    },

    /** Calls `listener` with each member whose alarms, profiles or settings changed (on any instance). */
    onMemberChange (listener: (userId: string) => void): void { changeListeners.push(listener) },

    /** Whether the engine alerts the member for a prepared event, with the profile active at `atMs`. */
    decide (state: MemberState, prepared: PreparedEvent, atMs: number, timeZone: string): ExplainResult {
      const active = activeProfileAt(state, atMs, clock.now(), timeZone)
      return explain(state, prepared.event, prepared.fences, active)
    },

    /** Per member: `EXPLAIN_RATE_MAX` explanations a minute. */
    rateLimit: { max: config.EXPLAIN_RATE_MAX, timeWindow: 60_000, keyGenerator: (request: FastifyRequest) => `explanations:user:${request.user.userId}` },

    /**
     * One event against every alarm of every profile of the member: the event itself, or one of the
     * member's recent list by its id (an id listed for anyone else is not found).
     */
    async explain (userId: string, request: ExplanationRequest): Promise<Explanation> {
      if ((request.event === undefined) === (request.eventId === undefined)) {
        throw badRequest('Invalid request', { details: [{ field: request.event === undefined ? 'event' : 'eventId', message: 'send either event or eventId' }] })
      }
      const sealed = request.eventId === undefined ? null : ids.open(userId, request.eventId)
      if (request.eventId !== undefined && sealed === null) throw notFound('Event not found.')
      const type = sealed?.type ?? (request.event as NonNullable<ExplanationRequest['event']>).type
      const message = (sealed?.message ?? request.event?.message) as Row
      checkMessage(type, message)
      const zone = validTimeZone(request.timeZone ?? 'UTC')
      const nowMs = clock.now()
      const atS = request.at ?? sealed?.at ?? Math.floor(nowMs / 1000)
      const [m, fences, grunts] = await Promise.all([
        keptMember(userId),
        engineFences.current(),
        type === 'invasion' ? alarmEstimates.grunts() : Promise.resolve(new Map())
      ])
      const event = readEvent(type, message, atS, grunts)
      const active = activeProfileAt(m, atS * 1000, nowMs, zone)
      return explain(m, event, { at: new Set(fences.at(event.latitude, event.longitude)), known: fences.known }, active)
    },

    /** Per member: `EXPLAIN_RATE_MAX` pages of the recent list a minute, a window apart from the explanations'. */
    recentRateLimit: { max: config.EXPLAIN_RATE_MAX, timeWindow: 60_000, keyGenerator: (request: FastifyRequest) => `explanations-recent:user:${request.user.userId}` },

    /**
     * The events of a type the scanner saw in the last hour in the member's places, newest first, a page
     * at a time: each with what the list shows and its sealed id, never its position. `cursor` is
     * `<seen at>.<events of that second already listed>`, so a page goes on where the last one ended
     * while new events arrive at the top.
     */
    async recent (userId: string, query: RecentQuery): Promise<RecentList> {
      if (!recentEvents.configured) throw notSupported('This site has no scanner database: recent events cannot be listed.')
      const types = alarmTypesOf(query.type)
      const [m, set] = await Promise.all([keptMember(userId), engineFences.current()])
      const places = placesOf(m, types, set.byName)
      const seen = await recentEvents.seen(query.type, boxesOf(places), placeTest(places), query.pokemonId)
      const { page, nextCursor } = pageOf(seen, query.cursor, query.limit ?? 30)
      return {
        windowSeconds: recentEvents.windowSeconds,
        nextCursor,
        events: page.map((i) => {
          const { until, place, message, summary } = seen.describe(i)
          const latitude = seen.latitude(i)
          const longitude = seen.longitude(i)
          const area = set.at(latitude, longitude)[0]
          return {
            id: ids.seal(userId, { type: query.type, message, at: seen.at(i) }),
            type: query.type,
            seenAt: seen.at(i),
            endsAt: until,
            area: area === undefined ? null : (set.byName.get(area) as EngineFence).displayName,
            place,
            ...summary
          }
        })
      }
    }
  }
}

export type AlarmExplanations = ReturnType<typeof createAlarmExplanations>

declare module 'fastify' {
  interface FastifyInstance {
    alarmExplanations: AlarmExplanations
  }
}

export default decoratorPlugin('alarm-explanations', createAlarmExplanations, ['config', 'clock', 'engine', 'engine-db', 'engine-fences', 'alarm-estimates', 'recent-events', 'cache-eviction'])
