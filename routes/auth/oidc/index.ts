import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { notFound } from '../../../plugins/edge/errors.js'
import { SignInError } from '../../../schemas/refusals.js'
import { LOG_REDACTED, errors } from '../../../schemas/common.js'
import { returnOrigin, successFragment, type LoginTransaction } from '../../../lib/sign-in-flow.js'
import { BindingQuerySchema } from '../../../schemas/sign-in.js'

const COOKIE_PATH = '/api/auth/oidc'
const CALLBACK_PATH = '/api/auth/oidc/callback'
const STATE_COOKIE = 'oidc_state'
const VERIFIER_COOKIE = 'oidc_verifier'
/** RFC 7636 4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/
/** What a provider's `?error=` may look like in a log line. */
const OAUTH_ERROR = /^[\w.-]{1,64}$/

const redirectSchema = (description: string) => Type.Null({ description })

/**
 * External OIDC sign-in: `GET /login` starts it, `GET /callback` finishes it, `GET /logout` signs out
 * at the provider when single logout is available. The callback always answers with a redirect to the
 * front end, `#token=` on success or `#error=<code>` on any failure, so the browser never lands on a
 * bare API error.
 */
const oidcRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config, identity, oidcClient, rateLimits, publicOrigin, refreshSessions } = fastify
  const flow = fastify.signInFlows.create(COOKIE_PATH)

  /** Reads the started sign-in and clears its cookies: whatever happens next, they are used up. */
  function takeTransaction (request: FastifyRequest, reply: FastifyReply): { transaction: LoginTransaction | null, verifier: string | null, origin: string } {
    const { transaction, origin } = flow.takeTransaction(request, reply, STATE_COOKIE)
    const verifier = flow.take(request, reply, VERIFIER_COOKIE)
    return { transaction, verifier: verifier !== null && VERIFIER.test(verifier) ? verifier : null, origin }
  }

  /** Errors before the handler (the rate limit) still end on the login page, never on an API error. */
  function callbackErrorHandler (error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    const code = error.statusCode === 429 ? 'rate_limited' : 'server_error'
    if (code === 'server_error') request.log.error({ kind: error.name, code: error.code }, 'OIDC sign-in failed unexpectedly')
    return flow.fail(reply, takeTransaction(request, reply).origin, code)
  }

  /** Everything between the provider's redirect and the service's own token. Throws SignInError. */
  async function finishSignIn (request: FastifyRequest, transaction: LoginTransaction | null, verifier: string | null): Promise<string> {
    if (!oidcClient.isConfigured()) throw new SignInError('oidc_disabled')
    const at = request.url.indexOf('?')
    const query = new URLSearchParams(at === -1 ? '' : request.url.slice(at + 1))
    const states = query.getAll('state')
    if (states.length !== 1 || !flow.redeem(transaction, states[0])) throw new SignInError('oidc_invalid_state')
    if (config.OIDC_USE_PKCE && verifier === null) throw new SignInError('oidc_invalid_state', 'PKCE verifier cookie missing')
    const providerError = query.get('error')
    if (providerError !== null) {
      throw new SignInError('oidc_provider_error', `provider answered ${OAUTH_ERROR.test(providerError) ? providerError : 'an error'}`)
    }
    const codes = query.getAll('code')
    if (codes.length !== 1 || codes[0] === '') throw new SignInError('missing_code')

    const { params, issuer } = await oidcClient.validateCallback(query, transaction.state)
    const tokens = await oidcClient.exchangeCode(params, {
      issuer,
      redirectUri: `${publicOrigin(request)}${CALLBACK_PATH}`,
      ...(config.OIDC_USE_PKCE && verifier !== null && { verifier })
    })
    const info = await oidcClient.userinfo(tokens.accessToken, tokens.idTokenSubject)
    const who = oidcClient.mapIdentity(info)
    const { claims } = await identity.signIn({ ...who, method: 'oidc' })
    const session = await refreshSessions.issue(claims,
      { refreshToken: tokens.refreshToken, issuer: tokens.issuer, subject: who.subject, sid: tokens.idTokenSid },
      { ipAddress: request.ip, userAgent: request.headers['user-agent'] })
    request.log.info({ userId: claims.userId, isAdmin: claims.isAdmin }, 'OIDC sign-in')
    // Appended to the client's redirect as `#token=...[&refresh_token=...][&binding=...]`.
    return successFragment(transaction, { token: session.token, ...(session.refreshToken !== undefined && { refresh_token: session.refreshToken }) })
  }

  fastify.get('/login', {
    config: { rateLimit: rateLimits.auth },
    schema: {
      tags: ['auth'],
      summary: 'Starts OIDC sign-in: 302 to the provider\'s authorize endpoint',
      querystring: BindingQuerySchema,
      response: { 302: redirectSchema('To the provider, with state and (PKCE) an S256 challenge'), ...errors(404, 429) }
    }
  }, async (request, reply) => {
    if (!oidcClient.isConfigured()) throw notFound('External login provider is not configured.')
    const self = publicOrigin(request)
    const { url, state, verifier } = await oidcClient.startLogin(`${self}${CALLBACK_PATH}`)
    flow.begin(request, reply, STATE_COOKIE, state, request.query.binding)
    if (verifier !== undefined) flow.setCookie(request, reply, VERIFIER_COOKIE, verifier)
    else flow.clear(request, reply, VERIFIER_COOKIE)
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
        code: Type.Optional(Type.Unknown({ description: 'Authorization code', ...LOG_REDACTED })),
        state: Type.Optional(Type.Unknown({ description: 'The state sent at login', ...LOG_REDACTED })),
        iss: Type.Optional(Type.Unknown({ description: 'Issuer (RFC 9207)' })),
        error: Type.Optional(Type.Unknown({ description: 'The provider\'s error code' }))
      }),
      response: { 302: redirectSchema('To the front end: #token=… (and #refresh_token=…) or #error=<code>') }
    }
  }, async (request, reply) => {
    const { transaction, verifier, origin } = takeTransaction(request, reply)
    try {
      const fragment = await finishSignIn(request, transaction, verifier)
      return await flow.succeed(reply, `${origin}/auth/oidc/callback#${fragment}`)
    } catch (error) {
      return flow.failWith(request, reply, origin, 'OIDC', error)
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
    if (await oidcClient.singleLogoutAvailable()) return reply.redirect(oidcClient.endSessionUrl(signedOut), 302)
    return reply.redirect(signedOut, 302)
  })
}

export default oidcRoutes
