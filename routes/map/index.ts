import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../schemas/common.js'
import { MapSettingsSchema } from '../../schemas/map.js'

/** What the client's maps draw with (`GET /api/map`): the operator's tile server and its attribution. */
const mapRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, config } = fastify
  fastify.get('/', {
    onRequest: auth.authenticate,
    schema: { tags: ['map'], response: { 200: MapSettingsSchema, ...errors(401) } }
  }, async () => ({ tileUrl: config.MAP_TILE_URL, attribution: config.MAP_TILE_ATTRIBUTION }))
}

export default mapRoutes
