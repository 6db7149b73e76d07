import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../../../schemas/common.js'
import { RefreshRequestSchema, RefreshResponseSchema } from '../../../../schemas/refresh-sessions.js'

/**
 * Silent renewal and logout of refresh-backed SSO sessions. Both are anonymous: the JWT being renewed is
 * usually expired, and the opaque token in the body is the credential.
 */
const refreshRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { refreshSessions, rateLimits, metrics } = fastify

  fastify.post('/', {
    config: { rateLimit: rateLimits.auth },
    schema: {
      tags: ['auth'],
      body: RefreshRequestSchema,
      response: { 200: RefreshResponseSchema, ...errors(400, 401, 429, 503) }
    }
  }, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const grant = await metrics.refreshOutcome(refreshSessions.refresh(request.body.refreshToken, { ipAddress: request.ip, userAgent: request.headers['user-agent'] }))
    return { token: grant.token, refreshToken: grant.refreshToken, expiresIn: grant.expiresIn }
  })

  fastify.post('/revoke', {
    config: { rateLimit: rateLimits.auth },
    schema: {
      tags: ['auth'],
      body: RefreshRequestSchema,
      response: { 204: Type.Null({ description: 'Revoked, or nothing to revoke' }), ...errors(400, 429) }
    }
  }, async (request, reply) => {
    await refreshSessions.revoke(request.body.refreshToken)
    return reply.code(204).send(null)
  })
}

export default refreshRoutes
