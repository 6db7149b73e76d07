import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { badRequest } from '../../../plugins/edge/errors.js'
import { LOGOUT_TOKEN_MAX_AGE_SECONDS, LogoutTokenRefused } from '../../../plugins/domain/oidc-client/logout-tokens.js'
import { errors } from '../../../schemas/common.js'

/** A logout token is a few hundred bytes; the form around it needs little more. */
const FORM_LIMIT_BYTES = 16_384
const REFUSED = 'The logout token was refused.'

/**
 * OpenID Connect Back-Channel Logout 1.0 (`POST /api/auth/oidc/backchannel-logout`): the provider posts
 * a signed logout token when a user's session there ends, and every refresh family that session started
 * (by `sid`, else every family of the `sub`) ends here at once: their refresh tokens are refused and
 * their access tokens stop on every instance. Anonymous: the token's signature is the credential.
 */
const backchannelLogoutRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { oidcClient, refreshSessions, sessionEnds, rateLimits, config } = fastify

  // The provider posts an HTML form body (section 2.5); parsed here only, for this one route.
  fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES }, (_request, body, done) => {
    const form = new URLSearchParams(body as string)
    done(null, Object.fromEntries([...form.keys()].map((key) => [key, form.getAll(key).length === 1 ? form.get(key) : form.getAll(key)])))
  })

  fastify.post('/backchannel-logout', {
    config: { rateLimit: rateLimits.backchannelLogout },
    schema: {
      tags: ['auth'],
      summary: 'OpenID Connect Back-Channel Logout: ends the sessions the provider names',
      consumes: ['application/x-www-form-urlencoded'],
      body: Type.Object({ logout_token: Type.String({ minLength: 1, maxLength: 8192 }) }),
      response: { 200: Type.Null({ description: 'The matching sessions have ended' }), ...errors(400, 415, 429) }
    }
  }, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    // Section 2.5: a form post. Any other body is not the provider's.
    if (!/^application\/x-www-form-urlencoded\b/i.test(request.headers['content-type'] ?? '')) throw badRequest('The logout token must be posted as a form.')
    let claims
    try {
      claims = await oidcClient.verifyLogoutToken(request.body.logout_token)
    } catch (error) {
      const reason = error instanceof LogoutTokenRefused ? error.reason : 'invalid'
      request.log.warn({ event: 'LogOidcBackchannelLogoutRefused', reason }, 'back-channel logout token refused')
      throw badRequest(REFUSED)
    }
    if (!await sessionEnds.firstUseOfLogoutToken(claims.jti, (claims.iat + LOGOUT_TOKEN_MAX_AGE_SECONDS + 60) * 1000)) {
      request.log.warn({ event: 'LogOidcBackchannelLogoutRefused', reason: 'replayed_jti' }, 'back-channel logout token refused')
      throw badRequest(REFUSED)
    }
    const users = await refreshSessions.endByProviderSession({ issuer: config.OIDC_ISSUER, sid: claims.sid, subject: claims.sub })
    request.log.info({ event: 'LogOidcBackchannelLogout', bySid: claims.sid !== undefined, users: users.length }, 'provider ended sessions')
    return reply.code(200).send(null)
  })
}

export default backchannelLogoutRoutes
