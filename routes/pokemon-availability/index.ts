import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../schemas/common.js'
import { PokemonAvailabilitySchema } from '../../schemas/scanner.js'

/** Pokemon spawning now (`/api/pokemon-availability`), for highlighting in the pokemon picker. */
const pokemonAvailabilityRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, pokemonAvailability } = fastify

  fastify.get('/', {
    onRequest: auth.authenticate,
    schema: {
      tags: ['pokemon'],
      response: { 200: PokemonAvailabilitySchema, ...errors(401) }
    }
  }, async () => pokemonAvailability.get())
}

export default pokemonAvailabilityRoutes
