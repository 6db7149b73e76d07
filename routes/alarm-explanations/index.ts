import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../schemas/common.js'
import { ExplanationRequestSchema, ExplanationSchema, RecentListSchema, RecentQuerySchema } from '../../schemas/alarm-explanations.js'

/**
 * "Why didn't I get that alert?" (`/api/alarm-explanations`): one scanner event against every alarm of
 * every profile of the signed-in member, with each filter that stopped it; and the recent events to pick
 * one from (`/recent`). Only ever about the caller.
 */
const alarmExplanationRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, alarmExplanations } = fastify

  fastify.post('/', {
    onRequest: auth.authenticate,
    // A question, not a change: the member's kept state stays.
    config: { rateLimit: alarmExplanations.rateLimit, changes: false },
    schema: {
      tags: ['alarm-explanations'],
      description: 'Whether the engine would have alerted the caller for this scanner event (or an event of the recent list, by `eventId`), and for each alarm of every profile every filter that stopped it.',
      body: ExplanationRequestSchema,
      response: { 200: ExplanationSchema, ...errors(400, 401, 404, 429, 500) }
    }
  }, async (request) => alarmExplanations.explain(request.user.userId, request.body))

  fastify.get('/recent', {
    onRequest: auth.authenticate,
    config: { rateLimit: alarmExplanations.recentRateLimit },
    schema: {
      tags: ['alarm-explanations'],
      description: 'The events of a type the scanner saw in the last hour in the caller\'s areas or within the largest distance of their alarms, newest first, paged; without positions (each has an id to explain it by).',
      querystring: RecentQuerySchema,
      response: { 200: RecentListSchema, ...errors(400, 401, 429, 500, 501, 502, 503, 504) }
    }
  }, async (request) => alarmExplanations.recent(request.user.userId, request.query))
}

export default alarmExplanationRoutes
