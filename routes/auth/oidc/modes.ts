import type { FastifyInstance } from 'fastify'

/**
 * SSO mode: the login page sends everyone to the provider. Opt-in (only an explicit "true" of
 * enable_oidc), and AUTH_FORCE_LOCAL overrides it so that a broken provider cannot lock admins out.
 */
export async function ssoEnabledByAdmin (fastify: FastifyInstance): Promise<boolean> {
  return !fastify.config.AUTH_FORCE_LOCAL && await fastify.siteSettings.isTrue('enable_oidc')
}

/** Single logout: OIDC configured, an end-session URL, and enable_oidc_slo not explicitly "false". */
export async function singleLogoutAvailable (fastify: FastifyInstance): Promise<boolean> {
  return fastify.oidcClient.isConfigured() && fastify.config.OIDC_END_SESSION_URL !== '' &&
    await fastify.siteSettings.isNotFalse('enable_oidc_slo')
}
