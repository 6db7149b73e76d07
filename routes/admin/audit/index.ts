import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { badRequest } from '../../../plugins/edge/errors.js'
import { errors } from '../../../schemas/common.js'
import { AuditPageSchema, AuditQuerySchema } from '../../../schemas/audit.js'

/** The admin audit log (`GET /api/admin/audit`): newest first, filtered, paged by cursor. */
const auditRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, auditLog } = fastify

  fastify.get('/', {
    ...auth.adminOnly,
    schema: { tags: ['admin'], summary: 'What administrators did', querystring: AuditQuerySchema, response: { 200: AuditPageSchema, ...errors(400, 401, 403) } }
  }, async (request, reply) => {
    const { actor, target, action, from, to, before, limit } = request.query
    const fromMs = from === undefined ? undefined : Date.parse(from)
    const toMs = to === undefined ? undefined : Date.parse(to)
    if (fromMs !== undefined && toMs !== undefined && fromMs > toMs) throw badRequest('`from` must not be after `to`.')
    reply.header('cache-control', 'no-store')
    return auditLog.list({ actor, target, action, from: fromMs, to: toMs, before, limit: limit ?? 50 })
  })
}

export default auditRoutes
