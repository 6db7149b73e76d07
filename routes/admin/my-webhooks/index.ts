import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../../schemas/common.js'
import { AdminUserSchema } from '../../../schemas/admin-users.js'

/** "My webhooks": what a delegate (any signed-in member) may manage; under /api/admin by the API's contract. */
const myWebhookRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, identity, adminUsers } = fastify
  const tags = ['admin']

  fastify.get('/my-webhooks', {
    onRequest: auth.authenticate,
    schema: {
      tags,
      summary: 'The webhooks the caller may manage (every webhook for admins), resolved live and cached a minute',
      response: { 200: Type.Array(AdminUserSchema), ...errors(401) }
    }
  }, async (request) => {
    const roles = await identity.roles(request.user.userId)
    if (roles.isAdmin) return adminUsers.webhooks()
    // A delegate manages a webhook's alarms, not its channel: the address (and its token) stays hidden.
    const rows = await adminUsers.rows(roles.managedWebhooks ?? [])
    return rows.map((row) => ({ ...row, id: identity.webhookHandles.handleOf(row.id) }))
  })
}

export default myWebhookRoutes
