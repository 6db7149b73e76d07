import { createHash, randomBytes } from 'node:crypto'
import { and, eq, inArray, isNull, or, sql, type SQL } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { oidcSessions } from '../../../db/schema/service.js'
import { toSqlTime } from '../../../db/client.js'
import { RefreshRefused } from '../../../schemas/refusals.js'
import { OidcClientError } from '../oidc-client.js'
import { decryptToken, type KeyRing } from '../../../lib/refresh-token-keys.js'

/*
 * A refresh family's rows in `oidc_sessions`: the opaque browser tokens, the revocation reasons, and how
 * a family ends (every usable row revoked in one statement, the provider's token revoked after).
 */

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

/** 32 CSPRNG bytes, base64url without padding (43 characters). */
export function newOpaqueToken (): { token: string, hash: string } {
  const token = randomBytes(32).toString('base64url')
  return { token, hash: hashToken(token) }
}

/** Lower-case hex SHA-256 of the token's UTF-8 bytes: the only form the database ever holds. */
export function hashToken (token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex')
}

export const DAY_MS = 86_400_000

export const sessionColumns = {
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

export type SessionRow = Pick<typeof oidcSessions.$inferSelect, keyof typeof sessionColumns>

export const clip = (value: string | undefined, length: number): string | null =>
  value === undefined || value === '' ? null : value.slice(0, length)

export const errorKind = (error: unknown): string =>
  error instanceof Error ? ((error as { code?: unknown }).code as string | undefined) ?? error.name : 'unknown'

/** The loggable parts of a provider failure (never a token or a response body). */
export function providerFailure (error: unknown): Record<string, unknown> {
  if (error instanceof OidcClientError) {
    return { kind: error.failure, ...(error.status !== undefined && { status: error.status }), ...(error.providerError !== undefined && { providerError: error.providerError }) }
  }
  return { kind: errorKind(error) }
}

/** Rows a family revoke must still end: usable ones, and the one a refresh in flight has claimed. */
export const usableOrRotating = () => or(isNull(oidcSessions.revokedAt), eq(oidcSessions.revokedReason, REASON.rotating))

type FamilyDeps = Pick<FastifyInstance, 'db' | 'clock' | 'config' | 'log' | 'cacheEviction' | 'oidcClient'>

/** How families end: revoked here at once, on every instance, and at the provider after. */
export function createFamilyEnds ({ db, clock, config, log, cacheEviction, oidcClient }: FamilyDeps, ring: KeyRing | null) {
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
    // Its access tokens are refused from now on, on every instance (plugins/domain/session-ends.ts).
    await cacheEviction.evict('session-end', `family:${familyId}`)
    return result.affectedRows
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
        await oidcClient.revoke(token)
      } catch (error) {
        log.warn(providerFailure(error), 'provider token revocation failed')
      }
    }))
  }

  return {
    revokeFamily,
    liveTokens,
    revokeAtProvider,

    /** Ends families by id (already known to be the caller's), provider tokens included; returns how many rows ended. */
    async endFamilies (familyIds: string[], reason: string): Promise<number> {
      if (familyIds.length === 0) return 0
      const live = await liveTokens(inArray(oidcSessions.familyId, familyIds))
      let revoked = 0
      for (const familyId of familyIds) revoked += await revokeFamily(familyId, reason)
      if (revoked > 0) log.info({ event: 'LogOidcRefreshFamilyRevoked', reason, families: familyIds.length, revoked }, 'refresh families revoked')
      await revokeAtProvider(live)
      return revoked
    },

    /** Ends the family of a row whose refresh is refused, and throws the refusal. */
    async refuse (row: { familyId: string, userId: string }, reason: string, level: 'info' | 'warn' = 'info'): Promise<never> {
      const revoked = await revokeFamily(row.familyId, reason)
      log[level]({ event: 'LogOidcRefreshFamilyRevoked', reason, familyId: row.familyId, userId: row.userId, revoked }, 'refresh family revoked')
      throw new RefreshRefused(reason)
    }
  }
}

export type FamilyEnds = ReturnType<typeof createFamilyEnds>
