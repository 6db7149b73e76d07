import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../schemas/common.js'
import { PinWordsQuerySchema, PinWordsSchema } from '../../schemas/location.js'

/**
 * The dashboard's place: the pin as an address where the site has a geocoder, the areas that hold it, and
 * how many of the active profile's alarms are measured from it (a member with none of those and no areas
 * is told to choose areas). All are decorations of the dashboard, so a geocoder or engine that cannot answer leaves them empty
 * (and logged) instead of failing the page; the client falls back to "Location set".
 */
const placeRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, areaSelection, engine, geocoder, rateLimits } = fastify

  fastify.get('/', {
    onRequest: auth.authenticate,
    config: { rateLimit: rateLimits.authRead },
    schema: { tags: ['dashboard'], description: 'A point in words (its address, the areas holding it) and the count of alarms measured from the pin.', querystring: PinWordsQuerySchema, response: { 200: PinWordsSchema, ...errors(400, 401, 429) } }
  }, async (request) => {
    const { lat, lon, lang } = request.query
    const { userId } = request.user
    const [address, areas, distanceAlarms] = await Promise.all([
      (async () => {
        if (!await geocoder.available()) return null
        try {
          return (await geocoder.reverse(lat, lon, lang)).label
        } catch (err) {
          request.log.warn({ reason: (err as Error).name }, 'dashboard place: no address from the geocoder')
          return null
        }
      })(),
      engine.orFallback(async () => areaSelection.at(userId, lat, lon), { log: request.log, message: 'dashboard place: alarm engine geofences unavailable', fallback: [] }),
      engine.orFallback(async () => {
        const { alarms } = await engine.tracking.all(userId)
        return Object.values(alarms).flat().filter((alarm) => Number(alarm.distance ?? 0) > 0).length
      }, { log: request.log, message: 'dashboard place: alarm engine tracking unavailable', fallback: 0 })
    ])
    return { address, areas, distanceAlarms }
  })
}

export default placeRoutes
