import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../../schemas/common.js'
import { IconSetCheckBodySchema, IconSetCheckSchema } from '../../../schemas/icon-sets.js'

/** POST /api/admin/icon-sets/check: does an icon set answer with an index, and which categories has it. */
const iconSetRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, iconSets } = fastify

  fastify.post('/check', {
    ...auth.adminOnly,
    // The server reads an address an admin typed: who asked for which one is worth keeping.
    config: { audit: { action: 'icon-set.check', target: (request) => (request.body as { url?: string }).url } },
    schema: {
      tags: ['admin'],
      summary: 'Read <url>/index.json (time and size limited) and list the icon set\'s categories',
      body: IconSetCheckBodySchema,
      response: { 200: IconSetCheckSchema, ...errors(400, 401, 403) }
    }
  }, async (request) => iconSets.check(request.body.url))
}

export default iconSetRoutes
