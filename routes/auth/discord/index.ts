import { createHmac } from 'node:crypto'
import cookie from '@fastify/cookie'
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { badRequest, notFound } from '../../../plugins/errors.js'
import { SignInError } from '../../../plugins/identity.js'
import { errors } from '../../../schemas/common.js'
import { RedeemedStates, TRANSACTION_SECONDS, decodeTransaction, encodeTransaction, newState, returnOrigin, sameSecret, type LoginTransaction } from '../transaction.js'

const COOKIE = 'discord_oauth'
const COOKIE_PATH = '/api/auth/discord'
const CDN_AVATARS = 'https://cdn.discordapp.com/avatars'

/** The cookie signing key: derived from JWT_SECRET (one secret fewer to manage) and distinct per concern. */
export const cookieSecret = (jwtSecret: string) => createHmac('sha256', jwtSecret).update('alarm-web discord cookie signing').digest('base64url')

/**
 * Chat-platform (Discord) OAuth2 sign-in: `GET /login` starts it, `GET /callback` finishes it. The
 * callback always answers with a redirect to the front end, `#token=` on success or `#error=<code>`
 * on any failure, so the browser never lands on a bare API error.
 */
const discordRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config, clock, auth, identity, chatPlatform, siteSettings, rateLimits, publicOrigin } = fastify
  const configured = config.DISCORD_CLIENT_ID !== '' && config.DISCORD_CLIENT_SECRET !== ''
  const redeemed = new RedeemedStates()
  const nowSeconds = () => Math.floor(clock.now() / 1000)
  const callbackUrl = (request: FastifyRequest) => `${publicOrigin(request)}/api/auth/discord/callback`

  // Registered here, inside this concern, so that other sign-in concerns can own theirs independently.
  await fastify.register(cookie, { secret: cookieSecret(config.JWT_SECRET) })

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

  function readTransaction (request: FastifyRequest): LoginTransaction | null {
    // Optional chaining: the error handler may run for a request that failed before cookies were parsed.
    const raw = request.cookies?.[COOKIE]
    if (raw === undefined) return null
    const unsigned = request.unsignCookie(raw)
    return unsigned.valid && unsigned.value !== null ? decodeTransaction(unsigned.value) : null
  }

  function fail (reply: FastifyReply, origin: string, code: string) {
    return reply.redirect(`${origin}/login#error=${encodeURIComponent(code)}`, 302)
  }

  /** Errors before or around the handler (rate limit, malformed query, the unexpected) still redirect. */
  function callbackErrorHandler (error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    const code = error.statusCode === 429 ? 'rate_limited' : error.validation ? 'discord_invalid_request' : 'server_error'
    if (code === 'server_error') request.log.error({ err: error }, 'chat-platform sign-in failed unexpectedly')
    reply.clearCookie(COOKIE, { path: COOKIE_PATH })
    return fail(reply, readTransaction(request)?.origin ?? publicOrigin(request), code)
  }

  fastify.get('/login', {
    config: { rateLimit: rateLimits.auth },
    schema: {
      tags: ['auth'],
      summary: 'Starts chat-platform sign-in: 302 to the platform\'s authorize page',
      response: { 302: Type.Null(), ...errors(404, 429) }
    }
  }, async (request, reply) => {
    if (!configured) throw notFound('Discord sign-in is not configured.')
    const self = publicOrigin(request)
    const transaction: LoginTransaction = { state: newState(), issuedAt: nowSeconds(), origin: returnOrigin(request, config, self) }
    reply.setCookie(COOKIE, encodeTransaction(transaction), {
      path: COOKIE_PATH,
      httpOnly: true,
      sameSite: 'lax',
      secure: self.startsWith('https:'),
      maxAge: TRANSACTION_SECONDS,
      signed: true
    })
    const authorize = new URL(`${config.DISCORD_API_URL.replace(/\/$/, '')}/oauth2/authorize`)
    authorize.search = new URLSearchParams({
      client_id: config.DISCORD_CLIENT_ID,
      redirect_uri: callbackUrl(request),
      response_type: 'code',
      scope: 'identify',
      // Skips the consent screen for users who granted it before.
      prompt: 'none',
      state: transaction.state
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
        code: Type.Optional(Type.String({ maxLength: 1024 })),
        state: Type.Optional(Type.String({ maxLength: 512 })),
        error: Type.Optional(Type.String({ maxLength: 256 })),
        error_description: Type.Optional(Type.String({ maxLength: 2048 }))
      }),
      response: { 302: Type.Null() }
    }
  }, async (request, reply) => {
    const transaction = readTransaction(request)
    reply.clearCookie(COOKIE, { path: COOKIE_PATH })
    const origin = transaction?.origin ?? publicOrigin(request)
    if (!configured) return fail(reply, origin, 'discord_disabled')

    const { code, state, error } = request.query
    const now = nowSeconds()
    if (transaction === null || state === undefined || !sameSecret(transaction.state, state) ||
      now - transaction.issuedAt > TRANSACTION_SECONDS || !redeemed.redeem(transaction.state, now)) {
      return fail(reply, origin, 'discord_invalid_state')
    }
    if (error !== undefined) {
      request.log.info({ providerError: error.slice(0, 64) }, 'the chat platform refused the sign-in')
      return fail(reply, origin, 'discord_provider_error')
    }
    if (code === undefined || code === '') return fail(reply, origin, 'missing_code')

    let accessToken: string
    try {
      accessToken = await chatPlatform.exchangeCode(code, callbackUrl(request))
    } catch (err) {
      request.log.warn({ reason: (err as Error).message }, 'chat-platform code exchange failed')
      return fail(reply, origin, 'token_exchange_failed')
    }
    let user
    try {
      user = await chatPlatform.currentUser(accessToken)
    } catch (err) {
      request.log.warn({ reason: (err as Error).message }, 'chat-platform user lookup failed')
      return fail(reply, origin, 'discord_user_fetch_failed')
    }

    try {
      const { claims } = await identity.signIn({
        userId: user.id,
        method: 'discord',
        username: user.username,
        ...(user.avatar !== null && { avatarUrl: `${CDN_AVATARS}/${user.id}/${user.avatar}.png` })
      })
      const { token } = auth.mint(claims, config.JWT_EXPIRATION_MINUTES)
      return reply.redirect(`${origin}/auth/discord/callback#token=${encodeURIComponent(token)}`, 302)
    } catch (err) {
      if (!(err instanceof SignInError)) throw err
      request.log.info({ userId: user.id, code: err.code }, 'chat-platform sign-in refused')
      return fail(reply, origin, err.code)
    }
  })
}

export default discordRoutes
