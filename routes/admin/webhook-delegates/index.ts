import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../../schemas/common.js'
import { DelegateGrantSchema, DelegateListSchema, DelegateMapSchema, WebhookIdSchema } from '../../../schemas/delegates.js'

/** Webhook delegates (admin): who may manage which webhook, granted and revoked here. */
const delegateRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, delegates } = fastify
  const tags = ['admin']

  fastify.get('/webhook-delegates/all', {
    ...auth.adminOnly,
    schema: { tags, response: { 200: DelegateMapSchema, ...errors(401, 403) } }
  }, async () => delegates.all())

  fastify.get('/webhook-delegates', {
    ...auth.adminOnly,
    schema: { tags, querystring: Type.Object({ webhookId: WebhookIdSchema }, { additionalProperties: false }), response: { 200: DelegateListSchema, ...errors(400, 401, 403) } }
  }, async (request) => delegates.forWebhook(request.query.webhookId))

  fastify.post('/webhook-delegates', {
    ...auth.adminOnly,
    config: { audit: { action: 'delegate.grant', target: (request) => (request.body as { webhookId?: string }).webhookId } },
    schema: { tags, body: DelegateGrantSchema, response: { 200: DelegateListSchema, ...errors(400, 401, 403, 409) } }
  }, async (request) => delegates.grant(request.body.webhookId, request.body.userId))

  fastify.delete('/webhook-delegates', {
    ...auth.adminOnly,
    config: { audit: { action: 'delegate.revoke', target: (request) => (request.body as { webhookId?: string }).webhookId } },
    schema: { tags, body: DelegateGrantSchema, response: { 200: DelegateListSchema, ...errors(400, 401, 403, 404) } }
  }, async (request) => delegates.revoke(request.body.webhookId, request.body.userId))
}

export default delegateRoutes
