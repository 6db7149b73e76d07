import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { REASON } from '../../../plugins/domain/refresh-sessions.js'
import { FreeText, errors } from '../../../schemas/common.js'
import { RevokedSessionsSchema } from '../../../schemas/refresh-sessions.js'

/** Admins end every session of a user at once, refresh-backed or not (DELETE /api/admin/users/sessions?id=). */
const adminSessionRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { refreshSessions, sessionEnds, auth } = fastify

  fastify.delete('/', {
    onRequest: [auth.authenticate, auth.requireAdmin],
    config: { audit: { action: 'sessions.end' } },
    schema: {
      tags: ['admin'],
      querystring: Type.Object({ id: FreeText({ minLength: 1, maxLength: 255 }) }),
      response: { 200: RevokedSessionsSchema, ...errors(400, 401, 403) }
    }
  }, async (request) => {
    const revoked = await refreshSessions.revokeAllForUser(request.query.id, REASON.adminRevoked)
    // Sign-ins without a refresh family (chat platform, Telegram) end too.
    await sessionEnds.endUserTokens(request.query.id)
    request.log.info({ event: 'LogOidcSessionsRevokedByAdmin', userId: request.query.id, admin: request.user.userId, revoked }, 'admin revoked refresh sessions')
    return { revoked }
  })
}

export default adminSessionRoutes
