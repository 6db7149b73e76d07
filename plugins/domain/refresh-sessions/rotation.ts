import { and, eq, isNull, sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { oidcSessions } from '../../../db/schema/service.js'
import { fromSqlTime, toSqlTime } from '../../../db/client.js'
import { RefreshRefused, SignInError } from '../../../schemas/refusals.js'
import { engineUnavailable } from '../../../schemas/errors.js'
import type { MintedToken, TokenClaims } from '../../edge/auth.js'
import { decryptToken, encryptToken, type KeyRing } from '../../../lib/refresh-token-keys.js'
import { REASON, clip, errorKind, hashToken, newOpaqueToken, providerFailure, sessionColumns, type FamilyEnds, type SessionRow } from './families.js'

export interface ClientInfo {
  ipAddress?: string | undefined
  userAgent?: string | undefined
}

export interface RefreshGrant extends MintedToken {
  /** The successor opaque token for the browser. */
  refreshToken: string
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

type RotationDeps = Pick<FastifyInstance, 'db' | 'clock' | 'config' | 'log' | 'auth' | 'identity' | 'oidcClient'>

/**
 * One refresh: the opaque token claimed (its row marked ROTATING), the provider and the member asked
 * again, the successor published under the claimed row's lock. `keys` is the key ring while the feature
 * is on; `capMs` the family's absolute lifetime.
 */
export function createRotation ({ db, clock, config, log, auth, identity, oidcClient }: RotationDeps, keys: () => KeyRing, capMs: number, { refuse }: FamilyEnds) {
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

    let tokens: Awaited<ReturnType<typeof oidcClient.refresh>>
    try {
      tokens = await oidcClient.refresh(providerToken, row.issuer)
    } catch (error) {
      log.info({ ...providerFailure(error), familyId: row.familyId }, 'the provider refused or failed the refresh grant')
      throw new RefreshRefused(REASON.provider)
    }
    if (tokens.idTokenSubject !== undefined && tokens.idTokenSubject !== row.subject) throw new RefreshRefused(REASON.subjectChanged)

    let info: Record<string, unknown>
    try {
      info = await oidcClient.userinfo(tokens.accessToken, row.subject)
    } catch (error) {
      log.info({ ...providerFailure(error), familyId: row.familyId }, 'userinfo failed during refresh')
      throw new RefreshRefused(REASON.userinfo)
    }
    // The subject is derived as at sign-in (`sub`, else the identity claim), so a provider whose
    // userinfo has no `sub` keeps working while one that changed it does not.
    const who = oidcClient.mapIdentity(info)
    if (who.subject !== row.subject) throw new RefreshRefused(REASON.subjectChanged)
    if (who.userId !== row.userId) throw new RefreshRefused(REASON.identityChanged)
    let claims: TokenClaims
    try {
      ({ claims } = await identity.signIn({ ...who, method: 'oidc', renewal: true }))
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

  /**
   * Exchanges an opaque token for a new JWT and its successor token (the state table of the spec).
   * Throws RefreshRefused for every refusal; after the claim, every refusal revokes the family.
   */
  return async function refresh (opaqueToken: string, client: ClientInfo = {}): Promise<RefreshGrant> {
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
  }
}
