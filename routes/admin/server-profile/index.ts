import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../../schemas/common.js'
import { ServerProfileSchema } from '../../../schemas/server-profile.js'

/** The admin versions card (GET /api/admin/server-profile); `refresh=true` skips the 5-minute cache. */
const serverProfileRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, serverProfile } = fastify

  fastify.get('/server-profile', {
    ...auth.adminOnly,
    schema: {
      tags: ['admin'],
      querystring: Type.Object({ refresh: Type.Boolean({ default: false }) }, { additionalProperties: false }),
      response: { 200: ServerProfileSchema, ...errors(400, 401, 403) }
    }
  }, async (request) => serverProfile.get(request.query.refresh))
}

export default serverProfileRoutes
