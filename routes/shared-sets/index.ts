import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../schemas/common.js'
import {
  CatalogueEntrySchema, CatalogueQuerySchema, CopyResultSchema, CopySchema, OwnSharedSetSchema, ShareCreateSchema, ShareCreatedSchema, SharedSetParamsSchema, SharedSetViewSchema, UndoCopySchema
} from '../../schemas/shared-sets.js'

/**
 * Shared alarm sets (/api/shared-sets): a member shares a snapshot of alarms as a link, lists and
 * revokes their links; any signed-in member of the site opens a link and copies its alarms into one
 * of their profiles, and takes a copy back.
 */
const sharedSetRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, sharedSets, rateLimits, publicOrigin } = fastify
  const tags = ['shared-sets']
  const write = { onRequest: auth.authenticate, config: { rateLimit: rateLimits.shareWrite } }
  const read = { onRequest: auth.authenticate, config: { rateLimit: rateLimits.shareRead } }
  const params = SharedSetParamsSchema

  fastify.post('/', {
    ...write,
    schema: {
      tags,
      summary: 'Share a selection of the caller\'s alarms (any types, any profile) or a whole profile as a link',
      body: ShareCreateSchema,
      response: { 201: ShareCreatedSchema, ...errors(400, 401, 403, 404, 429) }
    }
  }, async (request, reply) => reply.code(201).send(await sharedSets.create(request.user.userId, request.body, publicOrigin(request))))

  fastify.get('/', {
    ...read,
    schema: {
      tags,
      summary: 'The community catalogue: sets their sharers offered, searchable by type and species, most copied first',
      querystring: CatalogueQuerySchema,
      response: { 200: Type.Array(CatalogueEntrySchema), ...errors(400, 401, 403, 429) }
    }
  }, async (request) => sharedSets.catalogue(request.query, publicOrigin(request)))

  fastify.get('/mine', {
    ...read,
    schema: { tags, summary: 'The caller\'s shared sets, with how many times each was copied', response: { 200: Type.Array(OwnSharedSetSchema), ...errors(401, 429) } }
  }, async (request) => sharedSets.mine(request.user.userId, publicOrigin(request)))

  fastify.post('/undo-copy', {
    ...write,
    schema: { tags, summary: 'Take a copy back: delete those of its alarms still in the profile', body: UndoCopySchema, response: { 204: Type.Null(), ...errors(400, 401, 404, 429) } }
  }, async (request, reply) => {
    await sharedSets.undoCopy(request.user.userId, request.body, request.log)
    return reply.code(204).send(null)
  })

  fastify.get('/:token', {
    ...read,
    schema: {
      tags,
      summary: 'A shared set: its title, the sharer\'s chosen name, its alarms, and what this site does not offer',
      params,
      response: { 200: SharedSetViewSchema, ...errors(400, 401, 403, 404, 429) }
    }
  }, async (request) => sharedSets.view(request.params.token, request.user.userId))

  fastify.delete('/:token', {
    ...write,
    schema: { tags, summary: 'Revoke a link (its sharer only; to anyone else it does not exist)', params, response: { 204: Type.Null(), ...errors(400, 401, 404, 429) } }
  }, async (request, reply) => {
    await sharedSets.revoke(request.user.userId, request.params.token)
    return reply.code(204).send(null)
  })

  fastify.post('/:token/copy', {
    ...write,
    schema: {
      tags,
      summary: 'Copy the set\'s alarms (all, or those at `indexes`) into one of the caller\'s profiles; duplicates and what the site does not offer are skipped',
      params,
      body: CopySchema,
      response: { 200: CopyResultSchema, ...errors(400, 401, 403, 404, 429) }
    }
  }, async (request) => sharedSets.copy(request.params.token, request.user.userId, request.body, request.log))
}

export default sharedSetRoutes
