import fp from 'fastify-plugin'
import { engineUnavailable, unauthorized } from '../edge/errors.js'
import { replacedDeep } from '../../lib/webhook-handle.js'
import { ENDED_MESSAGE } from './session-ends.js'

/**
 * A delegate acting for a webhook sees the webhook by its handle only (lib/webhook-handle.ts). Its token
 * names the handle; before any other check, the handle is resolved against the delegate's live delegation
 * and the request runs as the webhook's address, with `shownAs` keeping the handle. Every answer to such a
 * request has the address replaced by the handle wherever it appears (the alarms' owner id, the user record),
 * so no route has to remember it.
 */
export default fp(async (fastify) => {
  const { identity } = fastify
  const { webhookHandles } = identity

  fastify.addHook('preHandler', async (request) => {
    const user = request.user
    if (user === undefined || user === null || user.impersonatedBy === undefined || !webhookHandles.isHandle(user.userId)) return
    const roles = await identity.roles(user.impersonatedBy)
    const webhook = webhookHandles.webhookFor(roles.managedWebhooks ?? [], user.userId)
    if (webhook === null) throw roles.resolved ? unauthorized(ENDED_MESSAGE) : engineUnavailable()
    request.user = Object.freeze({ ...user, userId: webhook, shownAs: user.userId })
  })

  fastify.addHook('preSerialization', async (request, _reply, payload) => {
    const shownAs = request.user?.shownAs
    return shownAs === undefined ? payload : replacedDeep(payload, request.user.userId, shownAs)
  })
}, { name: 'delegate-view', fastify: '5.x', dependencies: ['auth', 'identity'] })
