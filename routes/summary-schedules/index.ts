import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { badRequest } from '../../plugins/edge/errors.js'
import { errors } from '../../schemas/common.js'
import { checkActiveHoursEarly, parseActiveHours } from '../../schemas/profiles.js'
import {
  AlertTypeParamsSchema, SUMMARY_ALERT_TYPES, SummaryCapabilitySchema, SummaryScheduleSchema, SummaryScheduleWriteSchema
} from '../../schemas/summary-schedules.js'

/**
 * Quest summary schedules (`/api/summary-schedules`, gated by `disable_quests`): one per user, not per
 * profile, kept by PoracleNG; PoracleJS has no summaries, so these answer 501 there. The user id comes
 * only from the token.
 */
const summaryScheduleRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, summarySchedules, featureGates, rateLimits } = fastify

  fastify.addHook('onRequest', auth.authenticate)
  // Before body validation and the gate, so a wrong type never costs an engine call.
  fastify.addHook('preValidation', async (request) => {
    const { alertType } = request.params as { alertType?: string }
    if (alertType !== undefined && !(SUMMARY_ALERT_TYPES as readonly string[]).includes(alertType.toLowerCase())) {
      throw badRequest(`Invalid alarm type: ${alertType.slice(0, 32)}`, { details: [{ field: '/alertType', message: `must be one of: ${SUMMARY_ALERT_TYPES.join(', ')}` }] })
    }
  })
  fastify.addHook('preValidation', checkActiveHoursEarly)
  fastify.addHook('preHandler', featureGates.gate('disable_quests'))

  fastify.get('/capability', {
    schema: { tags: ['summary-schedules'], response: { 200: SummaryCapabilitySchema, ...errors(401, 403) } }
  }, async (request) => ({ enabled: await featureGates.questSummaryEnabled(request.log) }))

  fastify.get('/', {
    schema: { tags: ['summary-schedules'], response: { 200: Type.Array(SummaryScheduleSchema), ...errors(401, 403, 500, 501, 503) } }
  }, async (request) => summarySchedules.list(request.user.userId))

  fastify.get('/:alertType', {
    schema: { tags: ['summary-schedules'], params: AlertTypeParamsSchema, response: { 200: SummaryScheduleSchema, ...errors(400, 401, 403, 500, 501, 503) } }
  }, async (request) => summarySchedules.get(request.user.userId, request.params.alertType.toLowerCase()))

  fastify.put('/:alertType', {
    config: { rateLimit: rateLimits.authRead },
    schema: {
      tags: ['summary-schedules'],
      params: AlertTypeParamsSchema,
      body: SummaryScheduleWriteSchema,
      response: { 204: Type.Null(), ...errors(400, 401, 403, 429, 500, 501, 503) }
    }
  }, async (request, reply) => {
    const activeHours = parseActiveHours(request.body.activeHours)
    await summarySchedules.set(request.user.userId, request.params.alertType.toLowerCase(), activeHours)
    return reply.code(204).send(null)
  })

  fastify.delete('/:alertType', {
    config: { rateLimit: rateLimits.authRead },
    schema: { tags: ['summary-schedules'], params: AlertTypeParamsSchema, response: { 204: Type.Null(), ...errors(400, 401, 403, 429, 500, 501, 503) } }
  }, async (request, reply) => {
    await summarySchedules.delete(request.user.userId, request.params.alertType.toLowerCase())
    return reply.code(204).send(null)
  })

  fastify.post('/:alertType/trigger', {
    // Each trigger makes the engine deliver messages now, like a test alert.
    config: { rateLimit: rateLimits.testAlert },
    schema: { tags: ['summary-schedules'], params: AlertTypeParamsSchema, response: { 204: Type.Null(), ...errors(400, 401, 403, 429, 500, 501, 503) } }
  }, async (request, reply) => {
    await summarySchedules.trigger(request.user.userId, request.params.alertType.toLowerCase())
    return reply.code(204).send(null)
  })
}

export default summaryScheduleRoutes
