import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { badRequest, unauthorized } from '../../../plugins/edge/errors.js'
import { telegramBotUsername, telegramConfigured } from '../../../plugins/data/chat-platform.js'
import { userInfo } from '../../../plugins/domain/identity.js'
import { SignInError } from '../../../schemas/refusals.js'
import { newTokenSid } from '../../../plugins/edge/auth.js'
import { errors } from '../../../schemas/common.js'
import { TelegramConfigSchema, TelegramSignInSchema } from '../../../schemas/session-user.js'
import { FUTURE_SKEW_SECONDS, MAX_AGE_SECONDS, hashMatches } from './widget.js'

const Digits = (max: number) => Type.String({ pattern: `^[0-9]{1,${max}}$` })
const Text = (maxLength: number) => Type.Optional(Type.String({ maxLength }))

/** The login widget's fields exactly as Telegram hands them to the page (ids and dates as numbers or digit strings). */
const WidgetBodySchema = Type.Object({
  id: Type.Union([Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), Digits(16)]),
  first_name: Text(256),
  last_name: Text(256),
  username: Text(64),
  photo_url: Text(2048),
  auth_date: Type.Union([Type.Integer({ minimum: 0, maximum: 99_999_999_999 }), Digits(11)]),
  hash: Type.String({ pattern: '^[0-9a-fA-F]{64}$' })
}, { additionalProperties: false })

/** Telegram login widget: `POST /verify` checks the signed widget data; `GET /config` feeds the login page. */
const telegramRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config, clock, auth, identity, siteSettings, rateLimits } = fastify
  const enabled = telegramConfigured(config)

  fastify.post('/verify', {
    config: { rateLimit: rateLimits.auth },
    schema: {
      tags: ['auth'],
      summary: 'Signs in with the Telegram login widget\'s data',
      body: WidgetBodySchema,
      response: { 200: TelegramSignInSchema, ...errors(400, 401, 403, 429, 503) }
    }
  }, async (request) => {
    if (!enabled) throw badRequest('Telegram login is not enabled.')
    const fields = request.body
    const authDate = Number(fields.auth_date)
    const now = Math.floor(clock.now() / 1000)
    if (now - authDate > MAX_AGE_SECONDS) throw unauthorized('Telegram login data is too old. Please sign in again.')
    if (authDate - now > FUTURE_SKEW_SECONDS) throw unauthorized('Telegram login data is dated in the future.')
    if (!hashMatches(fields, fields.hash, config.TELEGRAM_BOT_TOKEN)) throw unauthorized('Telegram login data could not be verified.')

    const userId = String(fields.id)
    // A refusal is a catalogue entry (SignInError): the error handler answers it as JSON, after it is logged here.
    const result = await identity.signIn({
      userId,
      method: 'telegram',
      username: fields.username || fields.first_name || 'Unknown',
      ...(fields.photo_url !== undefined && fields.photo_url !== '' && { avatarUrl: fields.photo_url })
    }).catch((error: unknown) => {
      if (error instanceof SignInError) error.logTo(request.log, 'Telegram')
      throw error
    })
    const { claims, human, roles } = result
    const { token } = auth.mint({ ...claims, sid: newTokenSid() }, config.JWT_EXPIRATION_MINUTES)
    return { token, user: userInfo(claims, human, identity.shownWebhooks(roles.managedWebhooks), await identity.activeProfileName(human, request.log)) }
  })

  fastify.get('/config', {
    config: { rateLimit: rateLimits.auth },
    schema: { tags: ['auth'], summary: 'Whether the Telegram widget is offered, and for which bot', response: { 200: TelegramConfigSchema, ...errors(429) } }
  }, async () => {
    return {
      enabled: enabled && await siteSettings.isNotFalse('enable_telegram'),
      botUsername: await telegramBotUsername(config, siteSettings)
    }
  })
}

export default telegramRoutes
