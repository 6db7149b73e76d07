import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { mask } from '../../plugins/data/config.js'
import { errors } from '../../schemas/common.js'
import { TelegramConfigSchema } from '../../schemas/server-profile.js'

/** The read-only Telegram card of the admin settings page: the bot token shows only its last four characters. */
const telegramConfigRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, config } = fastify
  const admin = { onRequest: [auth.authenticate, auth.requireAdmin] }

  fastify.get('/telegram-config', {
    ...admin,
    schema: { tags: ['settings'], summary: 'The Telegram configuration, masked (admin)', response: { 200: TelegramConfigSchema, ...errors(401, 403) } }
  }, async () => ({
    botToken: mask(config.TELEGRAM_BOT_TOKEN),
    botUsername: config.TELEGRAM_BOT_USERNAME,
    enabled: config.TELEGRAM_ENABLED === true
  }))
}

export default telegramConfigRoutes
