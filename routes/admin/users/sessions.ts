import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { REASON } from '../../../plugins/domain/refresh-sessions.js'
import { FreeText, LOG_REDACTED, errors } from '../../../schemas/common.js'
import { RevokedSessionsSchema } from '../../../schemas/refresh-sessions.js'
import { isWebAddress, maskedAddress } from '../../../lib/webhook-address.js'

/** A webhook's id is its address with its token: a log line keeps the masked form. */
const maskedId = (id: string) => (isWebAddress(id) ? maskedAddress(id) : id)

/** Admins end every session of a user at once, refresh-backed or not (DELETE /api/admin/users/sessions?id=). */
const adminSessionRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { refreshSessions, sessionEnds, auth } = fastify

  fastify.delete('/', {
    ...auth.adminOnly,
    config: { audit: { action: 'sessions.end' } },
    schema: {
      tags: ['admin'],
      querystring: Type.Object({ id: FreeText({ minLength: 1, maxLength: 255, ...LOG_REDACTED }) }),
      response: { 200: RevokedSessionsSchema, ...errors(400, 401, 403) }
    }
  }, async (request) => {
    const revoked = await refreshSessions.revokeAllForUser(request.query.id, REASON.adminRevoked)
    // Sign-ins without a refresh family (chat platform, Telegram) end too.
    await sessionEnds.endUserTokens(request.query.id)
    request.log.info({ event: 'LogOidcSessionsRevokedByAdmin', userId: maskedId(request.query.id), admin: request.user.userId, revoked }, 'admin revoked refresh sessions')
    return { revoked }
  })
}

export default adminSessionRoutes
