import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { badRequest } from '../../plugins/edge/errors.js'
import { errors } from '../../schemas/common.js'
import { parseActiveHours, type ActiveHoursInput } from '../../schemas/profiles.js'
import {
  AlertTypeParamsSchema, SUMMARY_ALERT_TYPES, SummaryCapabilitySchema, SummaryScheduleSchema, SummaryScheduleWriteSchema
} from '../../schemas/summary-schedules.js'

/** The engine answers parsed JSON or, from older builds, the stored text. */
const activeHoursText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value ?? []))

/**
 * Quest summary schedules (`/api/summary-schedules`, gated by `disable_quests`): one per user, not per
 * profile, kept by PoracleNG; PoracleJS has no summaries, so these answer 501 there. The user id comes
 * only from the token.
 */
const summaryScheduleRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, engine, featureGates, rateLimits } = fastify

  fastify.addHook('onRequest', auth.authenticate)
  // Before body validation and the gate, so a wrong type never costs an engine call.
  fastify.addHook('preValidation', async (request) => {
    const { alertType } = request.params as { alertType?: string }
    if (alertType !== undefined && !(SUMMARY_ALERT_TYPES as readonly string[]).includes(alertType.toLowerCase())) {
      throw badRequest(`Invalid alarm type: ${alertType.slice(0, 32)}`, { details: [{ field: '/alertType', message: `must be one of: ${SUMMARY_ALERT_TYPES.join(', ')}` }] })
    }
  })
  // Active hours sent as JSON text are checked before any hook that asks the engine, so bad input never
  // costs an engine call (parseActiveHours copes with a body the schema has not checked yet).
  fastify.addHook('preValidation', async (request) => {
    const body = request.body as { activeHours?: ActiveHoursInput } | undefined
    if (body?.activeHours !== undefined) parseActiveHours(body.activeHours)
  })
  fastify.addHook('preHandler', featureGates.gate('disable_quests'))

  fastify.get('/capability', {
    schema: { tags: ['summary-schedules'], response: { 200: SummaryCapabilitySchema, ...errors(401, 403) } }
  }, async (request) => ({ enabled: await featureGates.questSummaryEnabled(request.log) }))

  fastify.get('/', {
    schema: { tags: ['summary-schedules'], response: { 200: Type.Array(SummaryScheduleSchema), ...errors(401, 403, 500, 501, 503) } }
  }, async (request) => {
    const schedules = await engine.summaries.list(request.user.userId)
    return schedules.map((s) => ({ alertType: s.alert_type, activeHours: activeHoursText(s.active_hours) }))
  })

  fastify.get('/:alertType', {
    schema: { tags: ['summary-schedules'], params: AlertTypeParamsSchema, response: { 200: SummaryScheduleSchema, ...errors(400, 401, 403, 500, 501, 503) } }
  }, async (request) => {
    const alertType = request.params.alertType.toLowerCase()
    const schedule = await engine.summaries.get(request.user.userId, alertType)
    return { alertType, activeHours: schedule === null ? '[]' : activeHoursText(schedule.active_hours) }
  })

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
    await engine.summaries.set(request.user.userId, request.params.alertType.toLowerCase(), activeHours)
    return reply.code(204).send(null)
  })

  fastify.delete('/:alertType', {
    config: { rateLimit: rateLimits.authRead },
    schema: { tags: ['summary-schedules'], params: AlertTypeParamsSchema, response: { 204: Type.Null(), ...errors(400, 401, 403, 429, 500, 501, 503) } }
  }, async (request, reply) => {
    await engine.summaries.delete(request.user.userId, request.params.alertType.toLowerCase())
    return reply.code(204).send(null)
  })

  fastify.post('/:alertType/trigger', {
    // Each trigger makes the engine deliver messages now, like a test alert.
    config: { rateLimit: rateLimits.testAlert },
    schema: { tags: ['summary-schedules'], params: AlertTypeParamsSchema, response: { 204: Type.Null(), ...errors(400, 401, 403, 429, 500, 501, 503) } }
  }, async (request, reply) => {
    await engine.summaries.trigger(request.user.userId, request.params.alertType.toLowerCase())
    return reply.code(204).send(null)
  })
}

export default summaryScheduleRoutes
