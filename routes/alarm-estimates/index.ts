import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { badRequest } from '../../plugins/edge/errors.js'
import { typeByNameOrPath } from '../../plugins/domain/alarm-estimates.js'
import { KIND_OF, type AlarmType } from '../../schemas/alarm-types.js'
import { errors } from '../../schemas/common.js'
import { EstimateQuerySchema, EstimateRequestSchema, EstimateSchema, ProfileEstimateSchema } from '../../schemas/estimates.js'

/**
 * What an alarm will do (`/api/alarm-estimates`): how many alerts it would have sent the signed-in member
 * lately and on a typical day, and which of their alarms already cover it. Only ever about the caller.
 */
const alarmEstimateRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, alarmEstimates, featureGates } = fastify

  async function resolve (name: string): Promise<AlarmType> {
    const type = typeByNameOrPath(name)
    if (type === undefined) throw badRequest('Invalid request', { details: [{ field: 'type', message: `unknown alarm type: ${name}` }] })
    await featureGates.ensure(KIND_OF[type].disableKey)
    return type
  }

  fastify.post('/', {
    onRequest: auth.authenticate,
    config: { rateLimit: alarmEstimates.rateLimit },
    schema: {
      tags: ['alarm-estimates'],
      description: 'Estimates one alarm body (not saved) for the caller\'s active profile, with the alarms that cover it and that it covers.',
      body: EstimateRequestSchema,
      response: { 200: EstimateSchema, ...errors(400, 401, 403, 404, 429, 500) }
    }
  }, async (request) => {
    const type = await resolve(request.body.type)
    const problems = alarmEstimates.problems(type, request.body.alarm)
    if (problems.length > 0) throw badRequest('Invalid request', { details: problems })
    return alarmEstimates.estimate(request.user.userId, type, request.body.alarm, request.body.uid ?? null)
  })

  fastify.get('/', {
    onRequest: auth.authenticate,
    config: { rateLimit: alarmEstimates.rateLimit },
    schema: {
      tags: ['alarm-estimates'],
      description: 'Estimates every alarm of one type in the caller\'s active profile (one pass over the scanner\'s rows) and their total.',
      querystring: EstimateQuerySchema,
      response: { 200: ProfileEstimateSchema, ...errors(400, 401, 403, 404, 429, 500) }
    }
  }, async (request) => alarmEstimates.estimateProfile(request.user.userId, await resolve(request.query.type)))
}

export default alarmEstimateRoutes
