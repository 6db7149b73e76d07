import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { forbidden } from '../edge/errors.js'
import { TtlCache } from '../../lib/ttl-cache.js'
import { BLOCKED_MESSAGE } from '../../schemas/refusals.js'

/** How long an account's block flag is reused before the engine is asked again. */
const BLOCK_TTL_MS = 60_000
/**
 * How long "the engine could not say" is remembered: short, so a block still lands soon after the engine
 * is back, but long enough that an outage (or a hanging engine) does not cost every request an engine
 * call and its timeout.
 */
const OUTAGE_TTL_MS = 10_000
/**
 * The check's own engine budget: it runs before the route's engine call, so a hanging engine must not
 * cost a request two full ENGINE_TIMEOUT_MS waits; failing open after this is the check's outage rule.
 */
const CHECK_BUDGET_MS = 1500
/** Accounts remembered at most; past that the oldest are asked again. */
const MAX_ACCOUNTS = 50_000

/** Tells the client that this 403 ends the session (unlike a 403 for one action); the login page explains it. */
export const ACCOUNT_BLOCKED_CODE = 'account_blocked'

/**
 * Sign-in endpoints stay reachable for blocked accounts: `/api/auth/me` reports the block itself (and
 * shows it as data to an admin impersonating the account), and logout must always work.
 */
function isExempt (path: string): boolean {
  return !path.startsWith('/api/') || path === '/api/auth' || path.startsWith('/api/auth/')
}

function createBlockedAccounts (fastify: FastifyInstance) {
  const { engine, clock } = fastify
  /** The flag per account; concurrent requests of one user share one lookup. */
  const flags = new TtlCache<string, boolean | null>(clock, MAX_ACCOUNTS)

  /**
   * Failing open, as the reference does: an engine outage must not lock every user out of the parts of
   * the service that work without it.
   */
  async function lookUp (userId: string, request: FastifyRequest): Promise<{ value: boolean | null, ttlMs: number }> {
    return engine.orFallback(async () => {
      const human = await engine.humans.find(userId, { timeoutMs: CHECK_BUDGET_MS })
      if (human === null) return { value: null, ttlMs: 0 }
      return { value: human.admin_disable === 1, ttlMs: BLOCK_TTL_MS }
    }, { log: request.log, message: 'block check skipped: the alarm engine could not be asked', fallback: { value: null, ttlMs: OUTAGE_TTL_MS }, anyError: true })
  }

  return {
    /**
     * Whether the engine has the account admin-disabled; `null` when that cannot be told right now
     * (engine outage, or the account is gone: the route itself answers for a missing account).
     */
    isBlocked (userId: string, request: FastifyRequest): Promise<boolean | null> | boolean | null {
      const known = flags.get(userId)
      return known !== undefined ? known : flags.getOrLoad(userId, () => lookUp(userId, request))
    },
    /** Forgets the cached flag, e.g. right after an admin blocks or unblocks the account. */
    evict (userId: string): void { flags.delete(userId) }
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
  fastify.addHook('preHandler', (request, _reply, done) => {
    // The route pattern, not the raw URL: an encoded or oddly spelled path cannot dodge the check.
    if (!request.user || isExempt(request.routeOptions.url ?? request.url.split('?')[0] ?? '')) return done()
    // A remembered flag answers without a promise: this runs on every signed-in call.
    const blocked = blockedAccounts.isBlocked(request.user.userId, request)
    if (blocked === true) return done(forbidden(BLOCKED_MESSAGE, { code: ACCOUNT_BLOCKED_CODE }))
    if (blocked === false || blocked === null) return done()
    blocked.then((value) => done(value === true ? forbidden(BLOCKED_MESSAGE, { code: ACCOUNT_BLOCKED_CODE }) : undefined), done)
  })
}, { name: 'blocked-accounts', fastify: '5.x', dependencies: ['auth', 'clock', 'engine', 'cache-eviction'] })
