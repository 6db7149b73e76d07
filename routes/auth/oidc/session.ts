import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { TokenClaims } from '../../../plugins/auth.js'

export interface CompleteSignInInput {
  claims: TokenClaims
  /** The provider's refresh token, when the token response carried one. */
  providerRefreshToken?: string
  issuer: string
  subject: string
}

/**
 * The last step of an OIDC sign-in: mints the service JWT and, when refresh-backed sessions are on and
 * the provider handed out a refresh token, starts a refresh family. The returned fragment is what the
 * callback appends to the SPA redirect (`#token=...[&refresh_token=...]`). The provider's own tokens
 * never go into it: only the opaque handle of the family does.
 */
export async function completeSignIn (
  fastify: FastifyInstance,
  request: FastifyRequest,
  input: CompleteSignInInput
): Promise<{ fragment: URLSearchParams }> {
  const { config, auth, refreshSessions } = fastify
  const fragment = new URLSearchParams()

  if (!config.OIDC_USE_REFRESH_TOKENS) {
    fragment.set('token', auth.mint(input.claims, config.JWT_EXPIRATION_MINUTES).token)
    return { fragment }
  }

  if (input.providerRefreshToken === undefined || input.providerRefreshToken === '') {
    // The provider did not grant offline access (scope refused or not supported): the user gets the
    // ordinary long session instead of a short one that could never be renewed.
    request.log.info({ event: 'LogOidcRefreshUnavailable', userId: input.claims.userId }, 'provider returned no refresh token; issuing a standard session')
    fragment.set('token', auth.mint(input.claims, config.JWT_EXPIRATION_MINUTES).token)
    return { fragment }
  }

  const { refreshToken } = await refreshSessions.startFamily({
    userId: input.claims.userId,
    issuer: input.issuer,
    subject: input.subject,
    providerRefreshToken: input.providerRefreshToken,
    ipAddress: request.ip,
    userAgent: request.headers['user-agent']
  })
  fragment.set('token', auth.mint(input.claims, config.OIDC_ACCESS_TOKEN_MINUTES).token)
  fragment.set('refresh_token', refreshToken)
  return { fragment }
}
