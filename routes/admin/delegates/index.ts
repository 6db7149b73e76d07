import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../../schemas/common.js'
import { AdminUserSchema } from '../../../schemas/admin-users.js'
import { DelegateGrantSchema, DelegateListSchema, DelegateMapSchema, WebhookIdSchema } from '../../../schemas/delegates.js'

/** Webhook delegates (admin CRUD) and "my webhooks" for the delegates themselves, under /api/admin. */
const delegateRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, delegates, identity, adminUsers } = fastify
  const admin = { onRequest: [auth.authenticate, auth.requireAdmin] }
  const tags = ['admin']

  fastify.get('/webhook-delegates/all', {
    ...admin,
    schema: { tags, response: { 200: DelegateMapSchema, ...errors(401, 403) } }
  }, async () => delegates.all())

  fastify.get('/poracle-delegates', {
    ...admin,
    schema: {
      tags,
      summary: 'The webhook delegates configured in the engine (its local.json under DTS_SOURCE_DIR); {} when there are none or the file cannot be used',
      response: { 200: DelegateMapSchema, ...errors(401, 403) }
    }
  }, async () => delegates.engineConfigured())

  fastify.get('/webhook-delegates', {
    ...admin,
    schema: { tags, querystring: Type.Object({ webhookId: WebhookIdSchema }, { additionalProperties: false }), response: { 200: DelegateListSchema, ...errors(400, 401, 403) } }
  }, async (request) => delegates.forWebhook(request.query.webhookId))

  fastify.post('/webhook-delegates', {
    ...admin,
    config: { audit: { action: 'delegate.grant', target: (request) => (request.body as { webhookId?: string }).webhookId } },
    schema: { tags, body: DelegateGrantSchema, response: { 200: DelegateListSchema, ...errors(400, 401, 403, 409) } }
  }, async (request) => delegates.grant(request.body.webhookId, request.body.userId))

  fastify.delete('/webhook-delegates', {
    ...admin,
    config: { audit: { action: 'delegate.revoke', target: (request) => (request.body as { webhookId?: string }).webhookId } },
    schema: { tags, body: DelegateGrantSchema, response: { 200: DelegateListSchema, ...errors(400, 401, 403, 404) } }
  }, async (request) => delegates.revoke(request.body.webhookId, request.body.userId))

  fastify.get('/my-webhooks', {
    onRequest: auth.authenticate,
    schema: {
      tags,
      summary: 'The webhooks the caller may manage (every webhook for admins), resolved live and cached a minute',
      response: { 200: Type.Array(AdminUserSchema), ...errors(401) }
    }
  }, async (request) => {
    const roles = await identity.roles(request.user.userId)
    return roles.isAdmin ? adminUsers.webhooks() : adminUsers.rows(roles.managedWebhooks ?? [])
  })
}

export default delegateRoutes
