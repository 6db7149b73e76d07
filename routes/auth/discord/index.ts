import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { badRequest, notFound } from '../../../plugins/edge/errors.js'
import { SignInError } from '../../../schemas/refusals.js'
import { newTokenSid } from '../../../plugins/edge/auth.js'
import { FreeText, LOG_REDACTED, errors } from '../../../schemas/common.js'
import { newState, successFragment } from '../../../lib/sign-in-flow.js'
import { BindingQuerySchema } from '../../../schemas/sign-in.js'

const COOKIE = 'discord_oauth'
const COOKIE_PATH = '/api/auth/discord'
const CDN_AVATARS = 'https://cdn.discordapp.com/avatars'

/**
 * Chat-platform (Discord) OAuth2 sign-in: `GET /login` starts it, `GET /callback` finishes it. The
 * callback always answers with a redirect to the front end, `#token=` on success or `#error=<code>`
 * on any failure, so the browser never lands on a bare API error.
 */
const discordRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config, auth, identity, chatPlatform, siteSettings, rateLimits, publicOrigin } = fastify
  const configured = chatPlatform.oauthConfigured
  const flow = fastify.signInFlows.create(COOKIE_PATH)
  const callbackUrl = (request: FastifyRequest) => `${publicOrigin(request)}/api/auth/discord/callback`

  // Local login must keep one method for non-admins: the chat platform and Telegram cannot both be off.
  // The guard lives here (the chat-platform concern) for both keys, each reading the other.
  for (const [key, other] of [['enable_discord', 'enable_telegram'], ['enable_telegram', 'enable_discord']] as const) {
    siteSettings.guard(key, async (write) => {
      if (write.value !== 'false') return
      // Read the other switch fresh: another instance may have changed it within the cache lifetime.
      siteSettings.evict(other)
      if (!await siteSettings.isNotFalse(other)) throw badRequest('Discord and Telegram sign-in cannot both be disabled.')
    })
  }

  /** Errors before or around the handler (rate limit, malformed query, the unexpected) still redirect. */
  function callbackErrorHandler (error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    const code = error.statusCode === 429 ? 'rate_limited' : error.validation ? 'discord_invalid_request' : 'server_error'
    if (code === 'server_error') request.log.error({ err: error }, 'chat-platform sign-in failed unexpectedly')
    return flow.fail(reply, flow.takeTransaction(request, reply, COOKIE).origin, code)
  }

  fastify.get('/login', {
    config: { rateLimit: rateLimits.auth },
    schema: {
      tags: ['auth'],
      summary: 'Starts chat-platform sign-in: 302 to the platform\'s authorize page',
      querystring: BindingQuerySchema,
      response: { 302: Type.Null(), ...errors(404, 429) }
    }
  }, async (request, reply) => {
    if (!configured) throw notFound('Discord sign-in is not configured.')
    const state = newState()
    flow.begin(request, reply, COOKIE, state, request.query.binding)
    const authorize = new URL(`${config.DISCORD_API_URL.replace(/\/$/, '')}/oauth2/authorize`)
    authorize.search = new URLSearchParams({
      client_id: config.DISCORD_CLIENT_ID,
      redirect_uri: callbackUrl(request),
      response_type: 'code',
      scope: 'identify',
      // Skips the consent screen for users who granted it before.
      prompt: 'none',
      state
    }).toString()
    return reply.redirect(authorize.href, 302)
  })

  fastify.get('/callback', {
    config: { rateLimit: rateLimits.auth },
    errorHandler: callbackErrorHandler,
    schema: {
      tags: ['auth'],
      summary: 'Finishes chat-platform sign-in: 302 to the front end with #token= or #error=',
      querystring: Type.Object({
        code: Type.Optional(FreeText({ maxLength: 1024, ...LOG_REDACTED })),
        state: Type.Optional(FreeText({ maxLength: 512, ...LOG_REDACTED })),
        error: Type.Optional(FreeText({ maxLength: 256 })),
        error_description: Type.Optional(FreeText({ maxLength: 2048 }))
      }),
      response: { 302: Type.Null() }
    }
  }, async (request, reply) => {
    const { transaction, origin } = flow.takeTransaction(request, reply, COOKIE)
    const fail = (code: string) => flow.fail(reply, origin, code)
    if (!configured) return fail('discord_disabled')

    const { code, state, error } = request.query
    if (!flow.redeem(transaction, state)) return fail('discord_invalid_state')
    if (error !== undefined) {
      request.log.info({ providerError: error.slice(0, 64) }, 'the chat platform refused the sign-in')
      return fail('discord_provider_error')
    }
    if (code === undefined || code === '') return fail('missing_code')

    let accessToken: string
    try {
      accessToken = await chatPlatform.exchangeCode(code, callbackUrl(request))
    } catch (err) {
      request.log.warn({ reason: (err as Error).message }, 'chat-platform code exchange failed')
      return fail('token_exchange_failed')
    }
    let user
    try {
      user = await chatPlatform.currentUser(accessToken)
    } catch (err) {
      request.log.warn({ reason: (err as Error).message }, 'chat-platform user lookup failed')
      return fail('discord_user_fetch_failed')
    }

    try {
      const { claims } = await identity.signIn({
        userId: user.id,
        method: 'discord',
        username: user.username,
        ...(user.avatar !== null && { avatarUrl: `${CDN_AVATARS}/${user.id}/${user.avatar}.png` })
      })
      const { token } = auth.mint({ ...claims, sid: newTokenSid() }, config.JWT_EXPIRATION_MINUTES)
      return flow.succeed(reply, `${origin}/auth/discord/callback#${successFragment(transaction, { token })}`)
    } catch (err) {
      if (!(err instanceof SignInError)) throw err
      request.log.info({ userId: user.id, code: err.reason }, 'chat-platform sign-in refused')
      return fail(err.reason)
    }
  })
}

export default discordRoutes
