import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../schemas/common.js'

/**
 * GET /api/config/dts: the engine's message templates for the client's live previews, anonymous like
 * the reference. PoracleNG serves them through its template API; PoracleJS has none, which is a 501
 * naming the engine.
 */
const dtsRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { engine } = fastify

  fastify.get('/dts', {
    schema: {
      tags: ['config'],
      summary: 'Message templates (DTS) for previews, as the engine serves them',
      response: { 200: Type.Array(Type.Record(Type.String(), Type.Unknown())), ...errors(500, 501) }
    }
  }, async () => engine.dts.templates())
}

export default dtsRoutes
