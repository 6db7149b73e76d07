import type { FastifyInstance } from 'fastify'
import { Counter } from 'prom-client'
import { alarmTypesOf, type MemberState } from '../../lib/alarm-explain.js'
import { distanceMetres } from '../../lib/alarm-match.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { dateTimeFormat } from '../../lib/intl-formats.js'
import { eventKeys } from '../../lib/push-index.js'
import { notificationFor, topicOf, type Notification } from './push-alerts/notification.js'
import { fill, pushWordsFor } from './push-alerts/words.js'
import { EVENT_TYPES, type EventType } from '../../schemas/alarm-explanations.js'
import type { AlarmType } from '../../schemas/alarm-types.js'
import { sameToken } from '../edge/metrics.js'
import { DEFAULT_DELIVERY_MODE, type PushDeviceTarget } from './push-subscriptions.js'
import { createPushRoster, type Member } from './push-alerts/roster.js'

/**
 * Alerts become push notifications (docs/push.md), from either engine generation:
 * - the scanner's own feed (PoracleJS sites): each event is matched by the explanations' matcher against
 *   the alarms of the members with a push device, kept in memory and indexed by what an event can match
 *   (push-alerts/roster.ts, lib/push-index.ts), so an event runs the matcher for the members it can alert
 *   only;
 * - PoracleNG's validation hook: the engine has matched, one call per member; the answer comes from memory
 *   (false for "push only", so the engine sends no chat message) and the push follows after it.
 * Both then apply the device's alarm types and quiet hours and the member's rate limit (a flood past it
 * becomes one "rate-limited" notice), and queue the messages with the sender (plugins/domain/push-sender.ts).
 */

type Row = Record<string, unknown>

/** A scanner feed item waiting to be matched. */
interface FeedItem { type: EventType, message: Row, receivedAt: number }

/** How often a device's "last sent" is written at most: it is shown to its owner, not counted. */
const MARK_SENT_EVERY_MS = 60_000
/**
 * How long devices sent to gather before their "last sent" is written, in one statement for all: one
 * write per push took a quarter of the service's work for the validation hook's pushes (bench:push).
 */
const MARK_SENT_BATCH_MS = 2000
/**
 * How long the feed's matching runs before it lets the event loop answer others (the validation hook
 * above all, whose answer holds the engine): a slice of matching is the hook's worst wait.
 */
const MATCH_SLICE_MS = 2

/** Golbat's webhook types as the matcher's event types; a pokestop with a lure is a lure event. */
export function eventTypeOf (type: string, message: Row): EventType | null {
  if (type === 'pokestop') return typeof message.lure_id === 'number' && message.lure_id > 0 ? 'lure' : null
  return (EVENT_TYPES as readonly string[]).includes(type) ? type as EventType : null
}

