import { randomUUID } from 'node:crypto'
import fp from 'fastify-plugin'
import { and, desc, eq, sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { oidcSessions } from '../../db/schema/service.js'
import { fromSqlTime, toSqlTime } from '../../db/client.js'
import { RefreshRefused } from '../../schemas/refusals.js'
import { newTokenSid, type TokenClaims } from '../edge/auth.js'
import { encryptToken, loadKeyRing, type KeyRing } from '../../lib/refresh-token-keys.js'
import { DAY_MS, REASON, clip, createFamilyEnds, hashToken, newOpaqueToken, usableOrRotating } from './refresh-sessions/families.js'
import { createRotation, type ClientInfo } from './refresh-sessions/rotation.js'

// The words of refresh sessions other concerns use (the parts are in plugins/domain/refresh-sessions/).
export { REASON, hashToken, newOpaqueToken } from './refresh-sessions/families.js'

export interface StartFamilyInput {
  userId: string
  issuer: string
  subject: string
  providerRefreshToken: string
  /** The provider's session id (`sid` of the id_token), for back-channel logout. */
  providerSid?: string | undefined
  ipAddress?: string | undefined
  userAgent?: string | undefined
}

/** One signed-in device as its owner sees it: a refresh family. */
export interface FamilySummary {
  familyId: string
  firstUsedAt: number
  lastUsedAt: number
  expiresAt: number
  userAgent: string | null
  ipAddress: string | null
}

function createRefreshSessions (fastify: FastifyInstance, ring: KeyRing | null) {
  const { db, clock, config, log, auth, cacheEviction } = fastify
  const capMs = config.OIDC_REFRESH_TOKEN_LIFETIME_DAYS * DAY_MS

  /** The key ring exists only while the feature is on; nothing may be encrypted or decrypted otherwise. */
  function keys (): KeyRing {
    if (ring === null) throw new RefreshRefused('feature_off')
    return ring
  }

  const ends = createFamilyEnds(fastify, ring)
  const { endFamilies, liveTokens, revokeFamily, revokeAtProvider } = ends

  /** A new family for a completed sign-in; returns the opaque token for the browser. */
  async function startFamily (input: StartFamilyInput): Promise<{ refreshToken: string, familyId: string }> {
    const now = clock.now()
    const familyId = randomUUID()
    const { token, hash } = newOpaqueToken()
    const { ciphertext, keyId: kid } = encryptToken(keys(), input.providerRefreshToken, familyId)
    await db.db.insert(oidcSessions).values({
      tokenHash: hash,
      familyId,
      familyIssuedAt: toSqlTime(now),
      userId: input.userId,
      issuer: input.issuer,
      subject: input.subject,
      encryptedRefreshToken: ciphertext,
      encryptionKeyId: kid,
      expiresAt: toSqlTime(now + capMs),
      createdAt: toSqlTime(now),
      ipAddress: clip(input.ipAddress, 45),
      userAgent: clip(input.userAgent, 256),
      providerSid: clip(input.providerSid, 255)
    })
    return { refreshToken: token, familyId }
  }

  return {
    startFamily,

    /**
     * The session a completed OIDC sign-in gets: a JWT of the ordinary lifetime, or, when refresh-backed
     * sessions are on and the provider handed out a refresh token, a short JWT plus the opaque handle of
     * a new family. The provider's own tokens never leave the service.
     */
    async issue (claims: TokenClaims, provider: { refreshToken?: string | undefined, issuer: string, subject: string, sid?: string | undefined }, client: ClientInfo = {}): Promise<{ token: string, refreshToken?: string }> {
      const standalone = () => ({ token: auth.mint({ ...claims, sid: newTokenSid() }, config.JWT_EXPIRATION_MINUTES).token })
      if (!config.OIDC_USE_REFRESH_TOKENS) return standalone()
      if (provider.refreshToken === undefined || provider.refreshToken === '') {
        // The provider did not grant offline access (scope refused or not supported): the user gets the
        // ordinary long session instead of a short one that could never be renewed.
        log.info({ event: 'LogOidcRefreshUnavailable', userId: claims.userId }, 'provider returned no refresh token; issuing a standard session')
        return standalone()
      }
      const { refreshToken, familyId } = await startFamily({
        userId: claims.userId,
        issuer: provider.issuer,
        subject: provider.subject,
        providerRefreshToken: provider.refreshToken,
        providerSid: provider.sid,
        ipAddress: client.ipAddress,
        userAgent: client.userAgent
      })
      return { token: auth.mint({ ...claims, sid: familyId }, config.OIDC_ACCESS_TOKEN_MINUTES).token, refreshToken }
    },

    /** The user's live families, most recently used first: one signed-in device each. */
    async listForUser (userId: string): Promise<FamilySummary[]> {
      const now = toSqlTime(clock.now())
      const rows = await db.db.select({
        familyId: oidcSessions.familyId,
        familyIssuedAt: oidcSessions.familyIssuedAt,
        createdAt: oidcSessions.createdAt,
        expiresAt: oidcSessions.expiresAt,
        userAgent: oidcSessions.userAgent,
        ipAddress: oidcSessions.ipAddress
      }).from(oidcSessions)
        .where(and(eq(oidcSessions.userId, userId), usableOrRotating(), sql`${oidcSessions.expiresAt} > ${now}`))
        .orderBy(desc(oidcSessions.createdAt))
      const seen = new Map<string, FamilySummary>()
      for (const r of rows) {
        if (seen.has(r.familyId)) continue
        seen.set(r.familyId, {
          familyId: r.familyId,
          firstUsedAt: fromSqlTime(r.familyIssuedAt),
          lastUsedAt: fromSqlTime(r.createdAt),
          expiresAt: fromSqlTime(r.expiresAt),
          userAgent: r.userAgent,
          ipAddress: r.ipAddress
        })
      }
      return [...seen.values()]
    },

    /** Ends one of the user's families; false when the user has no such live family. */
    async endFamily (userId: string, familyId: string, reason: string): Promise<boolean> {
      const mine = (await this.listForUser(userId)).some((f) => f.familyId === familyId)
      if (!mine) return false
      await endFamilies([familyId], reason)
      return true
    },

    /** Ends every live family of the user but `keep`; returns how many families ended. */
    async endOthers (userId: string, keep: string | undefined, reason: string): Promise<number> {
      const others = (await this.listForUser(userId)).map((f) => f.familyId).filter((id) => id !== keep)
      await endFamilies(others, reason)
      return others.length
    },

    /**
     * Back-channel logout: ends the families the provider's session `sid` started, or with only `sub`
     * every family of that subject at this issuer. Returns the users whose families ended.
     */
    async endByProviderSession (match: { issuer: string, sid?: string | undefined, subject?: string | undefined }): Promise<string[]> {
      const where = match.sid !== undefined
        ? and(eq(oidcSessions.providerSid, match.sid), ...(match.subject !== undefined ? [eq(oidcSessions.subject, match.subject)] : []))
        : eq(oidcSessions.subject, match.subject ?? '')
      const rows = await db.db.selectDistinct({ familyId: oidcSessions.familyId, userId: oidcSessions.userId, issuer: oidcSessions.issuer })
        .from(oidcSessions).where(and(where, usableOrRotating()))
      // A family recorded without an issuer (the provider never named one) is matched by sid or sub alone.
      const matching = rows.filter((r) => r.issuer === '' || r.issuer === match.issuer)
      await endFamilies(matching.map((r) => r.familyId), REASON.backchannel)
      return [...new Set(matching.map((r) => r.userId))]
    },

    /**
     * Exchanges an opaque token for a new JWT and its successor token (`refresh-sessions/rotation.ts`).
     * Throws RefreshRefused for every refusal; after the claim, every refusal revokes the family.
     */
    refresh: createRotation(fastify, keys, capMs, ends),

    /** Logout: ends the family of any known token (whatever its state) and the provider's token. */
    async revoke (opaqueToken: string): Promise<{ familyId: string, userId: string } | null> {
      const [row] = await db.db.select({ familyId: oidcSessions.familyId, userId: oidcSessions.userId })
        .from(oidcSessions).where(eq(oidcSessions.tokenHash, hashToken(opaqueToken))).limit(1)
      if (row === undefined) return null
      const live = await liveTokens(eq(oidcSessions.familyId, row.familyId))
      const revoked = await revokeFamily(row.familyId, REASON.logout)
      log.info({ event: 'LogOidcRefreshFamilyRevoked', reason: REASON.logout, familyId: row.familyId, userId: row.userId, revoked }, 'refresh family revoked')
      await revokeAtProvider(live)
      return row
    },

    /**
     * Ends every refresh family of a user at once (admin block, delete, or an explicit admin action),
     * rather than waiting for the next renewal to notice. Returns how many usable tokens were revoked.
     */
    async revokeAllForUser (userId: string, reason: string): Promise<number> {
      const live = await liveTokens(eq(oidcSessions.userId, userId))
      const now = toSqlTime(clock.now())
      const [result] = await db.db.update(oidcSessions)
        .set({ revokedAt: sql`COALESCE(${oidcSessions.revokedAt}, ${now})`, revokedReason: reason.slice(0, 32) })
        .where(and(eq(oidcSessions.userId, userId), usableOrRotating()))
      for (const familyId of new Set(live.map((row) => row.familyId))) await cacheEviction.evict('session-end', `family:${familyId}`)
      if (result.affectedRows > 0) log.info({ event: 'LogOidcRefreshFamilyRevoked', reason, userId, revoked: result.affectedRows }, 'all refresh families of a user revoked')
      await revokeAtProvider(live)
      return result.affectedRows
    },

    /**
     * Deletes expired rows, and revoked or rotated rows whose revocation is older than the retention.
     * One raw statement without a table alias: the query builder's aliased DELETE form is rejected by
     * MariaDB. Returns the number of rows deleted.
     */
    async purgeStale (now: number): Promise<number> {
      const result = await db.pool.query(
        'DELETE FROM oidc_sessions WHERE expires_at < ? OR (revoked_at IS NOT NULL AND revoked_at < ?)',
        [toSqlTime(now), toSqlTime(now - config.OIDC_SESSION_REVOKED_RETENTION_DAYS * DAY_MS)]
      ) as { affectedRows: number }
      return result.affectedRows
    }
  }
}

export type RefreshSessions = ReturnType<typeof createRefreshSessions>

declare module 'fastify' {
  interface FastifyInstance {
    refreshSessions: RefreshSessions
  }
}

/**
 * Refresh-backed OIDC sessions: families of rotating opaque tokens in `oidc_sessions`, each carrying the
 * provider's refresh token encrypted at rest. With OIDC_USE_REFRESH_TOKENS off no key is loaded or
 * created and every refresh is refused; logout still ends any family left from when it was on.
 */
export default fp(async (fastify) => {
  let ring: KeyRing | null = null
  if (fastify.config.OIDC_USE_REFRESH_TOKENS) {
    const loaded = await loadKeyRing(fastify.config)
    ring = loaded.ring
    if (loaded.legacyFile !== undefined) fastify.log.info({ path: loaded.legacyFile, keyId: ring.current.id }, 'the provider-token key file of an earlier version still decrypts; new tokens use the configured key')
  }
  fastify.decorate('refreshSessions', createRefreshSessions(fastify, ring))
}, { name: 'refresh-sessions', fastify: '5.x', dependencies: ['config', 'clock', 'db', 'auth', 'identity', 'oidc-client', 'cache-eviction'] })
