import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { mask, maskPartly } from '../../plugins/data/config.js'
import { errors } from '../../schemas/common.js'
import { DiscordConfigSchema } from '../../schemas/server-profile.js'

/**
 * The read-only chat platform card of the admin settings page: secrets show only their last four
 * characters, identifiers their ends.
 */
const discordConfigRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, config } = fastify
  const admin = { onRequest: [auth.authenticate, auth.requireAdmin] }

  fastify.get('/discord-config', {
    ...admin,
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
}

export default discordConfigRoutes
