import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../schemas/common.js'
import {
  CleaningAllParamsSchema, CleaningAllResultSchema, CleaningResultSchema, CleaningStatusSchema, CleaningTypeParamsSchema
} from '../../schemas/cleaning.js'

/** Auto-delete for all alarms of a type (`/api/cleaning`), kept by `fastify.cleaning`. */
const cleaningRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, cleaning } = fastify

  fastify.addHook('onRequest', auth.authenticate)

  fastify.get('/status', {
    schema: { tags: ['cleaning'], response: { 200: CleaningStatusSchema, ...errors(401, 404, 500) } }
  }, async (request) => cleaning.status(request.user.userId))

  fastify.put('/all/:enabled', {
    schema: { tags: ['cleaning'], params: CleaningAllParamsSchema, response: { 200: CleaningAllResultSchema, ...errors(400, 401, 404, 409, 500, 503) } }
  }, async (request) => cleaning.setAll(request.user.userId, request.params.enabled === 1, request.log))

  fastify.put('/:alarmType/:enabled', {
    schema: { tags: ['cleaning'], params: CleaningTypeParamsSchema, response: { 200: CleaningResultSchema, ...errors(400, 401, 403, 404, 409, 500, 501, 503) } }
  }, async (request) => ({ updated: await cleaning.setOne(request.user.userId, request.params.alarmType, request.params.enabled === 1, request.log) }))
}

export default cleaningRoutes
