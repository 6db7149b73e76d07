import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { errors } from '../../../schemas/common.js'
import { AdminSharedSetSchema, HideSchema, PromotedSchema, SharedSetParamsSchema } from '../../../schemas/shared-sets.js'

/**
 * The audit entry's target: the link's first characters, enough to tell sets apart in the log, never the
 * whole token (the link's secret).
 */
const target = (request: FastifyRequest): string => `shared-set:${(request.params as { token: string }).token.slice(0, 6)}`

/** Moderating shared sets (administrators): every set, take one down or put it back, publish one as quick picks. */
const adminSharedSetRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, sharedSets, publicOrigin } = fastify
  const tags = ['shared-sets']
  const params = SharedSetParamsSchema

  fastify.get('/', {
    ...auth.adminOnly,
    schema: { tags, summary: 'Every shared set of the site, newest first (administrators)', response: { 200: Type.Array(AdminSharedSetSchema), ...errors(401, 403) } }
  }, async (request) => sharedSets.all(publicOrigin(request)))

  fastify.put('/:token/hidden', {
    ...auth.adminOnly,
    config: { audit: { action: 'shared-set.hide', target } },
    schema: { tags, summary: 'Take a set down (its link and catalogue entry end) or put it back', params, body: HideSchema, response: { 204: Type.Null(), ...errors(400, 401, 403, 404) } }
  }, async (request, reply) => {
    await sharedSets.setHidden(request.params.token, request.body.hidden)
    return reply.code(204).send(null)
  })

  fastify.post('/:token/promote', {
    ...auth.adminOnly,
    config: { audit: { action: 'shared-set.promote', target } },
    schema: { tags, summary: 'Publish a set as site quick picks, one per alarm type', params, response: { 201: PromotedSchema, ...errors(400, 401, 403, 404) } }
  }, async (request, reply) => {
    const promoted = await sharedSets.promote(request.params.token)
    request.auditDetails = { quickPicks: promoted.quickPicks.map((p) => p.id) }
    return reply.code(201).send(promoted)
  })
}

export default adminSharedSetRoutes
