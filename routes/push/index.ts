import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { forbidden, notFound, peerFault } from '../../plugins/edge/errors.js'
import { DEFAULT_DELIVERY_MODE } from '../../plugins/domain/push-subscriptions.js'
import { errors } from '../../schemas/common.js'
import {
  DeliveryChangeSchema, DeliveryModesSchema, PushDeviceSchema, PushDevicesSchema, PushKeySchema, PushSubscribeSchema, PushSubscriptionChangeSchema,
  PushSubscriptionCreatedSchema, PushSubscriptionIdParamsSchema, PushTestResultSchema, PushTestSchema
} from '../../schemas/push.js'

const NO_DEVICE = 'No such device.'

/**
 * Push alerts on this device (`/api/push`, docs/push.md): the site's VAPID key, the member's device
 * subscriptions (their own only: another member's id is 404), a test message, and where each profile's
 * alerts go. All 404 while no source of alerts is configured or the admin switched push off.
 */
const pushRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, rateLimits, pushSender, pushSubscriptions, clock } = fastify

  fastify.addHook('onRequest', async (request, reply) => {
    if (!(await pushSender.offered())) throw notFound('Push alerts are not offered on this site.')
    await auth.authenticate(request, reply)
  })

  const ownerOnly = async (request: { user: { impersonatedBy?: string | undefined } }) => {
    // An impersonating admin's browser must not start receiving the member's alerts.
    if (request.user.impersonatedBy !== undefined) throw forbidden('Push devices are their owner\'s to add and test.')
  }

  fastify.get('/key', {
    config: { rateLimit: rateLimits.authRead },
    schema: { tags: ['push'], summary: 'The site\'s VAPID public key, for PushManager.subscribe', response: { 200: PushKeySchema, ...errors(401, 404, 429) } }
  }, async () => ({ publicKey: pushSender.publicKey() }))

  fastify.post('/subscriptions', {
    preHandler: ownerOnly,
    config: { rateLimit: rateLimits.authRead },
    schema: {
      tags: ['push'],
      summary: 'Stores this browser\'s push subscription (https endpoints of public push services only)',
      body: PushSubscribeSchema,
      response: { 201: PushSubscriptionCreatedSchema, ...errors(400, 401, 403, 404, 429) }
    }
  }, async (request, reply) => {
    const id = await pushSubscriptions.subscribe(request.user.userId, request.user.sid, request.body, request.headers['user-agent'])
    return reply.code(201).send({ id })
  })

  fastify.get('/subscriptions', {
    config: { rateLimit: rateLimits.authRead },
    schema: { tags: ['push'], summary: 'The caller\'s push devices', response: { 200: PushDevicesSchema, ...errors(401, 404, 429) } }
  }, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    return { devices: await pushSubscriptions.list(request.user.userId, request.user.sid) }
  })

  fastify.get('/subscriptions/:id', {
    config: { rateLimit: rateLimits.authRead },
    schema: { tags: ['push'], summary: 'One of the caller\'s push devices', params: PushSubscriptionIdParamsSchema, response: { 200: PushDeviceSchema, ...errors(400, 401, 404, 429) } }
  }, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const device = (await pushSubscriptions.list(request.user.userId, request.user.sid)).find((d) => d.id === request.params.id)
    if (device === undefined) throw notFound(NO_DEVICE)
    return device
  })

  fastify.patch('/subscriptions/:id', {
    config: { rateLimit: rateLimits.authRead },
    schema: {
      tags: ['push'],
      summary: 'Changes a device\'s alarm types or quiet hours',
      params: PushSubscriptionIdParamsSchema,
      body: PushSubscriptionChangeSchema,
      response: { 204: Type.Null(), ...errors(400, 401, 404, 429) }
    }
  }, async (request, reply) => {
    if (!await pushSubscriptions.change(request.user.userId, request.params.id, request.body)) throw notFound(NO_DEVICE)
    return reply.code(204).send(null)
  })

  fastify.delete('/subscriptions/:id', {
    config: { rateLimit: rateLimits.authRead },
    schema: { tags: ['push'], summary: 'Ends push alerts on one of the caller\'s devices', params: PushSubscriptionIdParamsSchema, response: { 204: Type.Null(), ...errors(400, 401, 404, 429) } }
  }, async (request, reply) => {
    if (!await pushSubscriptions.remove(request.user.userId, request.params.id)) throw notFound(NO_DEVICE)
    return reply.code(204).send(null)
  })

  fastify.post('/subscriptions/:id/test', {
    preHandler: ownerOnly,
    config: { rateLimit: rateLimits.testAlert },
    schema: {
      tags: ['push'],
      summary: 'Sends a test notification to one of the caller\'s devices, at once',
      params: PushSubscriptionIdParamsSchema,
      body: PushTestSchema,
      response: { 200: PushTestResultSchema, ...errors(400, 401, 403, 404, 429, 502, 503, 504) }
    }
  }, async (request) => {
    const target = await pushSubscriptions.target(request.user.userId, request.params.id)
    if (target === null) throw notFound(NO_DEVICE)
    const outcome = await pushSender.deliverNow({
      target,
      payload: JSON.stringify({ kind: 'test', title: request.body.title ?? 'Test alert', body: request.body.body ?? 'Alerts reach this device.', tag: `test-${target.id}`, url: '/' }),
      ttlSeconds: 60,
      urgency: 'high',
      topic: 'test',
      eventAt: clock.now()
    })
    if (outcome === 'gone') throw notFound('This device is no longer subscribed at its push service; it was removed.')
    if (outcome !== 'sent') throw peerFault('Push service', 'status')
    await pushSubscriptions.markSent([target.id])
    return { sent: true }
  })

  fastify.get('/delivery', {
    config: { rateLimit: rateLimits.authRead },
    schema: { tags: ['push'], summary: 'Where each profile\'s alerts go', response: { 200: DeliveryModesSchema, ...errors(401, 404, 429) } }
  }, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    return { modes: await pushSubscriptions.deliveryModes(request.user.userId), defaultMode: DEFAULT_DELIVERY_MODE }
  })

  fastify.put('/delivery', {
    config: { rateLimit: rateLimits.authRead },
    schema: {
      tags: ['push'],
      summary: 'Chooses where one profile\'s alerts go: chat, push or both',
      body: DeliveryChangeSchema,
      response: { 204: Type.Null(), ...errors(400, 401, 404, 429) }
    }
  }, async (request, reply) => {
    await pushSubscriptions.setDeliveryMode(request.user.userId, request.body.profileNo, request.body.mode)
    return reply.code(204).send(null)
  })
}

export default pushRoutes
