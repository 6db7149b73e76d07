import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { notSupported } from '../../plugins/edge/errors.js'
import { errors } from '../../schemas/common.js'
import {
  AddressMatchSchema, AddressNameSchema, GeocodeQuerySchema, LanguageSavedSchema, LanguageSchema, LanguageWriteSchema, LocationAnswerSchema, LocationSchema,
  PlaceLabelParamsSchema, PlaceSchema, ReverseQuerySchema
} from '../../schemas/location.js'

/** Saved places live in the engine, and neither engine generation the service supports has an API for them. */
const placesUnsupported = () => notSupported('Saved places are not supported: the alarm engine offers no saved-places API.')

/**
 * The active profile's pin (`/api/location`, gated by `disable_location`), address search and reverse
 * lookup at the engine's geocoder (also gated by `disable_nominatim`), saved places (not supported
 * by the engine), and the language the engine writes the user's alerts in (`/api/location/language`,
 * not gated: it is a delivery setting, not a location).
 */
const locationRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, featureGates, geocoder, location, rateLimits } = fastify
  const locationGate = featureGates.gate('disable_location')
  const geocoderGates = [locationGate, featureGates.gate('disable_nominatim')]

  fastify.addHook('onRequest', auth.authenticate)

  fastify.get('/', {
    preHandler: locationGate,
    schema: { tags: ['location'], response: { 200: LocationAnswerSchema, ...errors(401, 403, 404, 500) } }
  }, async (request) => {
    const [pin, search] = await Promise.all([location.pin(request.user.userId), geocoder.available()])
    return { ...pin, geocoder: search }
  })

  fastify.put('/', {
    preHandler: locationGate,
    schema: { tags: ['location'], body: LocationSchema, response: { 200: LocationSchema, ...errors(400, 401, 403, 404, 409, 500, 503) } }
  }, async (request) => {
    const { latitude, longitude } = request.body
    await location.setPin(request.user.userId, latitude, longitude)
    return { latitude, longitude }
  })

  fastify.get('/geocode', {
    preHandler: geocoderGates,
    config: { rateLimit: rateLimits.authRead },
    schema: { tags: ['location'], querystring: GeocodeQuerySchema, response: { 200: Type.Array(AddressMatchSchema), ...errors(400, 401, 403, 429, 501, 503) } }
  }, async (request) => geocoder.search(request.query.q.trim(), request.query.lang))

  fastify.get('/reverse', {
    preHandler: geocoderGates,
    config: { rateLimit: rateLimits.authRead },
    schema: { tags: ['location'], querystring: ReverseQuerySchema, response: { 200: AddressNameSchema, ...errors(400, 401, 403, 429, 501, 503) } }
  }, async (request) => geocoder.reverse(request.query.lat, request.query.lon, request.query.lang))

  fastify.get('/places', {
    preHandler: locationGate,
    schema: { tags: ['location'], response: errors(401, 403, 501) }
  }, async () => { throw placesUnsupported() })

  fastify.post('/places', {
    preHandler: locationGate,
    schema: { tags: ['location'], body: PlaceSchema, response: errors(400, 401, 403, 501) }
  }, async () => { throw placesUnsupported() })

  fastify.delete('/places/:label', {
    preHandler: locationGate,
    schema: { tags: ['location'], params: PlaceLabelParamsSchema, response: errors(400, 401, 403, 501) }
  }, async () => { throw placesUnsupported() })

  const MapUrlSchema = Type.Object({ url: Type.String() })
  const Latitude = Type.Number({ minimum: -90, maximum: 90 })
  const Longitude = Type.Number({ minimum: -180, maximum: 180 })
  fastify.get('/staticmap', {
    preHandler: locationGate,
    schema: {
      tags: ['location'],
      summary: 'A static map image of a pin, from the alarm engine',
      querystring: Type.Object({ lat: Latitude, lon: Longitude }, { additionalProperties: false }),
      response: { 200: MapUrlSchema, ...errors(400, 401, 403, 404) }
    }
  }, async (request) => ({ url: await location.pinMap(request.query.lat, request.query.lon) }))

  fastify.get('/distancemap', {
    preHandler: locationGate,
    schema: {
      tags: ['location'],
      summary: 'A static map image of a pin and a distance circle (metres), from the alarm engine',
      querystring: Type.Object({ lat: Latitude, lon: Longitude, distance: Type.Integer({ minimum: 0, maximum: 10_726_000 }) }, { additionalProperties: false }),
      response: { 200: MapUrlSchema, ...errors(400, 401, 403, 404) }
    }
  }, async (request) => ({ url: await location.circleMap(request.query.lat, request.query.lon, request.query.distance) }))

  fastify.get('/language', {
    schema: { tags: ['location'], response: { 200: LanguageSchema, ...errors(401, 404, 500) } }
  }, async (request) => ({ language: await location.language(request.user.userId) }))

  fastify.put('/language', {
    schema: { tags: ['location'], body: LanguageWriteSchema, response: { 200: LanguageSavedSchema, ...errors(400, 401, 404, 409, 500, 503) } }
  }, async (request) => {
    await location.setLanguage(request.user.userId, request.body.language, request.log)
    return { language: request.body.language }
  })
}

export default locationRoutes
