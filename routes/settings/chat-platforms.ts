import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { mask, maskPartly } from '../../plugins/data/config.js'
import { errors } from '../../schemas/common.js'
import { DiscordConfigSchema, TelegramConfigSchema } from '../../schemas/server-profile.js'

/**
 * The read-only chat platform cards of the admin settings page (Discord, Telegram): secrets show only
 * their last four characters, identifiers their ends.
 */
const chatPlatformConfigRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, config } = fastify
  fastify.addHook('onRequest', auth.authenticate)
  fastify.addHook('onRequest', auth.requireAdmin)

  fastify.get('/discord-config', {
    schema: { tags: ['settings'], summary: 'The chat platform configuration, masked (admin)', response: { 200: DiscordConfigSchema, ...errors(401, 403) } }
  }, async () => ({
    clientId: maskPartly(config.DISCORD_CLIENT_ID),
    clientSecret: mask(config.DISCORD_CLIENT_SECRET),
    botToken: mask(config.DISCORD_BOT_TOKEN),
    guildId: maskPartly(config.DISCORD_GUILD_ID),
    geofenceForumChannelId: maskPartly(config.DISCORD_GEOFENCE_FORUM_CHANNEL_ID),
    apiUrl: config.DISCORD_API_URL,
    adminIds: config.PORACLE_ADMIN_IDS
  }))

  fastify.get('/telegram-config', {
    schema: { tags: ['settings'], summary: 'The Telegram configuration, masked (admin)', response: { 200: TelegramConfigSchema, ...errors(401, 403) } }
  }, async () => ({
    botToken: mask(config.TELEGRAM_BOT_TOKEN),
    botUsername: config.TELEGRAM_BOT_USERNAME,
    enabled: config.TELEGRAM_ENABLED === true
  }))
}

export default chatPlatformConfigRoutes
