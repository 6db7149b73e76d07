import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { Counter, Gauge, Histogram } from 'prom-client'
import { request } from 'undici'
import webPush from 'web-push'
import { badRequest } from '../edge/errors.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { isInsideAddress, isInsideRefusal, outsideOnly } from '../../lib/outside-only.js'

/**
 * Sending Web Push messages (docs/push.md): each message is encrypted (aes128gcm) and signed (VAPID) by
 * the `web-push` library's `generateRequestDetails`, then posted through the outside-only dispatcher
 * (lib/outside-only.ts), so a subscription cannot make the service call into its own network. Messages
 * wait in one bounded queue drained by PUSH_CONCURRENCY workers: past PUSH_QUEUE_MAX the oldest waiting
 * message is dropped; 429 and 5xx are retried after the push service's Retry-After; 404 and 410 mean the
 * device unsubscribed (its listeners prune it); 413 is dropped. Endpoints and keys are never logged.
 * Push is offered once a source of alerts is configured (the scanner feed's or the validation hook's
 * token) and until the admin switches it off (`disable_push`). The VAPID pair is the operator's, else one
 * the service made on its first start and keeps in its site settings (hidden, read-only), so every
 * instance signs with the same key and devices stay subscribed across restarts.
 */

export type Urgency = 'very-low' | 'low' | 'normal' | 'high'

export interface PushTarget {
  id: number
  endpoint: string
  p256dh: string
  auth: string
}

export interface PushMessage {
  target: PushTarget
  /** The notification as the service worker reads it (JSON), at most MAX_PAYLOAD_BYTES. */
  payload: string
  /** How long the push service may keep it: the time the event has left. */
  ttlSeconds: number
  urgency: Urgency
  /** Messages with the same topic replace each other while waiting at the push service. */
  topic?: string
  /** When the event reached the service (clock ms): the latency metric runs from here. */
  eventAt: number
}

/** sent: the push service took it; gone: the device unsubscribed (pruned); the rest are failures. */
export type PushOutcome = 'sent' | 'gone' | 'too_large' | 'expired' | 'failed'

/** Web Push services accept 4 KB of encrypted payload; the notification's JSON stays well under it. */
export const MAX_PAYLOAD_BYTES = 3072
/** The admin's switch (site settings): "true" stops offering push, the sources included. */
export const PUSH_SWITCH_KEY = 'disable_push'
/** Where a VAPID pair the service made is kept (hidden from the settings API). */
const VAPID_SETTING_KEY = 'vapid_keys'
/** How often the hook's in-memory view of the admin's switch asks the settings (their own cache) again. */
const SWITCH_REREAD_MS = 10_000
/** A VAPID token is signed once per push service for this long (the library's own default, 12 h)... */
const VAPID_TOKEN_MS = 12 * 3600_000
/** ...and signed again when less than this is left, so none goes out about to expire. */
const VAPID_RENEW_MS = 3600_000
/** Push services whose token is kept at most (there are a handful; the bound only guards memory). */
const VAPID_AUDIENCES_MAX = 1000
/** The longest wait a Retry-After is honoured for; past it the message is given up. */
const MAX_RETRY_WAIT_MS = 300_000

interface Waiting {
  message: PushMessage
  attempts: number
  settle: (outcome: PushOutcome) => void
}

/** `host` or `host:port` (`[v6]:port`) entries of PUSH_ENDPOINT_HOSTS, as host and optional port. */
function parseHostEntries (entries: string[]): Array<{ host: string, port: string | null }> {
  return entries.map((entry) => entry.trim().toLowerCase()).filter((entry) => entry !== '').map((entry) => {
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry)
    if (bracketed !== null) return { host: bracketed[1] as string, port: bracketed[2] ?? null }
    const colons = entry.split(':').length - 1
    if (colons === 1) {
      const [host, port] = entry.split(':') as [string, string]
      return { host, port }
    }
    return { host: entry, port: null }
  })
}

/** Seconds or an HTTP date, as milliseconds from now; null when absent or unreadable. */
export function retryAfterMs (value: string | string[] | undefined, now: number): number | null {
  const text = Array.isArray(value) ? value[0] : value
  if (text === undefined || text.trim() === '') return null
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000
  const at = Date.parse(text)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}

