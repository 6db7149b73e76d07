import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { notFound } from '../../plugins/edge/errors.js'
import { errors } from '../../schemas/common.js'
import { GymIdParamsSchema, GymSchema, GymSearchQuerySchema, QuestSchema, RaidSchema } from '../../schemas/scanner.js'

const noScanner = () => notFound('No scanner database is configured.')

/**
 * Reads of the optional scanner database (`/api/scanner`): gym search and lookup with the admin area each
 * gym lies in, active raids, quests and max-battle pokemon. A failing scanner database is answered with
 * the spec's fallbacks (no gyms, 404 for one gym, empty lists); no scanner at all answers the reference's
 * 404 for one gym and for the raid and quest lists.
 */
const scannerRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, scanner } = fastify

  fastify.addHook('onRequest', auth.authenticate)

  fastify.get('/gyms', {
    schema: { tags: ['scanner'], querystring: GymSearchQuerySchema, response: { 200: Type.Array(GymSchema), ...errors(400, 401) } }
  }, async (request) => scanner.searchGyms(request.query.search, request.query.limit))

  fastify.get('/gyms/:id', {
    schema: { tags: ['scanner'], params: GymIdParamsSchema, response: { 200: GymSchema, ...errors(401, 404) } }
  }, async (request) => {
    if (!scanner.configured) throw noScanner()
    const found = await scanner.gym(request.params.id)
    if (found === undefined) throw notFound('Gym not found.')
    return found
  })

  fastify.get('/raids', {
    schema: { tags: ['scanner'], response: { 200: Type.Array(RaidSchema), ...errors(401, 404) } }
  }, async () => {
    if (!scanner.configured) throw noScanner()
    return scanner.activeRaids()
  })

  fastify.get('/quests', {
    schema: { tags: ['scanner'], response: { 200: Type.Array(QuestSchema), ...errors(401, 404) } }
  }, async () => {
    if (!scanner.configured) throw noScanner()
    return scanner.quests()
  })

  fastify.get('/max-battle-pokemon', {
    schema: { tags: ['scanner'], response: { 200: Type.Array(Type.Integer()), ...errors(401) } }
  }, async () => scanner.maxBattlePokemon())
}

export default scannerRoutes
