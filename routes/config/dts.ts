import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../schemas/common.js'

/**
 * GET /api/config/dts: the engine's message templates for previews, for signed-in members only (the
 * reference serves them anonymously; they are the community's own texts, links and server ids, and no
 * page needs them before sign-in: docs/decisions.md). PoracleNG serves them through its template API;
 * PoracleJS has none, which is a 501 naming the engine.
 */
const dtsRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { engineConfig, auth } = fastify

  fastify.get('/dts', {
    onRequest: auth.authenticate,
    schema: {
      tags: ['config'],
      summary: 'Message templates (DTS) for previews, as the engine serves them',
      response: { 200: Type.Array(Type.Record(Type.String(), Type.Unknown())), ...errors(401, 500, 501) }
    }
  }, async () => engineConfig.dts())
}

export default dtsRoutes
