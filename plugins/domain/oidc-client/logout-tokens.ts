import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose'
import type { FastifyInstance } from 'fastify'
import type { ProviderMetadata } from '../oidc-client.js'

/** The member of a logout token's `events` claim that makes it a back-channel logout token. */
const BACKCHANNEL_EVENT = 'http://schemas.openid.net/event/backchannel-logout'
/** Logout tokens older than this are refused (and their `jti` need not be remembered longer). */
export const LOGOUT_TOKEN_MAX_AGE_SECONDS = 600

/** A logout token that did not verify; `reason` is safe to log (never the token). */
export class LogoutTokenRefused extends Error {
  constructor (readonly reason: string) {
    super(`logout token refused: ${reason}`)
    this.name = 'LogoutTokenRefused'
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The check of OpenID Connect Back-Channel Logout 1.0 logout tokens, against the provider's key set
 * (fetched and refreshed on an unknown key id by jose). `metadata` is the provider's discovery document.
 */
export function createLogoutTokens ({ config, clock }: Pick<FastifyInstance, 'config' | 'clock'>, metadata: () => Promise<ProviderMetadata>, timeoutMs: number) {
  let jwks: { url: string, set: ReturnType<typeof createRemoteJWKSet> } | undefined

  /**
   * Verifies a logout token (section 2.6): signed by a key of the provider's JWKS (OIDC_JWKS_URL, else
   * the discovery document's), `iss` OIDC_ISSUER, `aud` this client, `iat` within the last ten minutes,
   * `exp` (when present) not passed, a `jti`, the back-channel `events` member, `sid` or `sub`, and no
   * `nonce`. Throws LogoutTokenRefused with a loggable reason.
   */
  return async function verifyLogoutToken (token: string): Promise<{ jti: string, iat: number, sid?: string, sub?: string }> {
    if (config.OIDC_ISSUER === '') throw new LogoutTokenRefused('no_issuer_configured')
    const jwksUrl = config.OIDC_JWKS_URL !== '' ? config.OIDC_JWKS_URL : (await metadata()).jwksUri
    if (jwksUrl === undefined) throw new LogoutTokenRefused('no_jwks')
    jwks ??= { url: jwksUrl, set: createRemoteJWKSet(new URL(jwksUrl), { timeoutDuration: timeoutMs }) }
    if (jwks.url !== jwksUrl) jwks = { url: jwksUrl, set: createRemoteJWKSet(new URL(jwksUrl), { timeoutDuration: timeoutMs }) }
    let payload: JWTPayload
    try {
      ({ payload } = await jwtVerify(token, jwks.set, {
        issuer: config.OIDC_ISSUER,
        audience: config.OIDC_CLIENT_ID,
        requiredClaims: ['iat', 'jti'],
        maxTokenAge: LOGOUT_TOKEN_MAX_AGE_SECONDS,
        clockTolerance: 30,
        currentDate: new Date(clock.now())
      }))
    } catch (error) {
      throw new LogoutTokenRefused((error as { code?: string }).code ?? 'invalid')
    }
    // jose lets `exp` pass within the clock tolerance; a logout token past its own end is refused outright.
    if (typeof payload.exp === 'number' && payload.exp * 1000 <= clock.now()) throw new LogoutTokenRefused('expired')
    const events = payload.events as Record<string, unknown> | undefined
    if (!isObject(events) || !isObject(events[BACKCHANNEL_EVENT])) throw new LogoutTokenRefused('no_logout_event')
    if (payload.nonce !== undefined) throw new LogoutTokenRefused('nonce_present')
    const sid = typeof payload.sid === 'string' && payload.sid !== '' ? payload.sid : undefined
    const sub = typeof payload.sub === 'string' && payload.sub !== '' ? payload.sub : undefined
    if (sid === undefined && sub === undefined) throw new LogoutTokenRefused('no_sid_or_sub')
    if (typeof payload.jti !== 'string' || payload.jti === '' || payload.jti.length > 255) throw new LogoutTokenRefused('bad_jti')
    return { jti: payload.jti, iat: payload.iat as number, ...(sid !== undefined && { sid }), ...(sub !== undefined && { sub }) }
  }
}
