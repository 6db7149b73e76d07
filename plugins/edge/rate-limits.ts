import fp from 'fastify-plugin'
import rateLimit, { normalizeIP, type RateLimitOptions } from '@fastify/rate-limit'
import type { FastifyBaseLogger, FastifyRequest } from 'fastify'
import { RedisLink } from '../../lib/redis-link.js'
import { TtlCache } from '../../lib/ttl-cache.js'
import { systemClock } from '../base/clock.js'

const WINDOW_MS = 60_000

type IncrCallback = (error: Error | null, result?: { current: number, ttl: number }) => void

/** What @fastify/rate-limit asks of a store (fixed window: the first hit opens it, it lasts `windowMs`). */
interface CounterBackend {
  incr: (key: string, windowMs: number) => Promise<{ current: number, ttl: number }>
  close: () => Promise<void>
}

/**
 * Windows kept at most in memory. Past that the oldest window is dropped (its client starts a new one):
 * a cost an attacker pays with 100,000 fresh addresses (IPv6: /64 networks) a minute, rather than memory
 * that grows with every address seen.
 */
const MEMORY_WINDOWS_MAX = 100_000

function memoryCounters (): CounterBackend {
  const windows = new TtlCache<string, { count: number, resetAt: number }>(systemClock, MEMORY_WINDOWS_MAX)
  return {
    async incr (key, windowMs) {
      const now = Date.now()
      let window = windows.get(key)
      if (window === undefined) {
        window = { count: 0, resetAt: now + windowMs }
        windows.setUntil(key, window, window.resetAt)
      }
      window.count++
      return { current: window.count, ttl: window.resetAt - now }
    },
    async close () { windows.clear() }
  }
}

/** INCR and start the window on the first hit, atomically, so instances sharing Redis share one count. */
const FIXED_WINDOW_SCRIPT = `
local current = redis.call('INCR', KEYS[1])
if current == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return { current, ttl }`

/**
 * Counters in Redis, shared by every instance. While Redis is away (stopped at start, lost mid-run, or
 * not answering within its command timeout) each instance counts in its own memory: a command fails
 * at once (lib/redis-link.ts), so a request never waits on Redis, and the limits still hold per instance.
 */
function redisCounters (url: string, log: FastifyBaseLogger): CounterBackend {
  const link = new RedisLink(url, 'rate limits', 'count per instance in memory', log)
  const redis = link.open()
  const memory = memoryCounters()
  return {
    async incr (key, windowMs) {
      if (redis.status !== 'ready') return memory.incr(key, windowMs)
      try {
        const [current, ttl] = await redis.eval(FIXED_WINDOW_SCRIPT, 1, `alarm-web:rl:${key}`, windowMs) as [number, number]
        return { current, ttl }
      } catch {
        return memory.incr(key, windowMs)
      }
    },
    async close () {
      await link.close()
      await memory.close()
    }
  }
}

/**
 * One store for every route: the policy name is part of the key, so all endpoints of a policy share
 * one per-IP counter (as a named policy should), whichever route is hit.
 */
class PolicyStore {
  constructor (private readonly backend: CounterBackend) {}
  incr (key: string, callback: IncrCallback, timeWindow: number): void {
    this.backend.incr(key, timeWindow).then((result) => callback(null, result), (error: Error) => callback(error))
  }

  child (): PolicyStore { return this }
}

export type RateLimitPolicy = Pick<RateLimitOptions, 'max' | 'timeWindow' | 'keyGenerator'>

/** An IPv6 client is its /64 (the network one subscriber gets), or one client would have 2^64 buckets. */
const IPV6_CLIENT_PREFIX = 64

/**
 * Policies keyed by the client address that `trustProxy` resolved (see proxy-trust.ts): never one global
 * bucket, and a forged X-Forwarded-For from an untrusted peer cannot move a client to another bucket.
 * The library's own normalisation: IPv4-mapped IPv6 is IPv4, IPv6 is cut to its /64.
 */
function policy (name: string, max: number): RateLimitPolicy {
  return { max, timeWindow: WINDOW_MS, keyGenerator: (request: FastifyRequest) => `${name}:ip:${normalizeIP(request.ip, IPV6_CLIENT_PREFIX)}` }
}

declare module 'fastify' {
  interface FastifyInstance {
    rateLimits: {
      /** Sign-in endpoints: 30 requests per 60 s per IP by default. */
      auth: RateLimitPolicy
      /** Auth read endpoints: 120 requests per 60 s per IP by default. */
      authRead: RateLimitPolicy
      /**
       * The provider's back-channel logout posts: 600 per 60 s per IP by default, a bucket of their own so
       * a provider ending many sessions at once is not throttled by (nor throttles) members' sign-ins.
       */
      backchannelLogout: RateLimitPolicy
      /** Test alerts: 5 per 60 s per signed-in user (each one makes the engine deliver a message). */
      testAlert: RateLimitPolicy
      /** Template previews: 30 per 60 s per signed-in user (each one has the engine render a message). */
      preview: RateLimitPolicy
      /** Shared-set writes (share, revoke, copy, undo): 20 per 60 s per signed-in user (a copy is a batch of engine writes). */
      shareWrite: RateLimitPolicy
      /** Opening shared sets: 60 per 60 s per signed-in user, so nobody walks through guessed links. */
      shareRead: RateLimitPolicy
      /** A shared set's link page and its preview, without sign-in: 60 per 60 s per IP. */
      sharePreview: RateLimitPolicy
    }
  }
}

/** @see https://github.com/fastify/fastify-rate-limit — routes opt in with `config: { rateLimit: fastify.rateLimits.auth }`. */
export default fp(async (fastify) => {
  const { config } = fastify
  const backend = config.REDIS_URL !== undefined ? redisCounters(config.REDIS_URL, fastify.log) : memoryCounters()
  const store = new PolicyStore(backend)
  await fastify.register(rateLimit, {
    global: false,
    store: function Store () { return store } as unknown as NonNullable<RateLimitOptions['store']>,
    // A store outage must not lock everyone out of signing in.
    skipOnError: true,
    errorResponseBuilder: (_request, context) => ({
      statusCode: context.statusCode,
      error: 'Too many requests. Please try again later.',
      message: 'Too many requests. Please try again later.'
    })
  })
  fastify.decorate('rateLimits', {
    auth: policy('auth', config.RATE_LIMIT_AUTH_MAX),
    authRead: policy('auth-read', config.RATE_LIMIT_AUTH_READ_MAX),
    backchannelLogout: policy('backchannel-logout', config.RATE_LIMIT_BACKCHANNEL_LOGOUT_MAX),
    // Runs after authentication, so the user is known; per user, so one household's IP is not one bucket.
    testAlert: { max: 5, timeWindow: WINDOW_MS, keyGenerator: (request: FastifyRequest) => `test-alert:user:${request.user.userId}` },
    preview: { max: 30, timeWindow: WINDOW_MS, keyGenerator: (request: FastifyRequest) => `preview:user:${request.user.userId}` },
    shareWrite: { max: 20, timeWindow: WINDOW_MS, keyGenerator: (request: FastifyRequest) => `share-write:user:${request.user.userId}` },
    sharePreview: policy('share-preview', 60),
    shareRead: { max: 60, timeWindow: WINDOW_MS, keyGenerator: (request: FastifyRequest) => `share-read:user:${request.user.userId}` }
  })
  fastify.addHook('onClose', async () => { await backend.close() })
}, { name: 'rate-limits', fastify: '5.x', dependencies: ['config'] })
