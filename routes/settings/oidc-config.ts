import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { mask } from '../../plugins/base/config.js'
import { badRequest, conflict } from '../../plugins/edge/errors.js'
import { errors } from '../../schemas/common.js'
import { OidcConfigSchema } from '../../schemas/sign-in.js'

/**
 * The OIDC side of the admin settings (registered under /api/settings): the read-only configuration
 * card and the guard of the sign-in mode switch.
 */
const oidcSettingsRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config, auth, siteSettings, oidcClient } = fastify

  // SSO mode sends everyone to the provider, so turning it on needs a provider that can work and an
  // admin who said so explicitly. Turning it off (any other value) is always allowed.
  siteSettings.guard('enable_oidc', (write) => {
    if (write.value !== 'true') return
    const missing = oidcClient.missingConfiguration()
    if (missing.length > 0) {
      throw conflict(`SSO mode needs a fully configured OIDC provider; missing: ${missing.join(', ')}.`, { missing })
    }
    if (write.confirm !== true) {
      throw badRequest('Switching to SSO mode makes the login page send everyone straight to the sign-in provider. ' +
        'Repeat the request with "confirm": true to proceed.', { confirmRequired: true })
    }
  })

  fastify.get('/oidc-config', {
    ...auth.adminOnly,
    schema: {
      tags: ['settings'],
      summary: 'The server\'s OIDC configuration, read-only, client id and secret masked (admin)',
      response: { 200: OidcConfigSchema, ...errors(401, 403) }
    }
  }, async () => ({
    configured: oidcClient.isConfigured(),
    enabled: config.OIDC_ENABLED === true,
    forceLocal: config.AUTH_FORCE_LOCAL,
    providerName: config.OIDC_PROVIDER_NAME,
    issuer: config.OIDC_ISSUER,
    authorizationUrl: config.OIDC_AUTHORIZATION_URL,
    tokenUrl: config.OIDC_TOKEN_URL,
    userInfoUrl: config.OIDC_USERINFO_URL,
    endSessionUrl: config.OIDC_END_SESSION_URL,
    revocationUrl: config.OIDC_REVOCATION_URL,
    clientId: mask(config.OIDC_CLIENT_ID),
    clientSecret: mask(config.OIDC_CLIENT_SECRET),
    scopes: config.OIDC_SCOPES,
    requestedScopes: oidcClient.scope(),
    identityClaim: config.OIDC_IDENTITY_CLAIM,
    usernameClaim: config.OIDC_USERNAME_CLAIM,
    avatarClaim: config.OIDC_AVATAR_CLAIM,
    identityType: config.OIDC_IDENTITY_TYPE,
    usePkce: config.OIDC_USE_PKCE,
    tokenEndpointAuthMethod: config.OIDC_TOKEN_AUTH_METHOD,
    useRefreshTokens: config.OIDC_USE_REFRESH_TOKENS,
    accessTokenMinutes: config.OIDC_ACCESS_TOKEN_MINUTES,
    refreshTokenLifetimeDays: config.OIDC_REFRESH_TOKEN_LIFETIME_DAYS,
    revokedRetentionDays: config.OIDC_SESSION_REVOKED_RETENTION_DAYS,
    offlineAccessScope: config.OIDC_OFFLINE_ACCESS_SCOPE
  }))
}

export default oidcSettingsRoutes
