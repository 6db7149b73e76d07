import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errors } from '../../schemas/common.js'

/** Pokemon spawning now (`/api/pokemon-availability`), for highlighting in the pokemon picker. */
const pokemonAvailabilityRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, pokemonAvailability } = fastify

  fastify.get('/', {
    onRequest: auth.authenticate,
    schema: {
      tags: ['pokemon'],
      response: { 200: Type.Object({ enabled: Type.Boolean(), available: Type.Array(Type.Integer()) }), ...errors(401) }
    }
  }, async () => pokemonAvailability.get())
}

export default pokemonAvailabilityRoutes
