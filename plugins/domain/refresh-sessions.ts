import { createHash, randomBytes, randomUUID } from 'node:crypto'
import fp from 'fastify-plugin'
import { and, desc, eq, inArray, isNull, or, sql, type SQL } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { oidcSessions } from '../../db/schema/service.js'
import { fromSqlTime, toSqlTime } from '../../db/client.js'
import { RefreshRefused, SignInError } from '../../schemas/refusals.js'
import { engineUnavailable } from '../../schemas/errors.js'
import { OidcClientError } from './oidc-client.js'
import { newTokenSid, type MintedToken, type TokenClaims } from '../edge/auth.js'
import { decryptToken, encryptToken, loadKeyRing, type KeyRing } from '../../lib/refresh-token-keys.js'

const DAY_MS = 86_400_000

/**
 * `revoked_reason` values. ROTATING marks a row whose token has been consumed by a refresh that is still
 * talking to the provider: it is not usable, and a family revoke overwrites the mark, which is how the
 * in-flight refresh learns (under a row lock) that it must not publish its successor.
 */
export const REASON = {
  rotating: 'rotating',
  rotation: 'rotation',
  logout: 'logout',
  replay: 'replay_detected',
  cap: 'absolute_cap',
  decrypt: 'decrypt_failed',
  provider: 'provider_revoked',
  userinfo: 'userinfo_failed',
  subjectChanged: 'subject_changed',
  identityChanged: 'identity_changed',
  adminRevoked: 'admin_revoked',
  userEnded: 'user_ended',
  backchannel: 'backchannel_logout'
} as const

// ---------------------------------------------------------------------------------------------------
// Opaque browser tokens

/** 32 CSPRNG bytes, base64url without padding (43 characters). */
export function newOpaqueToken (): { token: string, hash: string } {
  const token = randomBytes(32).toString('base64url')
  return { token, hash: hashToken(token) }
}

/** Lower-case hex SHA-256 of the token's UTF-8 bytes: the only form the database ever holds. */
export function hashToken (token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex')
}

// ---------------------------------------------------------------------------------------------------
// The service

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

export interface ClientInfo {
  ipAddress?: string | undefined
  userAgent?: string | undefined
}

export interface RefreshGrant extends MintedToken {
  /** The successor opaque token for the browser. */
  refreshToken: string
}

const sessionColumns = {
  id: oidcSessions.id,
  familyId: oidcSessions.familyId,
  familyIssuedAt: oidcSessions.familyIssuedAt,
  userId: oidcSessions.userId,
  issuer: oidcSessions.issuer,
  subject: oidcSessions.subject,
  encryptedRefreshToken: oidcSessions.encryptedRefreshToken,
  encryptionKeyId: oidcSessions.encryptionKeyId,
  expiresAt: oidcSessions.expiresAt,
  revokedAt: oidcSessions.revokedAt,
  revokedReason: oidcSessions.revokedReason,
  providerSid: oidcSessions.providerSid
}

const clip = (value: string | undefined, length: number): string | null =>
  value === undefined || value === '' ? null : value.slice(0, length)

const errorKind = (error: unknown): string =>
  error instanceof Error ? ((error as { code?: unknown }).code as string | undefined) ?? error.name : 'unknown'

/** The loggable parts of a provider failure (never a token or a response body). */
function providerFailure (error: unknown): Record<string, unknown> {
  if (error instanceof OidcClientError) {
    return { kind: error.failure, ...(error.status !== undefined && { status: error.status }), ...(error.providerError !== undefined && { providerError: error.providerError }) }
  }
  return { kind: errorKind(error) }
}

/** How long a browser is told to wait before it asks again after an engine outage postponed its refresh. */
export const POSTPONED_RETRY_SECONDS = 5

/**
 * The engine could not be asked whether the member may still sign in (down, hanging, 5xx): not a
 * refusal. Carries the provider's newest refresh token, which the claim's undo keeps.
 */
class EngineCheckUnavailable extends Error {
  constructor (readonly providerToken: string) {
    super('the alarm engine could not be asked during a refresh')
  }
}

/** Refusal of a rotation whose family was revoked by someone else while it ran: nothing left to revoke. */
const REVOKED_MEANWHILE = 'revoked_during_rotation'

