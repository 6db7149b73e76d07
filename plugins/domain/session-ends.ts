import fp from 'fastify-plugin'
import { and, eq, isNull, or, sql } from 'drizzle-orm'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { logoutTokenUses, oidcSessions, sessionCutoffs } from '../../db/schema/service.js'
import { fromSqlTime, toSqlTime } from '../../db/client.js'
import { TtlCache } from '../../lib/ttl-cache.js'
import { unauthorized } from '../edge/errors.js'
import type { SessionUser } from '../edge/auth.js'

/** How long a cutoff or a family's liveness is reused; an end published through Redis evicts at once. */
const ANSWER_TTL_MS = 60_000
/** Keys remembered at most; past that the oldest are read again. */
const MAX_KEYS = 50_000
/** The longest an impersonation may last, whatever JWT_EXPIRATION_MINUTES says. */
export const IMPERSONATION_MAX_MINUTES = 60
/** Tolerated clock difference, as for the token's own times. */
const TOLERANCE_SECONDS = 30

export const ENDED_MESSAGE = 'This sign-in has ended. Please sign in again.'

/** Whether a session id names a refresh family (a UUID) rather than a sign-in without one (`t.<uuid>`). */
export const isFamilySid = (sid: string): boolean => !sid.startsWith('t.')

const userKey = (userId: string) => `user:${userId}`
const sidKey = (sid: string) => `sid:${sid}`

