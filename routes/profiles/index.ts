import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errors } from '../../schemas/common.js'
import {
  CreateProfileSchema, DuplicateProfileSchema, ProfileNoParamsSchema, ProfileSchema, SwitchResultSchema, UpdateProfileSchema,
  parseActiveHours, checkActiveHoursEarly
} from '../../schemas/profiles.js'

/**
 * Alarm profiles (`/api/profiles`): list, create, rename and schedule, delete, switch, and duplicate
 * through the engine's copy call, each a method of `fastify.profiles`. A switch re-issues the caller's
 * token with the new profile number.
 */
const profileRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, featureGates, profiles } = fastify

  fastify.addHook('onRequest', auth.authenticate)
  fastify.addHook('preValidation', checkActiveHoursEarly)
  fastify.addHook('preHandler', featureGates.gate('disable_profiles'))

  fastify.get('/', {
    schema: { tags: ['profiles'], response: { 200: Type.Array(ProfileSchema), ...errors(401, 403, 404, 500) } }
  }, async (request) => (await profiles.load(request.user.userId)).profiles)

  fastify.post('/', {
    schema: { tags: ['profiles'], body: CreateProfileSchema, response: { 201: ProfileSchema, ...errors(400, 401, 403, 404, 409, 500, 502, 503) } }
  }, async (request, reply) => {
    const profile = await profiles.add(request.user.userId, request.body.name, parseActiveHours(request.body.activeHours))
    return reply.code(201).send(profile)
  })

  fastify.put('/switch/:profileNo', {
    schema: { tags: ['profiles'], params: ProfileNoParamsSchema, response: { 200: SwitchResultSchema, ...errors(400, 401, 403, 404, 409, 500, 503) } }
  }, async (request) => {
    const { profileNo } = request.params
    const profile = await profiles.switchTo(request.user.userId, profileNo)
    return { profile, token: auth.reissue(request, { profileNo }).token }
  })

  fastify.put('/:profileNo', {
    schema: { tags: ['profiles'], params: ProfileNoParamsSchema, body: UpdateProfileSchema, response: { 200: ProfileSchema, ...errors(400, 401, 403, 404, 409, 500, 503) } }
  }, async (request) => {
    const { name, activeHours } = request.body
    return await profiles.change(request.user.userId, request.params.profileNo, {
      ...(name !== undefined && { name }),
      ...(activeHours !== undefined && { activeHours: parseActiveHours(activeHours) })
    }, request.log)
  })

  fastify.delete('/:profileNo', {
    schema: { tags: ['profiles'], params: ProfileNoParamsSchema, response: { 204: Type.Null(), ...errors(400, 401, 403, 404, 409, 500, 503) } }
  }, async (request, reply) => {
    await profiles.remove(request.user.userId, request.params.profileNo)
    return reply.code(204).send(null)
  })

  fastify.post('/duplicate', {
    schema: { tags: ['profiles'], body: DuplicateProfileSchema, response: { 201: ProfileSchema, ...errors(400, 401, 403, 404, 409, 500, 501, 502, 503) } }
  }, async (request, reply) => {
    const profile = await profiles.duplicate(request.user.userId, request.body.fromProfileNo, request.body.name, request.log)
    return reply.code(201).send(profile)
  })
}

export default profileRoutes
