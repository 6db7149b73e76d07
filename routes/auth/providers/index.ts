import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { telegramBotUsername, telegramConfigured } from '../../../plugins/data/chat-platform.js'
import { errors } from '../../../schemas/common.js'
import { ProvidersSchema } from '../../../schemas/sign-in.js'

/** Which sign-in methods the login page offers, and whether it skips straight to the provider. */
const providersRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config, siteSettings, oidcClient, rateLimits } = fastify

  fastify.get('/providers', {
    config: { rateLimit: rateLimits.authRead },
    schema: { tags: ['auth'], response: { 200: ProvidersSchema, ...errors(429) } }
  }, async () => {
    const configured = oidcClient.isConfigured()
    const [ssoMode, endSession, discordOn, telegramOn, botUsername] = await Promise.all([
      oidcClient.ssoEnabledByAdmin(),
      oidcClient.singleLogoutAvailable(),
      siteSettings.isNotFalse('enable_discord'),
      siteSettings.isNotFalse('enable_telegram'),
      telegramBotUsername(config, siteSettings)
    ])
    return {
      oidc: {
        configured,
        enabledByAdmin: ssoMode,
        providerName: config.OIDC_PROVIDER_NAME,
        endSession,
        refresh: configured && config.OIDC_USE_REFRESH_TOKENS
      },
      discord: {
        configured: fastify.chatPlatform.oauthConfigured,
        enabledByAdmin: discordOn
      },
      telegram: {
        configured: telegramConfigured(config),
        enabledByAdmin: telegramOn,
        botUsername
      }
    }
  })
}

export default providersRoutes
