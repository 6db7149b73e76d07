import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../schemas/common.js'

/** Any text: an unusable locale falls back to English instead of failing the picker. */
const LocaleQuerySchema = Type.Object({ locale: Type.Optional(Type.String({ maxLength: 200 })) })
const NamesSchema = Type.Record(Type.String(), Type.String())

/** `{ id: name }` maps for pokemon, moves and items (`/api/masterdata`); items need a signed-in user, as in the reference. */
const masterNameRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { masterNames, auth } = fastify
  const tags = ['masterdata']

  fastify.get('/pokemon', {
    schema: { tags, querystring: LocaleQuerySchema, response: { 200: NamesSchema, ...errors(400, 503) } }
  }, async (request) => masterNames.pokemon(request.query.locale))

  fastify.get('/moves', {
    schema: { tags, querystring: LocaleQuerySchema, response: { 200: NamesSchema, ...errors(400, 503) } }
  }, async () => masterNames.moves())

  fastify.get('/items', {
    onRequest: auth.authenticate,
    schema: { tags, querystring: LocaleQuerySchema, response: { 200: NamesSchema, ...errors(400, 401, 503) } }
  }, async () => masterNames.items())
}

export default masterNameRoutes
