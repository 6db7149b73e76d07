import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errors } from '../../../schemas/common.js'
import { AreaWeatherSchema, WeatherAreasBodySchema, WeatherSchema } from '../../../schemas/scanner.js'

/**
 * In-game weather from the scanner database (`/api/location/weather`, gated like the rest of the location
 * page): at the user's pin (204 when there is no scanner, no pin or no reading) and for a list of named
 * points such as the centres of the user's areas (none without a scanner).
 */
const weatherRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, featureGates, scanner, location } = fastify

  fastify.addHook('onRequest', auth.authenticate)
  fastify.addHook('preHandler', featureGates.gate('disable_location'))

  fastify.get('/', {
    schema: { tags: ['location', 'scanner'], response: { 200: WeatherSchema, 204: Type.Null(), ...errors(401, 403, 404, 500) } }
  }, async (request, reply) => {
    const found = await location.weatherAtPin(request.user.userId)
    return found === null ? reply.code(204).send(null) : found
  })

  fastify.post('/areas', {
    schema: { tags: ['location', 'scanner'], body: WeatherAreasBodySchema, response: { 200: Type.Array(AreaWeatherSchema), ...errors(400, 401, 403) } }
  }, async (request) => {
    const { locations } = request.body
    const found = await scanner.weatherAt(locations)
    return locations.flatMap((l, i) => {
      const weather = found[i]
      return weather === undefined ? [] : [{ name: l.name, weather }]
    })
  })
}

export default weatherRoutes
