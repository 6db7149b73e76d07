import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { badRequest } from '../../plugins/edge/errors.js'
import { ANONYMOUS_KEYS, HIDDEN_KEYS, READ_ONLY_KEYS, isVisibleToUsers } from '../../plugins/data/site-settings.js'
import { errors } from '../../schemas/common.js'
import { SettingKeySchema, SettingWriteSchema, SiteSettingSchema } from '../../schemas/settings.js'
import { DiscordConfigSchema, TelegramConfigSchema } from '../../schemas/server-profile.js'

/**
 * Site settings: admins read and write everything; users read the public allow-list; the login page reads a
 * few. Beside them, the read-only chat platform and Telegram cards of the admin settings page, masked.
 */
const settingsRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { siteSettings, auth, rateLimits, serverProfile } = fastify

  fastify.get('/discord-config', {
    ...auth.adminOnly,
    schema: { tags: ['settings'], summary: 'The chat platform configuration, masked (admin)', response: { 200: DiscordConfigSchema, ...errors(401, 403) } }
  }, async () => serverProfile.chatPlatformCard())

  fastify.get('/telegram-config', {
    ...auth.adminOnly,
    schema: { tags: ['settings'], summary: 'The Telegram configuration, masked (admin)', response: { 200: TelegramConfigSchema, ...errors(401, 403) } }
  }, async () => serverProfile.telegramCard())

  fastify.get('/', {
    onRequest: auth.authenticate,
    schema: { tags: ['settings'], response: { 200: Type.Array(SiteSettingSchema), ...errors(401) } }
  }, async (request) => {
    const rows = (await siteSettings.list()).filter((row) => !HIDDEN_KEYS.has(row.key))
    return request.user.isAdmin ? rows : rows.filter((row) => isVisibleToUsers(row.key))
  })

  fastify.get('/public', {
    config: { rateLimit: rateLimits.authRead },
    schema: { tags: ['settings'], response: { 200: Type.Array(SiteSettingSchema), ...errors(429) } }
  }, async () => {
    const rows = await siteSettings.list()
    return rows.filter((row) => ANONYMOUS_KEYS.includes(row.key))
  })

  fastify.put('/:key', {
    ...auth.adminOnly,
    config: { audit: { action: 'setting.change', target: (request) => (request.params as { key: string }).key } },
    schema: {
      tags: ['settings'],
      params: Type.Object({ key: SettingKeySchema }),
      body: SettingWriteSchema,
      response: { 200: SiteSettingSchema, ...errors(400, 401, 403, 409) }
    }
  }, async (request) => {
    const { key } = request.params
    if (READ_ONLY_KEYS.has(key)) throw badRequest(`The setting ${key} is managed by the service and cannot be changed.`)
    return siteSettings.set(key, request.body, request)
  })
}

export default settingsRoutes
