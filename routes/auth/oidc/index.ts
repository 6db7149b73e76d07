import { createHmac } from 'node:crypto'
import cookie from '@fastify/cookie'
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { notFound } from '../../../plugins/errors.js'
import { SignInError } from '../../../plugins/identity.js'
import { OidcClientError } from '../../../plugins/oidc-client.js'
import { errors } from '../../../schemas/common.js'
import { singleLogoutAvailable } from './modes.js'
import { completeSignIn } from './session.js'
import {
  RedeemedStates, TRANSACTION_SECONDS, decodeTransaction, encodeTransaction, isReturnOrigin, returnOrigin, sameSecret,
  type LoginTransaction
} from '../transaction.js'

const COOKIE_PATH = '/api/auth/oidc'
const CALLBACK_PATH = '/api/auth/oidc/callback'
const STATE_COOKIE = 'oidc_state'
const VERIFIER_COOKIE = 'oidc_verifier'
/** RFC 7636 4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/
/** What a provider's `?error=` may look like in a log line. */
const OAUTH_ERROR = /^[\w.-]{1,64}$/

/** The cookie signing key: derived from JWT_SECRET (one secret fewer to manage) and distinct per concern. */
export const cookieSecret = (jwtSecret: string) => createHmac('sha256', jwtSecret).update('alarm-web oidc cookie signing').digest('base64url')

const redirectSchema = (description: string) => Type.Null({ description })

/**
 * External OIDC sign-in: `GET /login` starts it, `GET /callback` finishes it, `GET /logout` signs out
 * at the provider when single logout is available. The callback always answers with a redirect to the
 * front end, `#token=` on success or `#error=<code>` on any failure, so the browser never lands on a
 * bare API error.
 */
const oidcRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config, clock, identity, oidcClient, rateLimits, publicOrigin } = fastify
  const redeemed = new RedeemedStates()
  const nowSeconds = () => Math.floor(clock.now() / 1000)

  // Registered inside this concern so that every sign-in concern owns its cookies independently.
  await fastify.register(cookie, { secret: cookieSecret(config.JWT_SECRET) })

  const cookieOptions = (request: FastifyRequest) =>
    ({ path: COOKIE_PATH, httpOnly: true, sameSite: 'lax', secure: publicOrigin(request).startsWith('https:') }) as const

  function readSigned (request: FastifyRequest, name: string): string | null {
    const raw = request.cookies[name]
    if (raw === undefined) return null
    const unsigned = request.unsignCookie(raw)
    return unsigned.valid ? unsigned.value : null
  }

  /** Reads the started sign-in and clears its cookies: whatever happens next, they are used up. */
  function takeTransaction (request: FastifyRequest, reply: FastifyReply): { transaction: LoginTransaction | null, verifier: string | null, origin: string } {
    const state = readSigned(request, STATE_COOKIE)
    const transaction = state === null ? null : decodeTransaction(state)
    const verifier = readSigned(request, VERIFIER_COOKIE)
    reply.clearCookie(STATE_COOKIE, cookieOptions(request))
    reply.clearCookie(VERIFIER_COOKIE, cookieOptions(request))
    // Checked again: the allowed origins may have changed since the login step.
    const self = publicOrigin(request)
    const origin = transaction !== null && isReturnOrigin(config, transaction.origin, self) ? transaction.origin : self
    return { transaction, verifier: verifier !== null && VERIFIER.test(verifier) ? verifier : null, origin }
  }

  function fail (reply: FastifyReply, origin: string, code: string) {
    return reply.redirect(`${origin}/login#error=${encodeURIComponent(code)}`, 302)
  }

  /** Errors before the handler (the rate limit) still end on the login page, never on an API error. */
  function callbackErrorHandler (error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    const code = error.statusCode === 429 ? 'rate_limited' : 'server_error'
    if (code === 'server_error') request.log.error({ kind: error.name, code: error.code }, 'OIDC sign-in failed unexpectedly')
    return fail(reply, takeTransaction(request, reply).origin, code)
  }

  /** Everything between the provider's redirect and the service's own token. Throws SignInError. */
  async function finishSignIn (request: FastifyRequest, transaction: LoginTransaction | null, verifier: string | null): Promise<URLSearchParams> {
    if (!oidcClient.isConfigured()) throw new SignInError('oidc_disabled')
    const at = request.url.indexOf('?')
    const query = new URLSearchParams(at === -1 ? '' : request.url.slice(at + 1))
    const states = query.getAll('state')
    const now = nowSeconds()
    if (transaction === null || states.length !== 1 || !sameSecret(transaction.state, states[0] as string) ||
      transaction.issuedAt + TRANSACTION_SECONDS <= now || !redeemed.redeem(transaction.state, now)) {
      throw new SignInError('oidc_invalid_state')
    }
    if (config.OIDC_USE_PKCE && verifier === null) throw new SignInError('oidc_invalid_state', 'PKCE verifier cookie missing')
    const providerError = query.get('error')
    if (providerError !== null) {
      throw new SignInError('oidc_provider_error', `provider answered ${OAUTH_ERROR.test(providerError) ? providerError : 'an error'}`)
    }
    const codes = query.getAll('code')
    if (codes.length !== 1 || codes[0] === '') throw new SignInError('missing_code')

    const { params, issuer } = oidcClient.validateCallback(query, transaction.state)
    const tokens = await oidcClient.exchangeCode(params, {
      issuer,
      redirectUri: `${publicOrigin(request)}${CALLBACK_PATH}`,
      ...(config.OIDC_USE_PKCE && verifier !== null && { verifier })
    })
    const info = await oidcClient.userinfo(tokens.accessToken, tokens.idTokenSubject)
    const who = oidcClient.mapIdentity(info)
    const { claims } = await identity.signIn({
      userId: who.userId,
      method: 'oidc',
      ...(who.username !== undefined && { username: who.username }),
      ...(who.avatarUrl !== undefined && { avatarUrl: who.avatarUrl })
    })
    const { fragment } = await completeSignIn(fastify, request, {
      claims,
      ...(tokens.refreshToken !== undefined && { providerRefreshToken: tokens.refreshToken }),
      issuer: tokens.issuer,
      subject: who.subject
    })
    request.log.info({ userId: claims.userId, isAdmin: claims.isAdmin }, 'OIDC sign-in')
    return fragment
  }

  fastify.get('/login', {
    config: { rateLimit: rateLimits.auth },
    schema: {
      tags: ['auth'],
      summary: 'Starts OIDC sign-in: 302 to the provider\'s authorize endpoint',
      response: { 302: redirectSchema('To the provider, with state and (PKCE) an S256 challenge'), ...errors(404, 429) }
    }
  }, async (request, reply) => {
    if (!oidcClient.isConfigured()) throw notFound('External login provider is not configured.')
    const self = publicOrigin(request)
    const { url, state, verifier } = await oidcClient.startLogin(`${self}${CALLBACK_PATH}`)
    const options = { ...cookieOptions(request), signed: true, maxAge: TRANSACTION_SECONDS }
    reply.setCookie(STATE_COOKIE, encodeTransaction({ state, issuedAt: nowSeconds(), origin: returnOrigin(request, config, self) }), options)
    if (verifier !== undefined) reply.setCookie(VERIFIER_COOKIE, verifier, options)
    else reply.clearCookie(VERIFIER_COOKIE, cookieOptions(request))
    return reply.redirect(url, 302)
  })

  fastify.get('/callback', {
    config: { rateLimit: rateLimits.auth },
    errorHandler: callbackErrorHandler,
    schema: {
      tags: ['auth'],
      summary: 'Finishes OIDC sign-in: 302 to /auth/oidc/callback#token=… or /login#error=<code>',
      // Read raw (duplicates are refused, not merged): declared for the documentation only.
      querystring: Type.Object({
        code: Type.Optional(Type.Unknown({ description: 'Authorization code' })),
        state: Type.Optional(Type.Unknown({ description: 'The state sent at login' })),
        iss: Type.Optional(Type.Unknown({ description: 'Issuer (RFC 9207)' })),
        error: Type.Optional(Type.Unknown({ description: 'The provider\'s error code' }))
      }),
      response: { 302: redirectSchema('To the front end: #token=… (and #refresh_token=…) or #error=<code>') }
    }
  }, async (request, reply) => {
    const { transaction, verifier, origin } = takeTransaction(request, reply)
    // The Location carries a token: no cache may keep it.
    reply.header('cache-control', 'no-store')
    try {
      const fragment = await finishSignIn(request, transaction, verifier)
      return await reply.redirect(`${origin}/auth/oidc/callback#${fragment.toString()}`, 302)
    } catch (error) {
      if (error instanceof OidcClientError) {
        request.log.warn({ code: error.code, reason: error.reason, status: error.status, providerError: error.providerError }, 'OIDC sign-in failed at the provider')
      } else if (error instanceof SignInError) {
        request.log.info({ code: error.code, detail: error.message }, 'OIDC sign-in refused')
      } else {
        // Only the kind: messages of database or library errors may quote values (tokens, codes).
        const { name, code } = error as { name?: unknown, code?: unknown }
        request.log.error({ kind: name, code }, 'OIDC sign-in failed unexpectedly')
      }
      return fail(reply, origin, error instanceof SignInError ? error.code : 'server_error')
    }
  })

  fastify.get('/logout', {
    config: { rateLimit: rateLimits.auth },
    schema: {
      tags: ['auth'],
      summary: 'Signs out at the provider when single logout is available, else straight to the signed-out page',
      response: { 302: redirectSchema('To the end-session endpoint, or to /login?loggedout=1'), ...errors(429) }
    }
  }, async (request, reply) => {
    const signedOut = `${returnOrigin(request, config, publicOrigin(request))}/login?loggedout=1`
    if (await singleLogoutAvailable(fastify)) return reply.redirect(oidcClient.endSessionUrl(signedOut), 302)
    return reply.redirect(signedOut, 302)
  })
}

export default oidcRoutes