/** Whether `atMs` falls in the device's quiet hours, read on its own clock. */
export function inQuietHours (quiet: PushDeviceTarget['quietHours'], atMs: number): boolean {
  if (quiet === null) return false
  let parts: Intl.DateTimeFormatPart[]
  try {
    parts = dateTimeFormat('en-GB', { timeZone: quiet.timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(atMs)
  } catch {
    parts = dateTimeFormat('en-GB', { timeZone: 'UTC', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(atMs)
  }
  const minute = Number(parts.find((p) => p.type === 'hour')?.value) * 60 + Number(parts.find((p) => p.type === 'minute')?.value)
  const toMinute = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5))
  const start = toMinute(quiet.start)
  const end = toMinute(quiet.end)
  return start <= end ? minute >= start && minute < end : minute >= start || minute < end
}

function createPushAlerts (fastify: FastifyInstance) {
  const { config, clock, log, pushSender, pushSubscriptions, alarmExplanations, masterNames, engineFences } = fastify
  const feedEnabled = config.SCANNER_WEBHOOK_TOKEN !== ''
  const hookEnabled = config.PUSH_VALIDATION_TOKEN !== ''
  const windowMs = config.PUSH_RATE_WINDOW_SECONDS * 1000

  const registers = fastify.metrics.registry === null ? [] : [fastify.metrics.registry]
  const alerts = new Counter({
    name: 'alarm_web_push_alerts_total',
    help: 'Matched alerts for members with a push device, by what became of them (queued, quiet: held by quiet hours, rate_limited, notice: the one rate-limit notice, chat_only)',
    labelNames: ['outcome'] as const,
    registers
  })
  const feedDropped = new Counter({ name: 'alarm_web_push_feed_dropped_total', help: 'Scanner feed items dropped: not an event the engine reads (invalid), or past the backlog (backlog)', labelNames: ['reason'] as const, registers })

  const roster = createPushRoster(fastify)
  const namesByLanguage = new Map<string, Promise<Record<number, string>>>()
  const lastMarked = new Map<number, number>()

  function pokemonNames (language: string | null | undefined): Promise<Record<number, string>> {
    const key = language ?? ''
    let names = namesByLanguage.get(key)
    if (names === undefined) {
      names = masterNames.pokemon(language ?? undefined).catch(() => ({}))
      namesByLanguage.set(key, names)
    }
    return names
  }

  /** Counts the push against the member's window: send it, send the one notice instead, or drop it. */
  function admit (member: Member, nowMs: number): 'send' | 'notice' | 'drop' {
    member.sentAt = member.sentAt.filter((at) => nowMs - at < windowMs)
    if (member.sentAt.length < config.PUSH_RATE_MAX) {
      member.sentAt.push(nowMs)
      member.noticeSent = false
      return 'send'
    }
    if (member.noticeSent) return 'drop'
    member.noticeSent = true
    return 'notice'
  }

  const toMark = new Set<number>()
  let markTimer: NodeJS.Timeout | null = null
  async function writeMarks (): Promise<void> {
    if (markTimer !== null) clearTimeout(markTimer)
    markTimer = null
    const ids = [...toMark]
    toMark.clear()
    await pushSubscriptions.markSent(ids).catch((error: unknown) => log.warn({ devices: ids.length, error: (error as Error).message }, 'push alerts: "last sent" not written'))
  }
  function markSent (subscriptionId: number): void {
    const now = clock.now()
    if (now - (lastMarked.get(subscriptionId) ?? 0) < MARK_SENT_EVERY_MS) return
    lastMarked.set(subscriptionId, now)
    toMark.add(subscriptionId)
    markTimer ??= setTimeout(() => { writeMarks().catch(() => {}) }, MARK_SENT_BATCH_MS)
  }
  // What was sent before a shutdown is still written.
  fastify.addHook('onClose', writeMarks)

  /** Sends a matched event to the member's devices that want it, within quiet hours and the rate limit. */
  function deliver (member: Member, notification: Notification, alarmTypes: readonly AlarmType[], eventAt: number): void {
    const { words } = pushWordsFor(member.state?.language)
    const nowMs = clock.now()
    const wanting = member.devices.filter((d) => d.types === null || alarmTypes.some((type) => d.types?.includes(type)))
    const awake = wanting.filter((d) => !inQuietHours(d.quietHours, nowMs))
    if (awake.length < wanting.length) alerts.inc({ outcome: 'quiet' }, wanting.length - awake.length)
    if (awake.length === 0 || notification.ttlSeconds <= 0) return
    const admission = admit(member, nowMs)
    if (admission === 'drop') return alerts.inc({ outcome: 'rate_limited' })
    alerts.inc({ outcome: admission === 'send' ? 'queued' : 'notice' })
    const shown = admission === 'send'
      ? { kind: 'alert', title: notification.title, body: notification.body, tag: notification.tag, url: notification.url }
      : {
          kind: 'rate-limited',
          title: words.rateLimitedTitle,
          body: fill(words.rateLimitedBody, { max: config.PUSH_RATE_MAX, minutes: Math.round(config.PUSH_RATE_WINDOW_SECONDS / 60) }),
          tag: 'rate-limited',
          url: '/'
        }
    for (const target of awake) {
      pushSender.enqueue({
        target,
        payload: JSON.stringify(shown),
        ttlSeconds: admission === 'send' ? notification.ttlSeconds : config.PUSH_RATE_WINDOW_SECONDS,
        urgency: admission === 'send' ? notification.urgency : 'normal',
        topic: topicOf(shown.tag),
        eventAt
      }).then((outcome) => { if (outcome === 'sent') markSent(target.id) }, () => {})
    }
  }

  async function notificationOf (type: EventType, message: Row, state: MemberState | null, profileNo: number | null, area: string | null): Promise<Notification> {
    const names = await pokemonNames(state?.language)
    const place = state?.profiles.find((p) => p.profileNo === profileNo)?.place ?? null
    const lat = Number(message.latitude)
    const lon = Number(message.longitude)
    const metres = place === null || (place.latitude === 0 && place.longitude === 0) || !Number.isFinite(lat) || !Number.isFinite(lon)
      ? null
      : distanceMetres(place, lat, lon)
    return notificationFor(type, message, {
      pokemonName: (id) => names[id] ?? `#${id}`,
      language: state?.language ?? null,
      area,
      nowS: Math.floor(clock.now() / 1000),
      metres,
      mapTemplate: config.PUSH_MAP_URL
    })
  }

  /** The name of the engine's fence the event is in (shown in the text), null when none or unknown. */
  async function areaOf (message: Row): Promise<string | null> {
    const lat = Number(message.latitude)
    const lon = Number(message.longitude)
    return Number.isFinite(lat) && Number.isFinite(lon) ? engineFences.areaAt(lat, lon).catch(() => null) : null
  }

  /** One scanner event against the members whose alarms can match it (the index), from memory. */
  async function matchEvent ({ type, message, receivedAt }: FeedItem): Promise<void> {
    const members = await roster.current()
    await roster.settled()
    roster.refreshStale()
    if (members.size === 0) return
    const prepared = await alarmExplanations.prepare(type, message, Math.floor(receivedAt / 1000))
    if (prepared === null) return feedDropped.inc({ reason: 'invalid' })
    let area: Promise<string | null> | undefined
    for (const member of roster.candidates(eventKeys(prepared.event, prepared.fences.at))) {
      const state = member.state
      if (state === null) continue
      const timeZone = member.devices.find((d) => d.quietHours !== null)?.quietHours?.timeZone ?? 'UTC'
      const result = alarmExplanations.decide(state, prepared, receivedAt, timeZone)
      if (!result.alerted) continue
      if ((member.modes.get(result.activeProfileNo) ?? DEFAULT_DELIVERY_MODE) === 'chat') {
        alerts.inc({ outcome: 'chat_only' })
        continue
      }
      const alarmTypes = result.alarms.filter((a) => a.matches && a.active).map((a) => a.type)
      area ??= areaOf(message)
      deliver(member, await notificationOf(type, message, state, result.activeProfileNo, await area), alarmTypes, receivedAt)
    }
  }

  fastify.addHook('onReady', async () => {
    // The hook answers from memory: the members with a device are read before the first call.
    if (hookEnabled || feedEnabled) await roster.current().catch((error: unknown) => log.warn({ error: (error as Error).message }, 'push alerts: members with a device not read yet'))
  })

  // The feed's backlog, matched one event at a time off the request.
  let backlog: FeedItem[] = []
  let draining = false
  /** Validated events between the hook's answer and their messages queued. */
  let hookPushes = 0
  async function drain (): Promise<void> {
    if (draining) return
    draining = true
    try {
      let sliceStart = performance.now()
      while (backlog.length > 0) {
        const batch = backlog
        backlog = []
        for (const item of batch) {
          try {
            await matchEvent(item)
          } catch (error) {
            log.warn({ type: item.type, error: (error as Error).message }, 'push alerts: a scanner event could not be matched')
          }
          // Awaits of what is in memory never give the event loop back: the slice does.
          if (performance.now() - sliceStart >= MATCH_SLICE_MS) {
            await new Promise((resolve) => setImmediate(resolve))
            sliceStart = performance.now()
          }
        }
      }
    } finally {
      draining = false
    }
  }

  return {
    feedEnabled,
    hookEnabled,

    /** Whether `given` is the scanner feed's token (constant time). */
    feedTokenMatches: (given: string): boolean => feedEnabled && sameToken(config.SCANNER_WEBHOOK_TOKEN, given),
    /** Whether `given` is the validation hook's token (constant time). */
    hookTokenMatches: (given: string): boolean => hookEnabled && sameToken(config.PUSH_VALIDATION_TOKEN, given),

    /**
     * Takes a scanner webhook body (Golbat: `[{ type, message }]`) and returns at once; the events are
     * matched after. Types the matcher does not know (weather, ...) are skipped. Answers how many were taken.
     */
    acceptFeed (items: ReadonlyArray<{ type: string, message: Row }>): number {
      const receivedAt = clock.now()
      // Switched off by the admin: the scanner keeps sending, nothing is taken.
      if (!pushSender.offeredNow()) return 0
      let taken = 0
      for (const { type, message } of items) {
        const eventType = eventTypeOf(type, message)
        if (eventType === null) continue
        backlog.push({ type: eventType, message, receivedAt })
        taken++
      }
      if (backlog.length > config.PUSH_FEED_BACKLOG_MAX) {
        feedDropped.inc({ reason: 'backlog' }, backlog.length - config.PUSH_FEED_BACKLOG_MAX)
        backlog = backlog.slice(backlog.length - config.PUSH_FEED_BACKLOG_MAX)
      }
      if (taken > 0) setImmediate(() => { drain().catch(() => {}) })
      return taken
    },

    /**
     * PoracleNG's validation hook for one matched member: answered from memory (never waits on a database
     * or the engine), false when the member's active profile is "push only". Members with a device get
     * the push after the answer. A member not yet in memory is answered true and read for the next call.
     */
    validate (userId: string, type: string, message: Row): boolean {
      const receivedAt = clock.now()
      if (!pushSender.offeredNow()) return true
      const member = roster.known(userId)
      if (member === undefined || member.devices.length === 0) return true
      const profileNo = member.state?.currentProfileNo ?? null
      const mode = (profileNo === null ? undefined : member.modes.get(profileNo)) ?? DEFAULT_DELIVERY_MODE
      const eventType = eventTypeOf(type, message)
      if (mode === 'chat' || eventType === null) return true
      hookPushes++
      setImmediate(() => {
        areaOf(message)
          .then((area) => notificationOf(eventType, message, member.state, profileNo, area))
          .then((notification) => deliver(member, notification, alarmTypesOf(eventType), receivedAt))
          .catch((error: unknown) => log.warn({ type, error: (error as Error).message }, 'push alerts: a validated event could not be pushed'))
          .finally(() => { hookPushes-- })
      })
      return mode !== 'push'
    },

    /** Settles when the member's devices, choices and alarms are in this instance's memory (as the hook reads them). */
    async whenKnown (userId: string): Promise<void> {
      const member = (await roster.current()).get(userId)
      if (member !== undefined) await roster.stateOf(member)
    },

    /** Settles when the feed's backlog is matched, the hook's pushes are queued and no member is being read (tests and the benchmark wait for it). */
    async idle (): Promise<void> {
      const busy = () => draining || backlog.length > 0 || hookPushes > 0 || roster.reading()
      while (busy()) await new Promise((resolve) => setTimeout(resolve, 5))
    }
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    pushAlerts: ReturnType<typeof createPushAlerts>
  }
}

export default decoratorPlugin('push-alerts', createPushAlerts, ['config', 'clock', 'push-sender', 'push-subscriptions', 'alarm-explanations', 'master-names', 'cache-eviction', 'engine-fences'])