function createSessionEnds (fastify: FastifyInstance) {
  const { db, clock, cacheEviction, identity } = fastify
  /** Cutoff per key, seconds since the epoch, and the sign-in it spares (null: no cutoff). */
  const cutoffs = new TtlCache<string, { at: number, keep: string | null } | null>(clock, MAX_KEYS)
  /** Whether a refresh family still has a usable row. */
  const families = new TtlCache<string, boolean>(clock, MAX_KEYS)
  cacheEviction.on('session-end', (key) => {
    if (key.startsWith('family:')) families.delete(key.slice('family:'.length))
    else cutoffs.delete(key)
  })

  async function cutoff (key: string): Promise<{ at: number, keep: string | null } | null> {
    return cutoffs.getOrLoad(key, async () => {
      const [row] = await db.db.select({ notBefore: sessionCutoffs.notBefore, keepSid: sessionCutoffs.keepSid }).from(sessionCutoffs).where(eq(sessionCutoffs.key, key)).limit(1)
      return { value: row === undefined ? null : { at: fromSqlTime(row.notBefore) / 1000, keep: row.keepSid }, ttlMs: ANSWER_TTL_MS }
    })
  }

  async function familyLive (familyId: string): Promise<boolean> {
    return families.getOrLoad(familyId, async () => {
      const [row] = await db.db.select({ id: oidcSessions.id }).from(oidcSessions)
        .where(and(eq(oidcSessions.familyId, familyId), or(isNull(oidcSessions.revokedAt), eq(oidcSessions.revokedReason, 'rotating')),
          sql`${oidcSessions.expiresAt} > ${toSqlTime(clock.now())}`)).limit(1)
      return { value: row !== undefined, ttlMs: ANSWER_TTL_MS }
    })
  }

  /** Whether a token of `userId` issued at `iat` in session `sid` is still a live sign-in. */
  async function sessionLive (userId: string, sid: string | undefined, iat: number): Promise<boolean> {
    if (sid !== undefined && isFamilySid(sid)) return familyLive(sid)
    const [forUser, forSid] = await Promise.all([cutoff(userKey(userId)), sid === undefined ? null : cutoff(sidKey(sid))])
    // An ended sign-in stays ended whatever its tokens' times; a user cutoff ends what was issued up to it.
    const userOk = forUser === null || iat > forUser.at || (sid !== undefined && sid === forUser.keep)
    return userOk && forSid === null
  }

  async function setCutoff (key: string, keepSid: string | null = null): Promise<void> {
    const now = toSqlTime(clock.now())
    await db.db.insert(sessionCutoffs).values({ key, notBefore: now, keepSid }).onDuplicateKeyUpdate({ set: { notBefore: now, keepSid } })
    await cacheEviction.evict('session-end', key)
  }

  return {
    sessionLive,

    /**
     * Every check a token's claims cannot answer: its sign-in was not ended; an impersonation is at most
     * an hour long, its actor's own session is live and the actor may still act as the account (admin
     * rights or the delegation, resolved live with the cached, cross-instance-evicted roles).
     */
    async check (user: SessionUser): Promise<void> {
      if (!await sessionLive(user.userId, user.sid, user.iat)) throw unauthorized(ENDED_MESSAGE)
      const actor = user.impersonatedBy
      if (actor === undefined) return
      const nowSeconds = clock.now() / 1000
      if (user.exp - nowSeconds > IMPERSONATION_MAX_MINUTES * 60 + TOLERANCE_SECONDS) throw unauthorized(ENDED_MESSAGE)
      if (!await sessionLive(actor, user.impersonatorSid, user.iat)) throw unauthorized(ENDED_MESSAGE)
      const roles = await identity.roles(actor)
      const allowed = roles.isAdmin || (roles.managedWebhooks ?? []).includes(user.userId)
      // An outage that left the answer incomplete does not end anyone's work; a clean "no" does.
      if (!allowed && roles.resolved) throw unauthorized(ENDED_MESSAGE)
    },

    /** Ends one sign-in without a refresh family (a token's `sid`), on every instance. */
    async endSid (sid: string): Promise<void> {
      await setCutoff(sidKey(sid))
    },

    /** Ends every sign-in of the user that has no refresh family (but `keepSid`), on every instance. */
    async endUserTokens (userId: string, keepSid?: string): Promise<void> {
      await setCutoff(userKey(userId), keepSid ?? null)
    },

    /** Tells every instance that a refresh family just ended (its access tokens stop at once). */
    async familyEnded (familyId: string): Promise<void> {
      await cacheEviction.evict('session-end', `family:${familyId}`)
    },

    /** Records a back-channel logout token's `jti`; false when it was used before (a replay). */
    async firstUseOfLogoutToken (jti: string, expiresAt: number): Promise<boolean> {
      const [result] = await db.db.insert(logoutTokenUses).ignore().values({ jti, expiresAt: toSqlTime(expiresAt) })
      return result.affectedRows === 1
    },

    /** Deletes cutoffs older than any token they could still refuse. */
    async purgeStale (now: number): Promise<number> {
      const longestMs = Math.max(fastify.config.JWT_EXPIRATION_MINUTES, fastify.config.OIDC_ACCESS_TOKEN_MINUTES) * 60_000 + 86_400_000
      // Raw: the query builder's aliased DELETE form is rejected by MariaDB.
      const cutoffs = await db.pool.query('DELETE FROM session_cutoffs WHERE not_before < ?', [toSqlTime(now - longestMs)]) as { affectedRows: number }
      const uses = await db.pool.query('DELETE FROM logout_token_uses WHERE expires_at < ?', [toSqlTime(now)]) as { affectedRows: number }
      return cutoffs.affectedRows + uses.affectedRows
    }
  }
}

export type SessionEnds = ReturnType<typeof createSessionEnds>

declare module 'fastify' {
  interface FastifyInstance {
    sessionEnds: SessionEnds
  }
}

/**
 * Ended sign-ins are refused on every request: a global preHandler (like the block check) asks, for
 * every signed-in call, whether the token's sign-in (refresh family, or cutoff of a sign-in without one)
 * is still live and whether an impersonation may go on. Answers are cached a minute per key and evicted
 * on every instance when a session ends.
 */
export default fp(async (fastify) => {
  const sessionEnds = createSessionEnds(fastify)
  fastify.decorate('sessionEnds', sessionEnds)
  fastify.addHook('preHandler', async (request: FastifyRequest) => {
    if (request.user !== undefined && request.user !== null) await sessionEnds.check(request.user)
  })
}, { name: 'session-ends', fastify: '5.x', dependencies: ['auth', 'clock', 'db', 'identity', 'cache-eviction'] })
