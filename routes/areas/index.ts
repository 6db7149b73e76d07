import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errors } from '../../schemas/common.js'
import { AreaNamesSchema, AreasWriteSchema, AvailableAreaSchema } from '../../schemas/areas.js'
import { MapFencesSchema } from '../../schemas/geofences.js'

/**
 * The active profile's areas (`/api/areas`): reads are open, the write is gated by `disable_areas`.
 * Reading and writing go through `fastify.areaSelection`, where user-drawn geofences are accounted for.
 */
const areaRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, areaSelection, featureGates, engineFences } = fastify

  fastify.addHook('onRequest', auth.authenticate)

  fastify.get('/', {
    schema: { tags: ['areas'], response: { 200: AreaNamesSchema, ...errors(401, 404, 500) } }
  }, async (request) => areaSelection.selected(request.user.userId))

  fastify.put('/', {
    preHandler: featureGates.gate('disable_areas'),
    schema: { tags: ['areas'], body: AreasWriteSchema, response: { 200: AreaNamesSchema, ...errors(400, 401, 403, 404, 409, 500, 503) } }
  }, async (request) => areaSelection.write(request.user.userId, request.body.areas))

  fastify.get('/available', {
    schema: { tags: ['areas'], response: { 200: Type.Array(AvailableAreaSchema), ...errors(401, 404, 500) } }
  }, async (request) => (await areaSelection.available(request.user.userId)).map((area) => ({
    name: String(area.name),
    // PoracleJS passes a fence's keys through as the file had them: absent ones mean "" and true.
    group: area.group ?? '',
    description: area.description ?? '',
    userSelectable: area.userSelectable !== false
  })))

  fastify.get('/geofence', {
    schema: { tags: ['areas'], description: 'Polygons of the engine\'s fences for the map, without other users\' private fences; none when the engine cannot be read', response: { 200: MapFencesSchema, ...errors(401) } }
  }, async (request) => {
    // engineFences answers its last copy, or none, while the engine cannot be read (and says so in the log).
    const [fences, visible] = await Promise.all([engineFences.current(), areaSelection.visibility(request.user.userId)])
    return { status: 'ok' as const, geofence: fences.fences.filter((f) => visible(f.displayName)).map((f) => f.raw as { name: string }) }
  })

  fastify.get('/map/:name', {
    schema: {
      tags: ['areas'],
      params: Type.Object({ name: Type.String({ minLength: 1, maxLength: 255 }) }),
      response: { 200: Type.Object({ url: Type.String() }), ...errors(401, 404) }
    }
  }, async (request) => ({ url: await areaSelection.mapOf(request.user.userId, request.params.name) }))
}

export default areaRoutes