/** Rows a family revoke must still end: usable ones, and the one a refresh in flight has claimed. */
const usableOrRotating = () => or(isNull(oidcSessions.revokedAt), eq(oidcSessions.revokedReason, REASON.rotating))

type SessionRow = Pick<typeof oidcSessions.$inferSelect, keyof typeof sessionColumns>

function createRefreshSessions (fastify: FastifyInstance, ring: KeyRing | null) {
  const { db, clock, config, log, auth, identity } = fastify
  const capMs = config.OIDC_REFRESH_TOKEN_LIFETIME_DAYS * DAY_MS

  /** The key ring exists only while the feature is on; nothing may be encrypted or decrypted otherwise. */
  function keys (): KeyRing {
    if (ring === null) throw new RefreshRefused('feature_off')
    return ring
  }

  /**
   * Revokes every row of the family that is still usable, and the row of a rotation in flight (its
   * ROTATING mark is overwritten). One statement, so the refusal that follows is never visible before
   * the family is dead. Rows rotated earlier keep their own reason and time.
   */
  async function revokeFamily (familyId: string, reason: string): Promise<number> {
    const now = toSqlTime(clock.now())
    const [result] = await db.db.update(oidcSessions)
      .set({ revokedAt: sql`COALESCE(${oidcSessions.revokedAt}, ${now})`, revokedReason: reason })
      .where(and(eq(oidcSessions.familyId, familyId), usableOrRotating()))
    // Its access tokens are refused from now on, on every instance (plugins/session-ends.ts).
    await fastify.cacheEviction.evict('session-end', `family:${familyId}`)
    return result.affectedRows
  }

  /** Ends families by id (already known to be the caller's), provider tokens included; returns how many rows ended. */
  async function endFamilies (familyIds: string[], reason: string): Promise<number> {
    if (familyIds.length === 0) return 0
    const live = await liveTokens(inArray(oidcSessions.familyId, familyIds))
    let revoked = 0
    for (const familyId of familyIds) revoked += await revokeFamily(familyId, reason)
    if (revoked > 0) log.info({ event: 'LogOidcRefreshFamilyRevoked', reason, families: familyIds.length, revoked }, 'refresh families revoked')
    await revokeAtProvider(live)
    return revoked
  }

  async function refuse (row: { familyId: string, userId: string }, reason: string, level: 'info' | 'warn' = 'info'): Promise<never> {
    const revoked = await revokeFamily(row.familyId, reason)
    log[level]({ event: 'LogOidcRefreshFamilyRevoked', reason, familyId: row.familyId, userId: row.userId, revoked }, 'refresh family revoked')
    throw new RefreshRefused(reason)
  }

  /**
   * An engine outage signs nobody out: the claim is undone (the row usable again, carrying the provider's
   * newest refresh token, which the provider may just have rotated), nothing is revoked, so the member's
   * access token stays valid and the same opaque token renews once the engine answers. A family revoked
   * while the engine was being asked (a block, a logout, a replay) stays revoked: its mark is gone, so
   * nothing matches. Answers 503 with Retry-After.
   */
  async function postpone (row: SessionRow, providerToken: string, ringNow: KeyRing): Promise<never> {
    const carried = encryptToken(ringNow, providerToken, row.familyId)
    const [undone] = await db.db.update(oidcSessions)
      .set({ revokedAt: null, revokedReason: null, replacedByHash: null, encryptedRefreshToken: carried.ciphertext, encryptionKeyId: carried.keyId })
      .where(and(eq(oidcSessions.id, row.id), eq(oidcSessions.revokedReason, REASON.rotating)))
    if (undone.affectedRows !== 1) {
      log.warn({ event: 'LogOidcRefreshFamilyRevoked', reason: REVOKED_MEANWHILE, familyId: row.familyId, userId: row.userId }, 'family revoked while its refresh was in flight')
      throw new RefreshRefused(REVOKED_MEANWHILE)
    }
    log.warn({ event: 'LogOidcRefreshPostponed', familyId: row.familyId, userId: row.userId }, 'the alarm engine could not be asked: refresh postponed, the family is kept')
    throw Object.assign(engineUnavailable(), { headers: { 'retry-after': String(POSTPONED_RETRY_SECONDS) } })
  }

  /** The encrypted provider token of each usable row of the families given (normally one per family). */
  async function liveTokens (where: SQL): Promise<Array<{ familyId: string, encryptedRefreshToken: string, encryptionKeyId: string }>> {
    return db.db.select({
      familyId: oidcSessions.familyId,
      encryptedRefreshToken: oidcSessions.encryptedRefreshToken,
      encryptionKeyId: oidcSessions.encryptionKeyId
    }).from(oidcSessions).where(and(where, usableOrRotating()))
  }

  /**
   * RFC 7009 at the provider for tokens of families just ended locally. Best effort: the local revoke
   * already ended the session; a provider that cannot be reached only keeps a grant nobody can use.
   */
  async function revokeAtProvider (rows: Array<{ familyId: string, encryptedRefreshToken: string, encryptionKeyId: string }>): Promise<void> {
    if (ring === null || config.OIDC_REVOCATION_URL === '') return
    const tokens = new Set<string>()
    for (const row of rows) {
      try {
        tokens.add(decryptToken(ring, row.encryptedRefreshToken, row.encryptionKeyId, row.familyId))
      } catch {
        log.warn({ familyId: row.familyId }, 'a provider refresh token could not be decrypted for revocation')
      }
    }
    await Promise.all([...tokens].map(async (token) => {
      try {
        await fastify.oidcClient.revoke(token)
      } catch (error) {
        log.warn(providerFailure(error), 'provider token revocation failed')
      }
    }))
  }

  /**
   * Everything after the claim: the provider, the user, then publishing the successor. Throws
   * RefreshRefused or SignInError for a refusal; the caller revokes the family for either.
   */
  async function renew (row: SessionRow, successor: { token: string, hash: string }, ringNow: KeyRing, now: number, client: ClientInfo): Promise<RefreshGrant> {
    let providerToken: string
    try {
      providerToken = decryptToken(ringNow, row.encryptedRefreshToken, row.encryptionKeyId, row.familyId)
    } catch {
      throw new RefreshRefused(REASON.decrypt)
    }

    let tokens: Awaited<ReturnType<typeof fastify.oidcClient.refresh>>
    try {
      tokens = await fastify.oidcClient.refresh(providerToken, row.issuer)
    } catch (error) {
      log.info({ ...providerFailure(error), familyId: row.familyId }, 'the provider refused or failed the refresh grant')
      throw new RefreshRefused(REASON.provider)
    }
    if (tokens.idTokenSubject !== undefined && tokens.idTokenSubject !== row.subject) throw new RefreshRefused(REASON.subjectChanged)

    let info: Record<string, unknown>
    try {
      info = await fastify.oidcClient.userinfo(tokens.accessToken, row.subject)
    } catch (error) {
      log.info({ ...providerFailure(error), familyId: row.familyId }, 'userinfo failed during refresh')
      throw new RefreshRefused(REASON.userinfo)
    }
    // The subject is derived as at sign-in (`sub`, else the identity claim), so a provider whose
    // userinfo has no `sub` keeps working while one that changed it does not.
    const who = fastify.oidcClient.mapIdentity(info)
    if (who.subject !== row.subject) throw new RefreshRefused(REASON.subjectChanged)
    if (who.userId !== row.userId) throw new RefreshRefused(REASON.identityChanged)
    let claims: TokenClaims
    try {
      ({ claims } = await identity.signIn({
        userId: who.userId,
        method: 'oidc',
        renewal: true,
        ...(who.username !== undefined && { username: who.username }),
        ...(who.avatarUrl !== undefined && { avatarUrl: who.avatarUrl })
      }))
    } catch (error) {
      if (error instanceof SignInError && error.reason === 'engine_unavailable') throw new EngineCheckUnavailable(tokens.refreshToken ?? providerToken)
      throw error
    }

    const familyIssuedAt = fromSqlTime(row.familyIssuedAt)
    const nowSql = toSqlTime(now)
    const carried = encryptToken(ringNow, tokens.refreshToken ?? providerToken, row.familyId)
    const published = await db.transaction(async (tx) => {
      // Finishing the claimed row first takes its row lock and checks its mark in one statement. A
      // family revoke that ran while the provider was being asked has overwritten the mark: nothing
      // matches and the successor must never exist. A revoke arriving now waits for this commit, then
      // finds the successor through the family index and ends it as well.
      const [finished] = await tx.update(oidcSessions).set({ revokedReason: REASON.rotation })
        .where(and(eq(oidcSessions.id, row.id), eq(oidcSessions.revokedReason, REASON.rotating)))
      if (finished.affectedRows !== 1) return false
      await tx.insert(oidcSessions).values({
        tokenHash: successor.hash,
        familyId: row.familyId,
        familyIssuedAt: row.familyIssuedAt,
        userId: row.userId,
        issuer: row.issuer,
        subject: row.subject,
        encryptedRefreshToken: carried.ciphertext,
        encryptionKeyId: carried.keyId,
        // Renewal never extends a family: every row ends at the family's cap.
        expiresAt: toSqlTime(familyIssuedAt + capMs),
        createdAt: nowSql,
        ipAddress: clip(client.ipAddress, 45),
        userAgent: clip(client.userAgent, 256),
        providerSid: row.providerSid
      })
      return true
    })
    if (!published) {
      log.warn({ event: 'LogOidcRefreshFamilyRevoked', reason: REVOKED_MEANWHILE, familyId: row.familyId, userId: row.userId }, 'family revoked while its refresh was in flight')
      throw new RefreshRefused(REVOKED_MEANWHILE)
    }
    return { ...auth.mint({ ...claims, sid: row.familyId }, config.OIDC_ACCESS_TOKEN_MINUTES), refreshToken: successor.token }
  }

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
     * Exchanges an opaque token for a new JWT and its successor token (the state table of the spec).
     * Throws RefreshRefused for every refusal; after the claim, every refusal revokes the family.
     */
    async refresh (opaqueToken: string, client: ClientInfo = {}): Promise<RefreshGrant> {
      const ringNow = keys()
      const now = clock.now()
      const [row] = await db.db.select(sessionColumns).from(oidcSessions).where(eq(oidcSessions.tokenHash, hashToken(opaqueToken))).limit(1)
      if (row === undefined) throw new RefreshRefused('unknown_token')

      // A consumed token presented again (a rotated one, one being rotated right now, or a revoked one)
      // means two parties hold the family: end it for both.
      if (row.revokedAt !== null) return refuse(row, REASON.replay, 'warn')
      const familyIssuedAt = fromSqlTime(row.familyIssuedAt)
      if (familyIssuedAt + capMs <= now) return refuse(row, REASON.cap)
      if (fromSqlTime(row.expiresAt) <= now) throw new RefreshRefused('expired')

      const successor = newOpaqueToken()
      const nowSql = toSqlTime(now)
      const [claim] = await db.db.update(oidcSessions)
        .set({ revokedAt: nowSql, revokedReason: REASON.rotating, replacedByHash: successor.hash })
        .where(and(eq(oidcSessions.id, row.id), isNull(oidcSessions.revokedAt), sql`${oidcSessions.expiresAt} > ${nowSql}`))
      // Someone else consumed the token between the read and the claim: that is a replay too.
      if (claim.affectedRows !== 1) return refuse(row, REASON.replay, 'warn')

      try {
        return await renew(row, successor, ringNow, now, client)
      } catch (error) {
        // The token is spent from here on, so whatever went wrong ends the family, but an engine outage.
        if (error instanceof RefreshRefused && error.reason === REVOKED_MEANWHILE) throw error
        if (error instanceof EngineCheckUnavailable) return postpone(row, error.providerToken, ringNow)
        if (error instanceof RefreshRefused) return refuse(row, error.reason)
        if (error instanceof SignInError) return refuse(row, error.reason)
        log.error({ kind: errorKind(error), familyId: row.familyId }, 'refresh failed unexpectedly')
        return refuse(row, 'internal_error')
      }
    },

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
      for (const familyId of new Set(live.map((row) => row.familyId))) await fastify.cacheEviction.evict('session-end', `family:${familyId}`)
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
