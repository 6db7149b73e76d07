import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors, FreeText } from '../../../schemas/common.js'

const CheckSchema = Type.Union([
  Type.Object({ ok: Type.Literal(true), categories: Type.Array(Type.String()) }),
  Type.Object({
    ok: Type.Literal(false),
    problem: Type.Union(['unreachable', 'timeout', 'status', 'too_large', 'not_an_index'].map((p) => Type.Literal(p))),
    status: Type.Optional(Type.Integer())
  })
])

/** POST /api/admin/icon-sets/check: does an icon set answer with an index, and which categories has it. */
const iconSetRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, iconSets } = fastify

  fastify.post('/check', {
    onRequest: [auth.authenticate, auth.requireAdmin],
    // The server reads an address an admin typed: who asked for which one is worth keeping.
    config: { audit: { action: 'icon-set.check', target: (request) => (request.body as { url?: string }).url } },
    schema: {
      tags: ['admin'],
      summary: 'Read <url>/index.json (time and size limited) and list the icon set\'s categories',
      body: Type.Object({ url: FreeText({ minLength: 1, maxLength: 2048 }) }, { additionalProperties: false }),
      response: { 200: CheckSchema, ...errors(400, 401, 403) }
    }
  }, async (request) => iconSets.check(request.body.url))
}

export default iconSetRoutes
