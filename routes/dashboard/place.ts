import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../schemas/common.js'
import { PinWordsQuerySchema, PinWordsSchema } from '../../schemas/location.js'

/**
 * The dashboard's place (`fastify.dashboard.place`): a member with no address, areas or distance alarms is
 * told to choose areas, and the client falls back to "Location set" for what cannot be had.
 */
const placeRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, dashboard, rateLimits } = fastify

  fastify.get('/', {
    onRequest: auth.authenticate,
    config: { rateLimit: rateLimits.authRead },
    schema: { tags: ['dashboard'], description: 'A point in words (its address, the areas holding it) and the count of alarms measured from the pin.', querystring: PinWordsQuerySchema, response: { 200: PinWordsSchema, ...errors(400, 401, 429) } }
  }, async (request) => dashboard.place(request.user.userId, request.query.lat, request.query.lon, request.query.lang, request.log))
}

export default placeRoutes
