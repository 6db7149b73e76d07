import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../../schemas/common.js'

/** The ids that are admins by configuration, whatever the service's own records say. */
const poracleAdminRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, adminUsers } = fastify
  const tags = ['admin']

  fastify.get('/poracle-admins', {
    ...auth.adminOnly,
    schema: { tags, summary: 'Ids that are admins by configuration: PORACLE_ADMIN_IDS and the engine\'s admin lists', response: { 200: Type.Array(Type.String()), ...errors(401, 403) } }
  }, async () => adminUsers.poracleAdmins())
}

export default poracleAdminRoutes
