import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../schemas/common.js'
import { ExplanationRequestSchema, ExplanationSchema } from '../../schemas/alarm-explanations.js'

/**
 * "Why didn't I get that alert?" (`/api/alarm-explanations`): one scanner event against every alarm of
 * every profile of the signed-in member, with each filter that stopped it. Only ever about the caller.
 */
const alarmExplanationRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, alarmExplanations } = fastify

  fastify.post('/', {
    onRequest: auth.authenticate,
    config: { rateLimit: alarmExplanations.rateLimit },
    schema: {
      tags: ['alarm-explanations'],
      description: 'Whether the engine would have alerted the caller for this scanner event, and for each alarm of every profile every filter that stopped it.',
      body: ExplanationRequestSchema,
      response: { 200: ExplanationSchema, ...errors(400, 401, 404, 429, 500) }
    }
  }, async (request) => alarmExplanations.explain(request.user.userId, request.body))
}

export default alarmExplanationRoutes
