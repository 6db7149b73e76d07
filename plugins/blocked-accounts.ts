import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { EngineError } from './engine.js'
import { forbidden } from './errors.js'

/** How long an account's block flag is reused before the engine is asked again. */
const BLOCK_TTL_MS = 60_000
/**
 * How long "the engine could not say" is remembered: short, so a block still lands soon after the engine
 * is back, but long enough that an outage (or a hanging engine) does not cost every request an engine
 * call and its timeout.
 */
const OUTAGE_TTL_MS = 10_000

export const BLOCKED_MESSAGE = 'This account has been blocked by an administrator.'

/**
 * Sign-in endpoints stay reachable for blocked accounts: `/api/auth/me` reports the block itself (and
 * shows it as data to an admin impersonating the account), and logout must always work.
 */
function isExempt (path: string): boolean {
  return !path.startsWith('/api/') || path === '/api/auth' || path.startsWith('/api/auth/')
}

function createBlockedAccounts (fastify: FastifyInstance) {
  const { engine, clock } = fastify
  const cache = new Map<string, { blocked: boolean | null, until: number }>()
  /** Lookups under way, shared by concurrent requests of the same user. */
  const pending = new Map<string, Promise<boolean | null>>()

  /**
   * Whether the engine has the account admin-disabled; `null` when that cannot be told right now
   * (engine outage, or the account is gone: the route itself answers for a missing account).
   */
  async function lookUp (userId: string, request: FastifyRequest): Promise<boolean | null> {
    const remember = (blocked: boolean | null, ttl: number) => {
      const now = clock.now()
      if (cache.size > 10_000) for (const [id, entry] of cache) if (entry.until <= now) cache.delete(id)
      cache.set(userId, { blocked, until: now + ttl })
      return blocked
    }
    try {
      const human = await engine.humans.find(userId)
      if (human === null) return null
      return remember(human.admin_disable === 1, BLOCK_TTL_MS)
    } catch (error) {
      // Failing open, as the reference does: an engine outage must not lock every user out of the
      // parts of the service that work without it.
      request.log.warn({ kind: error instanceof EngineError ? error.kind : 'unknown' }, 'block check skipped: the alarm engine could not be asked')
      return remember(null, OUTAGE_TTL_MS)
    }
  }

  /**
   * Whether the engine has the account admin-disabled; `null` when that cannot be told right now
   * (engine outage, or the account is gone: the route itself answers for a missing account).
   */
  async function isBlocked (userId: string, request: FastifyRequest): Promise<boolean | null> {
    const cached = cache.get(userId)
    if (cached !== undefined && cached.until > clock.now()) return cached.blocked
    let lookup = pending.get(userId)
    if (lookup === undefined) {
      lookup = lookUp(userId, request).finally(() => pending.delete(userId))
      pending.set(userId, lookup)
    }
    return lookup
  }

  return {
    isBlocked,
    /** Forgets the cached flag, e.g. right after an admin blocks or unblocks the account. */
    evict (userId: string): void { cache.delete(userId) }
  }
}

export type BlockedAccounts = ReturnType<typeof createBlockedAccounts>

declare module 'fastify' {
  interface FastifyInstance {
    blockedAccounts: BlockedAccounts
  }
}

/**
 * Admin-blocked accounts (`humans.admin_disable`) get 403 on every authenticated `/api` call outside
 * `/api/auth`. A global preHandler does it, so no route can forget: routes authenticate in onRequest,
 * and by preHandler `request.user` is set for every signed-in call. The user id checked is the token's,
 * so an impersonation token is checked as the impersonated account.
 */
export default fp(async (fastify) => {
  const blockedAccounts = createBlockedAccounts(fastify)
  fastify.decorate('blockedAccounts', blockedAccounts)
  fastify.cacheEviction.on('blocked-account', blockedAccounts.evict)
  fastify.addHook('preHandler', async (request) => {
    if (!request.user) return
    // The route pattern, not the raw URL: an encoded or oddly spelled path cannot dodge the check.
    const path = request.routeOptions.url ?? request.url.split('?')[0] ?? ''
    if (isExempt(path)) return
    if (await blockedAccounts.isBlocked(request.user.userId, request) === true) throw forbidden(BLOCKED_MESSAGE)
  })
}, { name: 'blocked-accounts', fastify: '5.x', dependencies: ['auth', 'clock', 'engine', 'cache-eviction'] })
