import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../schemas/common.js'

/** What the alarm engine itself switches off, so the client can hide those alarm types. */
const featureGateRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, featureGates } = fastify

  fastify.get('/upstream-disabled', {
    onRequest: auth.authenticate,
    schema: {
      tags: ['settings'],
      description: 'The `disable_*` keys the alarm engine\'s configuration turns on, sorted; empty when the engine cannot be read.',
      response: { 200: Type.Array(Type.String()), ...errors(401) }
    }
  }, async () => featureGates.upstreamDisabled())
}

export default featureGateRoutes
