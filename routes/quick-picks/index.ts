import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { errors } from '../../schemas/common.js'
import type { Actor } from '../../plugins/domain/quick-picks.js'
import {
  ApplyOptionsSchema, ApplyResultSchema, QuickPickEditSchema, QuickPickEntrySchema, QuickPickIdSchema, QuickPickSchema, QuickPickWriteSchema
} from '../../schemas/quick-picks.js'

const actorOf = (request: FastifyRequest): Actor => ({ userId: request.user.userId, profileNo: request.user.profileNo, isAdmin: request.user.isAdmin })

/**
 * Quick picks (/api/quick-picks): everyone applies them and keeps personal ones; admins publish global
 * ones and seed the built-in set. Applies act on the caller's active profile, under the caller's write
 * lock: the uids an apply records are the ones that appeared during it, so no other change may run then.
 */
const quickPickRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, quickPicks } = fastify
  const user = { onRequest: auth.authenticate }
  const tags = ['quick-picks']
  const params = Type.Object({ id: QuickPickIdSchema })

  fastify.get('/', {
    ...user,
    schema: { tags, response: { 200: Type.Array(QuickPickEntrySchema), ...errors(401, 500) } }
  }, async (request) => quickPicks.list(actorOf(request)))

  fastify.get('/:id', {
    ...user,
    schema: { tags, params, response: { 200: QuickPickSchema, ...errors(400, 401, 404) } }
  }, async (request) => quickPicks.one(request.params.id, actorOf(request)))

  fastify.post('/', {
    ...auth.adminOnly,
    config: { audit: { action: 'quick-pick.save', target: (request) => (request.body as { id?: string }).id } },
    schema: { tags, summary: 'Create or replace a global pick (admin)', body: QuickPickWriteSchema, response: { 200: QuickPickSchema, ...errors(400, 401, 403) } }
  }, async (request) => quickPicks.saveGlobal(request.body))

  fastify.post('/user', {
    ...user,
    schema: {
      tags,
      summary: 'Create one of the caller\'s own picks (its id is made here, `u-…`), or replace the caller\'s own pick `id` (any other id is not found)',
      body: QuickPickWriteSchema,
      response: { 200: QuickPickSchema, ...errors(400, 401, 403, 404, 409) }
    }
  }, async (request) => quickPicks.saveOwn(request.body, actorOf(request)))

  fastify.put('/user/:id', {
    ...user,
    schema: { tags, summary: 'Edit one of the caller\'s own picks (someone else\'s is not found)', params, body: QuickPickEditSchema, response: { 200: QuickPickSchema, ...errors(400, 401, 404) } }
  }, async (request) => quickPicks.updateOwn(request.params.id, request.body, actorOf(request)))

  fastify.delete('/:id', {
    ...auth.adminOnly,
    config: { audit: { action: 'quick-pick.delete' } },
    schema: { tags, summary: 'Delete a pick and every applied state of it (admin)', params, response: { 204: Type.Null(), ...errors(400, 401, 403, 404) } }
  }, async (request, reply) => {
    await quickPicks.delete(request.params.id)
    return reply.code(204).send(null)
  })

  fastify.delete('/user/:id', {
    ...user,
    schema: { tags, params, response: { 204: Type.Null(), ...errors(400, 401, 404) } }
  }, async (request, reply) => {
    await quickPicks.deleteOwn(request.params.id, actorOf(request))
    return reply.code(204).send(null)
  })

  const applyResponses = { 200: ApplyResultSchema, ...errors(400, 401, 403, 404, 409, 500, 501) }

  fastify.post('/:id/apply', {
    ...user,
    schema: { tags, summary: 'Create the pick\'s alarms and remember which ones', params, body: ApplyOptionsSchema, response: applyResponses }
  }, async (request) => quickPicks.apply(request.params.id, actorOf(request), request.body))

  fastify.post('/:id/reapply', {
    ...user,
    schema: { tags, summary: 'Replace the alarms of an earlier apply (checked before anything is removed)', params, body: ApplyOptionsSchema, response: applyResponses }
  }, async (request) => quickPicks.reapply(request.params.id, actorOf(request), request.body))

  fastify.delete('/:id/remove', {
    ...user,
    schema: { tags, summary: 'Delete exactly the alarms the apply created', params, response: { 204: Type.Null(), ...errors(400, 401, 404, 409, 500) } }
  }, async (request, reply) => {
    await quickPicks.remove(request.params.id, actorOf(request))
    return reply.code(204).send(null)
  })

  fastify.post('/seed', {
    ...auth.adminOnly,
    config: { audit: { action: 'quick-pick.seed' } },
    schema: { tags, summary: 'Replace the global picks with the built-in set (admin)', response: { 204: Type.Null(), ...errors(401, 403) } }
  }, async (request, reply) => {
    await quickPicks.seed(request)
    return reply.code(204).send(null)
  })
}

export default quickPickRoutes
