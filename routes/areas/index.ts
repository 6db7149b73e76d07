import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errors } from '../../schemas/common.js'
import { AreaNamesSchema, AreasWriteSchema, AvailableAreaSchema } from '../../schemas/areas.js'

/**
 * The active profile's areas (`/api/areas`): reads are open, the write is gated by `disable_areas`.
 * Reading and writing go through `fastify.areaSelection`, where user-drawn geofences are accounted for.
 */
const areaRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, areaSelection, featureGates, userWriteLock } = fastify

  fastify.addHook('onRequest', auth.authenticate)

  fastify.get('/', {
    schema: { tags: ['areas'], response: { 200: AreaNamesSchema, ...errors(401, 404, 500) } }
  }, async (request) => areaSelection.selected(request.user.userId))

  fastify.put('/', {
    preHandler: featureGates.gate('disable_areas'),
    schema: { tags: ['areas'], body: AreasWriteSchema, response: { 200: AreaNamesSchema, ...errors(400, 401, 403, 404, 409, 500, 503) } }
  }, async (request) => userWriteLock.run(request.user.userId, async () => areaSelection.write(request.user.userId, request.body.areas)))

  fastify.get('/available', {
    schema: { tags: ['areas'], response: { 200: Type.Array(AvailableAreaSchema), ...errors(401, 404, 500) } }
  }, async (request) => (await areaSelection.available(request.user.userId)).map((area) => ({
    name: String(area.name),
    // PoracleJS passes a fence's keys through as the file had them: absent ones mean "" and true.
    group: area.group ?? '',
    description: area.description ?? '',
    userSelectable: area.userSelectable !== false
  })))
}

export default areaRoutes
