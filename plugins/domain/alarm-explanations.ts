import type { FastifyInstance, FastifyRequest } from 'fastify'
import { Ajv, type ValidateFunction } from 'ajv'
import { badRequest, notFound, notSupported } from '../edge/errors.js'
import { activeProfileAt, alarmTypesOf, explain, missingField, readEvent, type MemberProfile, type MemberState } from '../../lib/alarm-explain.js'
import { alarmAreas, distanceMetres, num, type Place } from '../../lib/alarm-match.js'
import { eventIds } from '../../lib/event-ids.js'
import { boxContains, pointInPolygon, type BoundingBox } from '../../lib/polygon.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { parseAreaText } from './area-selection.js'
import { storedActiveHours } from './profiles.js'
import type { EngineFence, FenceSet } from './engine-fences.js'
import type { Candidate } from './recent-events.js'
import { MESSAGE_SCHEMAS, type EventType, type Explanation, type ExplanationRequest, type RecentList, type RecentQuery } from '../../schemas/alarm-explanations.js'
import type { AlarmType } from '../../schemas/alarm-types.js'

/**
 * "Why didn't I get that alert?" (docs/explanations.md): reads the member (every profile, every alarm,
 * paused, disabled, blocked kinds), the engine's fences (plugins/domain/engine-fences.ts) and its grunt
 * names, and hands them with the event to the one matcher (lib/alarm-explain.ts, lib/alarm-match.ts).
 */

type Row = Record<string, unknown>

/** Where a member could have been alerted: their fences, and a circle per profile of its largest alarm distance. */
interface Places { fences: EngineFence[], circles: Array<{ place: Place, radius: number }> }

const located = (p: Place | null | undefined): p is Place => p !== null && p !== undefined && !(p.latitude === 0 && p.longitude === 0)

function circleBox ({ place, radius }: { place: Place, radius: number }): BoundingBox {
  const dLat = radius / 111_320
  const dLon = radius / (111_320 * Math.max(0.01, Math.cos((place.latitude * Math.PI) / 180)))
  return { minLat: place.latitude - dLat, maxLat: place.latitude + dLat, minLon: place.longitude - dLon, maxLon: place.longitude + dLon }
}

/**
 * The places of a member's recent list for some alarm types: the areas of every profile, the override
 * areas of the alarms, and around each profile's location the largest distance of its distance alarms.
 */
function placesOf (m: MemberState, types: readonly AlarmType[], set: FenceSet): Places {
  const names = new Set<string>()
  for (const p of m.profiles) for (const a of p.areas) names.add(a)
  const radius = new Map<number, number>()
  for (const { type, row } of m.alarms) {
    if (!types.includes(type)) continue
    const profileNo = num(row, 'profile_no', m.currentProfileNo)
    const distance = num(row, 'distance')
    if (distance > 0) radius.set(profileNo, Math.max(distance, radius.get(profileNo) ?? 0))
    else for (const a of alarmAreas(row, m.profiles.find((p) => p.profileNo === profileNo)?.areas ?? [])) names.add(a)
  }
  return {
    fences: [...names].flatMap((name) => set.byName.get(name) ?? []),
    circles: [...radius].flatMap(([profileNo, r]) => {
      const place = m.profiles.find((p) => p.profileNo === profileNo)?.place
      return located(place) ? [{ place, radius: r }] : []
    })
  }
}

const inPlaces = (places: Places, lat: number, lon: number): boolean =>
  places.circles.some((c) => distanceMetres(c.place, lat, lon) <= c.radius) ||
  places.fences.some((f) => f.parts.some((p) => boxContains(p.box, lat, lon) && pointInPolygon(lat, lon, p.path)))

const newestFirst = (a: Candidate, b: Candidate) => b.at - a.at || a.latitude - b.latitude || a.longitude - b.longitude || a.rank - b.rank

function createAlarmExplanations (fastify: FastifyInstance) {
  const { config, clock, engine, engineFences, alarmEstimates, recentEvents } = fastify
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
      enabled: Number(human.enabled) === 1,
      adminDisabled: Number(human.admin_disable) === 1,
      blockedAlerts: blocked,
      currentProfileNo: current,
      profiles: list,
      alarms: types.flatMap((type) => (alarms[type] ?? []).map((row) => ({ type, row: row as Row })))
    }
  }

  return {
    /** Per member: `EXPLAIN_RATE_MAX` explanations a minute (each reads every profile from the engine). */
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
        member(userId, alarmTypesOf(type)),
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
      const [m, set] = await Promise.all([member(userId, types), engineFences.current()])
      const places = placesOf(m, types, set)
      const boxes = [...places.fences.flatMap((f) => f.parts.map((p) => p.box)), ...places.circles.map(circleBox)]
      const seen = await recentEvents.seen(query.type, boxes, query.pokemonId)
      const listed = seen.filter((c) => inPlaces(places, c.latitude, c.longitude)).sort(newestFirst)
      const limit = query.limit ?? 30
      const [cursorAt, cursorSkip] = query.cursor === undefined ? [Infinity, 0] : query.cursor.split('.').map(Number) as [number, number]
      // The first event after the cursor: past the events of the cursor's second already listed.
      let start = listed.findIndex((c) => c.at <= cursorAt)
      if (start < 0) start = listed.length
      const groupStart = start
      while (start < listed.length && start - groupStart < cursorSkip && (listed[start] as Candidate).at === cursorAt) start++
      const page = listed.slice(start, start + limit)
      const last = page[page.length - 1]
      let nextCursor: string | null = null
      if (last !== undefined && start + page.length < listed.length) {
        const end = start + page.length
        let sameSecond = 0
        for (let i = end - 1; i >= 0 && (listed[i] as Candidate).at === last.at; i--) sameSecond++
        nextCursor = `${last.at}.${sameSecond}`
      }
      return {
        windowSeconds: recentEvents.windowSeconds,
        nextCursor,
        events: page.map((c) => {
          const { until, place, message, summary } = c.describe()
          const area = set.at(c.latitude, c.longitude)[0]
          return {
            id: ids.seal(userId, { type: query.type, message, at: c.at }),
            type: query.type,
            seenAt: c.at,
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

export default decoratorPlugin('alarm-explanations', createAlarmExplanations, ['config', 'clock', 'engine', 'engine-fences', 'alarm-estimates', 'recent-events'])
