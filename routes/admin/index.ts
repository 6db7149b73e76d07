import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { forbidden, notFound } from '../../plugins/edge/errors.js'
import { CHAT_PLATFORM_TYPE } from '../../plugins/domain/identity.js'
import { newTokenSid } from '../../plugins/edge/auth.js'
import { IMPERSONATION_MAX_MINUTES } from '../../plugins/domain/session-ends.js'
import { FreeText, LOG_REDACTED, errors } from '../../schemas/common.js'
import { ImpersonateBodySchema, ImpersonationTokenSchema } from '../../schemas/session-user.js'

const NOT_ALLOWED = 'You may not act as this account.'

/**
 * Acting as another account: admins as anyone, delegates as the webhooks they manage. The token names
 * the target, carries `impersonatedBy`, is never an admin token and lives at most an hour; on every
 * request the actor's own session must still be live and the right to act (admin or delegation) still
 * held (plugins/domain/session-ends.ts).
 */
const impersonationRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, identity, config } = fastify

  /** `shownAs`: the handle a delegate knows the webhook by, which the token names instead of its address. */
  async function impersonate (request: FastifyRequest, reply: FastifyReply, targetId: string, shownAs?: string): Promise<{ token: string }> {
    // A token to act as someone: no cache on the way may keep it.
    reply.header('cache-control', 'no-store')
    const human = await identity.liveHuman(targetId, () => notFound('User not found.'))
    const { token } = auth.mint({
      userId: shownAs ?? human.id,
      // Engine rows may carry an empty or null name or type.
      username: human.name || (shownAs ?? human.id),
      type: human.type || CHAT_PLATFORM_TYPE,
      isAdmin: false,
      enabled: human.enabled === 1 && human.admin_disable === 0,
      profileNo: human.current_profile_no,
      impersonatedBy: request.user.userId,
      sid: newTokenSid(),
      // Checked on every request: when the actor's own session ends, so does this one.
      ...(request.user.sid !== undefined && { impersonatorSid: request.user.sid })
    }, Math.min(IMPERSONATION_MAX_MINUTES, config.JWT_EXPIRATION_MINUTES))
    request.log.info({ impersonatedBy: request.user.userId, target: human.id.startsWith('http') ? '{webhook}' : human.id }, 'impersonation token issued')
    return { token }
  }

  fastify.post('/impersonate', {
    onRequest: auth.authenticate,
    config: { audit: { action: 'impersonation.start' } },
    schema: {
      tags: ['admin'],
      summary: 'Token to act as a user (admins) or as a managed webhook (delegates)',
      body: ImpersonateBodySchema,
      response: { 200: ImpersonationTokenSchema, ...errors(400, 401, 403, 404, 503) }
    }
  }, async (request, reply) => {
    // Acting as someone starts from one's own session only, so `impersonatedBy` always names a person
    // and an account reached by impersonation cannot pass its delegation on.
    if (request.user.impersonatedBy !== undefined) throw forbidden('Stop acting as another account first.')
    const { userId } = request.body
    if (request.user.isAdmin) return impersonate(request, reply, userId)
    // Delegation is resolved live (cached a minute), not taken from the token: a revoked grant stops here.
    const roles = await identity.roles(request.user.userId)
    if (roles.isAdmin) return impersonate(request, reply, userId)
    // A delegate names the webhook by its handle (or by the address, for clients that still hold one);
    // either way the token it gets names the handle only.
    const managed = roles.managedWebhooks ?? []
    const { webhookHandles } = identity
    const webhook = webhookHandles.isHandle(userId) ? webhookHandles.webhookFor(managed, userId) : managed.includes(userId) ? userId : null
    if (webhook === null) throw forbidden(NOT_ALLOWED)
    return impersonate(request, reply, webhook, webhookHandles.handleOf(webhook))
  })

  fastify.post('/users/impersonate', {
    ...auth.adminOnly,
    config: { audit: { action: 'impersonation.start' } },
    schema: {
      tags: ['admin'],
      summary: 'Token to act as a user (admins only)',
      querystring: Type.Object({ id: FreeText({ minLength: 1, maxLength: 500, ...LOG_REDACTED }) }),
      response: { 200: ImpersonationTokenSchema, ...errors(400, 401, 403, 404, 503) }
    }
  }, async (request, reply) => impersonate(request, reply, request.query.id))
}

export default impersonationRoutes