function createPushSender (fastify: FastifyInstance) {
  const { config, clock, log, siteSettings } = fastify
  const enabled = config.SCANNER_WEBHOOK_TOKEN !== '' || config.PUSH_VALIDATION_TOKEN !== ''
  let vapidDetails = { subject: config.VAPID_SUBJECT, publicKey: config.VAPID_PUBLIC_KEY, privateKey: config.VAPID_PRIVATE_KEY }
  let switchedOff = false
  let switchReadAt = -Infinity
  const allowed = parseHostEntries(config.PUSH_ENDPOINT_HOSTS)
  const outside = outsideOnly(allowed.map((entry) => entry.host))
  const goneListeners: Array<(subscriptionId: number) => void> = []

  const registers = fastify.metrics.registry === null ? [] : [fastify.metrics.registry]
  const sent = new Counter({ name: 'alarm_web_push_sent_total', help: 'Push messages the push services accepted', registers })
  const failed = new Counter({ name: 'alarm_web_push_failed_total', help: 'Push messages given up, by reason (too_large, expired: dropped from a full queue or past their time, failed: refused or unreachable after the retries)', labelNames: ['reason'] as const, registers })
  const pruned = new Counter({ name: 'alarm_web_push_pruned_total', help: 'Subscriptions ended because the push service answered 404 or 410', registers })
  const retried = new Counter({ name: 'alarm_web_push_retries_total', help: 'Push messages tried again after a 429, a 5xx or no answer', registers })
  const latency = new Histogram({
    name: 'alarm_web_push_latency_seconds',
    help: 'From the event reaching the service to its push message accepted by the push service',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers
  })

  // The queue: an array read from `head`, compacted when half of it is read (shift() would copy every time).
  let queue: Waiting[] = []
  let head = 0
  let active = 0
  const retryTimers = new Set<NodeJS.Timeout>()
  let closed = false
  const waiting = () => queue.length - head

  const queueDepth = new Gauge({
    name: 'alarm_web_push_queue_depth',
    help: 'Push messages waiting to be sent (retries waiting for their time included)',
    registers
  })
  const showDepth = () => queueDepth.set(waiting() + retryTimers.size)

  fastify.addHook('onReady', async () => {
    if (!enabled) return
    await readSwitch()
    if (vapidDetails.publicKey !== '') return
    const kept = JSON.parse(await siteSettings.keepFirst(VAPID_SETTING_KEY, JSON.stringify(webPush.generateVAPIDKeys()))) as { publicKey: string, privateKey: string }
    vapidDetails = { ...vapidDetails, publicKey: kept.publicKey, privateKey: kept.privateKey }
  })

  // Signing a VAPID token (ES256) cost three times the encryption of the message: one token per push
  // service is signed and reused until near its expiry. Its expiry is read by the push service against
  // the real time, so it is kept on that (Date.now), as the library does.
  const vapidTokens = new Map<string, { authorization: string, until: number }>()
  function vapidAuthorization (audience: string): string {
    const kept = vapidTokens.get(audience)
    if (kept !== undefined && kept.until - Date.now() > VAPID_RENEW_MS) return kept.authorization
    if (vapidTokens.size >= VAPID_AUDIENCES_MAX) vapidTokens.clear()
    const until = Date.now() + VAPID_TOKEN_MS
    const { Authorization: authorization } = webPush.getVapidHeaders(audience, vapidDetails.subject, vapidDetails.publicKey, vapidDetails.privateKey, 'aes128gcm', Math.floor(until / 1000))
    vapidTokens.set(audience, { authorization, until })
    return authorization
  }

  async function readSwitch (): Promise<boolean> {
    switchReadAt = clock.now()
    switchedOff = await siteSettings.isTrue(PUSH_SWITCH_KEY)
    return switchedOff
  }

  fastify.addHook('onClose', async () => {
    closed = true
    for (const timer of retryTimers) clearTimeout(timer)
    retryTimers.clear()
    await outside.close()
  })

  function take (): Waiting | undefined {
    const item = queue[head]
    if (item === undefined) return undefined
    queue[head] = undefined as unknown as Waiting
    head++
    if (head > 1024 && head * 2 > queue.length) {
      queue = queue.slice(head)
      head = 0
    }
    return item
  }

  function settle (item: Waiting, outcome: PushOutcome): void {
    if (outcome === 'sent') {
      sent.inc()
      latency.observe(Math.max(0, clock.now() - item.message.eventAt) / 1000)
    } else if (outcome === 'gone') {
      pruned.inc()
      for (const listener of goneListeners) listener(item.message.target.id)
    } else failed.inc({ reason: outcome })
    item.settle(outcome)
  }

  /** One call to the push service: the outcome, or how long to wait before trying again. */
  async function attempt (message: PushMessage): Promise<PushOutcome | { retryInMs: number | null }> {
    const leftSeconds = Math.floor((message.eventAt + message.ttlSeconds * 1000 - clock.now()) / 1000)
    if (leftSeconds <= 0) return 'expired'
    const { target } = message
    const details = webPush.generateRequestDetails({ endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } }, message.payload, {
      headers: { Authorization: vapidAuthorization(new URL(target.endpoint).origin) },
      TTL: leftSeconds,
      urgency: message.urgency,
      contentEncoding: 'aes128gcm',
      ...(message.topic === undefined ? {} : { topic: message.topic })
    })
    try {
      const url = new URL(details.endpoint)
      outside.refuseInsideLiteral(url)
      const answer = await request(url, {
        method: 'POST',
        headers: details.headers as Record<string, string>,
        body: details.body,
        dispatcher: outside.dispatcher,
        headersTimeout: config.PUSH_TIMEOUT_MS,
        bodyTimeout: config.PUSH_TIMEOUT_MS,
        maxRedirections: 0
      })
      await answer.body.dump({ limit: 65_536 })
      const status = answer.statusCode
      if (status >= 200 && status < 300) return 'sent'
      if (status === 404 || status === 410) return 'gone'
      if (status === 413) return 'too_large'
      if (status === 429 || status >= 500) return { retryInMs: retryAfterMs(answer.headers['retry-after'], clock.now()) }
      log.warn({ subscriptionId: target.id, status }, 'push service refused a message')
      return 'failed'
    } catch (error) {
      // A refused inside address will not change by waiting; anything else (reset, timeout) may.
      if (isInsideRefusal(error)) {
        log.warn({ subscriptionId: target.id }, 'push endpoint resolves to a private address; not sent')
        return 'failed'
      }
      log.warn({ subscriptionId: target.id, error: (error as Error).name }, 'push service unreachable')
      return { retryInMs: null }
    }
  }

  async function run (item: Waiting): Promise<void> {
    const result = await attempt(item.message)
    if (typeof result === 'string') return settle(item, result)
    if (closed || item.attempts >= config.PUSH_RETRIES) return settle(item, 'failed')
    item.attempts++
    const wait = Math.min(result.retryInMs ?? 1000 * 2 ** (item.attempts - 1), MAX_RETRY_WAIT_MS)
    if (clock.now() + wait >= item.message.eventAt + item.message.ttlSeconds * 1000) return settle(item, 'expired')
    retried.inc()
    const timer = setTimeout(() => {
      retryTimers.delete(timer)
      if (closed) return settle(item, 'failed')
      queue.push(item)
      pump()
    }, wait)
    retryTimers.add(timer)
    showDepth()
  }

  function pump (): void {
    while (active < config.PUSH_CONCURRENCY) {
      const item = take()
      if (item === undefined) break
      active++
      run(item).catch((error: unknown) => {
        log.error({ subscriptionId: item.message.target.id, error: (error as Error).message }, 'push message could not be prepared')
        settle(item, 'failed')
      }).finally(() => {
        active--
        pump()
      })
    }
    showDepth()
  }

  function isAllowedEndpointHost (host: string, port: string): boolean {
    return allowed.some((entry) => entry.host === host && (entry.port === null || entry.port === port))
  }

  return {
    /** Whether the operator configured a source of alerts: without one nothing is sent and the routes answer 404. */
    enabled,
    /** The VAPID public key the site signs with (base64url). */
    publicKey: (): string => vapidDetails.publicKey,

    /** Whether push is offered now: a source configured and the admin's switch on (read through the settings' cache). */
    async offered (): Promise<boolean> {
      return enabled && !(await readSwitch())
    },

    /**
     * The same from memory, for the validation hook, which must not wait: the switch as last read, read
     * again in the background when that is older than SWITCH_REREAD_MS.
     */
    offeredNow (): boolean {
      if (!enabled) return false
      if (clock.now() - switchReadAt >= SWITCH_REREAD_MS) readSwitch().catch(() => {})
      return !switchedOff
    },

    /** Queues a message; resolves with what became of it (tests and the test route read it, others need not). */
    enqueue (message: PushMessage): Promise<PushOutcome> {
      return new Promise((resolve) => {
        if (closed) return resolve('failed')
        if (waiting() >= config.PUSH_QUEUE_MAX) {
          const oldest = take()
          if (oldest !== undefined) settle(oldest, 'expired')
        }
        queue.push({ message, attempts: 0, settle: resolve })
        pump()
      })
    },

    /** One attempt now, outside the queue and without retries: a member's "send a test" waits for it. */
    async deliverNow (message: PushMessage): Promise<PushOutcome> {
      const item: Waiting = { message, attempts: 0, settle: () => {} }
      const result = await attempt(message)
      const outcome = typeof result === 'string' ? result : 'failed'
      settle(item, outcome)
      return outcome
    },

    /** Called with the id of every subscription a push service said is gone (404, 410). */
    onGone (listener: (subscriptionId: number) => void): void {
      goneListeners.push(listener)
    },

    /** Messages waiting, retries included. */
    depth: () => waiting() + retryTimers.size + active,

    /**
     * Refuses (400) an endpoint that is not https or names a loopback, private or link-local address,
     * directly or through its name, unless its `host:port` is in PUSH_ENDPOINT_HOSTS. The send checks
     * the connected address again (the name may change its answer).
     */
    async checkEndpoint (endpoint: string): Promise<void> {
      const refused = (message: string) => badRequest('Invalid request', { details: [{ field: '/endpoint', message }] })
      let url: URL
      try {
        url = new URL(endpoint)
      } catch {
        throw refused('is not a URL')
      }
      if (url.protocol !== 'https:') throw refused('must be an https address')
      if (url.username !== '' || url.password !== '') throw refused('must not carry a user name or password')
      const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '')
      if (isAllowedEndpointHost(host, url.port === '' ? '443' : url.port)) return
      const addresses = isIP(host) !== 0
        ? [host]
        : await lookup(host, { all: true }).then((found) => found.map((a) => a.address), () => { throw refused('names a host that does not resolve') })
      if (addresses.some(isInsideAddress)) throw refused('is on a private or local network (push services are public)')
    }
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    pushSender: ReturnType<typeof createPushSender>
  }
}

export default decoratorPlugin('push-sender', createPushSender, ['config', 'clock', 'metrics', 'site-settings'])
