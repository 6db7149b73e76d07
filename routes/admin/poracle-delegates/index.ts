import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../../schemas/common.js'
import { DelegateMapSchema } from '../../../schemas/delegates.js'

/** The webhook delegates the engine's own configuration names (admin, read-only). */
const poracleDelegateRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, delegates } = fastify
  const tags = ['admin']

  fastify.get('/poracle-delegates', {
    ...auth.adminOnly,
    schema: {
      tags,
      summary: 'The webhook delegates configured in the engine (its local.json under DTS_SOURCE_DIR); {} when there are none or the file cannot be used',
      response: { 200: DelegateMapSchema, ...errors(401, 403) }
    }
  }, async () => delegates.engineConfigured())
}

export default poracleDelegateRoutes
