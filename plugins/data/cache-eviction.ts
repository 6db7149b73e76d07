import { randomUUID } from 'node:crypto'
import fp from 'fastify-plugin'
import type { FastifyBaseLogger } from 'fastify'
import { RedisLink } from '../../lib/redis-link.js'

/** The per-user caches an admin action can make stale on every instance. */
export type EvictableCache = 'blocked-account' | 'roles' | 'session-end' | 'push-member' | 'member-state'

const CACHES: ReadonlySet<string> = new Set<EvictableCache>(['blocked-account', 'roles', 'session-end', 'push-member', 'member-state'])
const CHANNEL = 'alarm-web:cache-eviction'
const SUBSCRIBE_WAIT_MS = 5_000

interface EvictionMessage { from: string, cache: EvictableCache, key: string }

function parse (raw: string): EvictionMessage | null {
  try {
    const message = JSON.parse(raw) as Partial<EvictionMessage>
    if (typeof message.from !== 'string' || typeof message.key !== 'string' || !CACHES.has(message.cache ?? '')) return null
    return message as EvictionMessage
  } catch {
    return null
  }
}

function createCacheEviction (log: FastifyBaseLogger, redisUrl: string | undefined) {
  const instanceId = randomUUID()
  const handlers = new Map<EvictableCache, Array<(key: string) => void>>()
  const link = redisUrl === undefined ? null : new RedisLink(redisUrl, 'cache eviction', 'reaches this instance only (others forget within their TTL)', log)
  // Publishing fails at once while Redis is away, so an admin's block never waits on it.
  const publisher = link?.open() ?? null
  // A connection in subscriber mode can do nothing else, hence the second one. Its subscription waits
  // for Redis (queued, no command timeout) and is renewed by ioredis after every reconnection. No ready
  // check: ioredis writes SUBSCRIBE before its INFO check answers, which then fails in subscriber mode
  // and drops the connection (and the subscription) at random.
  const subscriber = link?.open({ enableOfflineQueue: true, maxRetriesPerRequest: null, commandTimeout: undefined, enableReadyCheck: false }) ?? null

  function evictLocally (cache: EvictableCache, key: string): void {
    for (const handler of handlers.get(cache) ?? []) handler(key)
  }

  return {
    /** A cache registers how to forget one key; evictions published anywhere then reach it. */
    on (cache: EvictableCache, handler: (key: string) => void): void {
      handlers.set(cache, [...(handlers.get(cache) ?? []), handler])
    },

    /**
     * Forgets `key` in this instance at once and, with Redis, in every other instance. A Redis outage
     * is logged, not thrown: the admin's write has happened, and the other instances' entries still
     * expire within their TTL.
     */
    async evict (cache: EvictableCache, key: string): Promise<void> {
      evictLocally(cache, key)
      if (publisher === null) return
      // While Redis is away the link has said so once; a line per eviction would only repeat it.
      if (publisher.status !== 'ready') return
      try {
        await publisher.publish(CHANNEL, JSON.stringify({ from: instanceId, cache, key } satisfies EvictionMessage))
      } catch (err) {
        log.warn({ cache, reason: (err as Error).message }, 'cache eviction could not be published; other instances forget within the TTL')
      }
    },

    /**
     * Subscribes to other instances' evictions. Waits a few seconds for Redis to confirm, so an instance
     * that answers requests is already listening; an unreachable Redis does not stop start-up (the
     * subscription completes whenever Redis comes back).
     */
    async start (): Promise<void> {
      if (subscriber === null) return
      subscriber.on('message', (channel: string, raw: string) => {
        const message = channel === CHANNEL ? parse(raw) : null
        if (message !== null && message.from !== instanceId) evictLocally(message.cache, message.key)
      })
      const subscribed = subscriber.subscribe(CHANNEL).then(() => true, () => false)
      // A refused connection needs no waiting: the link has already said Redis is unreachable.
      const refused = new Promise<false>((resolve) => subscriber.once('error', () => { resolve(false) }))
      const confirmed = await Promise.race([subscribed, refused, new Promise<false>((resolve) => setTimeout(resolve, SUBSCRIBE_WAIT_MS, false).unref())])
      if (!confirmed && link?.up === true) log.warn('cache eviction: Redis did not confirm the subscription yet; other instances\' evictions may be missed until it does')
    },

    async close (): Promise<void> {
      await link?.close()
    }
  }
}

export type CacheEviction = ReturnType<typeof createCacheEviction>

declare module 'fastify' {
  interface FastifyInstance {
    cacheEviction: CacheEviction
  }
}

/**
 * Cross-instance eviction of per-user caches (blocked flag, admin/delegation roles). Several instances
 * behind one load balancer each cache these for a minute; with REDIS_URL an admin's block or grant
 * change is published on a Redis channel and every instance forgets the entry at once. Without Redis
 * only the instance that served the admin forgets; the others follow within the cache's TTL.
 */
export default fp(async (fastify) => {
  const cacheEviction = createCacheEviction(fastify.log, fastify.config.REDIS_URL)
  fastify.decorate('cacheEviction', cacheEviction)
  fastify.addHook('onReady', async () => { await cacheEviction.start() })
  fastify.addHook('onClose', async () => { await cacheEviction.close() })
}, { name: 'cache-eviction', fastify: '5.x', dependencies: ['config'] })
