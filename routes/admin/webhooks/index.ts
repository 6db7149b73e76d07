import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../../schemas/common.js'
import { AdminUserDetailSchema, WebhookCreateSchema } from '../../../schemas/admin-users.js'
import { WebhookWithDelegatesSchema } from '../../../schemas/delegates.js'

/** Webhook targets (admin): the list with their delegates, and creating one through the engine. */
const webhookRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, adminUsers, delegates } = fastify
  const tags = ['admin']

  fastify.get('/webhooks', {
    ...auth.adminOnly,
    schema: {
      tags,
      summary: 'Every webhook target with the people granted to manage it (names from the engine, null for a vanished account)',
      response: { 200: Type.Array(WebhookWithDelegatesSchema), ...errors(401, 403) }
    }
  }, async () => {
    const [webhooks, grants] = await Promise.all([adminUsers.webhooks(), delegates.allNamed()])
    return webhooks.map((webhook) => ({ ...webhook, delegates: grants[webhook.id] ?? [] }))
  })

  fastify.post('/webhooks', {
    ...auth.adminOnly,
    config: { audit: { action: 'webhook.create', target: (request) => (request.body as { name?: string }).name } },
    schema: {
      tags,
      summary: 'Create a webhook target through the engine (PoracleNG only)',
      body: WebhookCreateSchema,
      response: { 201: AdminUserDetailSchema, ...errors(400, 401, 403, 409, 500, 501, 502, 503, 504) }
    }
  }, async (request, reply) => reply.code(201).send(await adminUsers.createWebhook(request.body.name, request.body.url)))
}

export default webhookRoutes
