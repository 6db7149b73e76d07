import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../schemas/common.js'
import { PublicConfigSchema, TemplatesSchema } from '../../schemas/engine-config.js'

/** The engine's configuration as the client needs it (`/api/config`), and its alert templates. */
const engineConfigRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, engineConfig } = fastify

  fastify.get('/', {
    onRequest: auth.authenticate,
    schema: { tags: ['config'], response: { 200: PublicConfigSchema, ...errors(401) } }
  }, async (request) => engineConfig.forClient(request.log))

  fastify.get('/templates', {
    schema: { tags: ['config'], response: { 200: TemplatesSchema } }
  }, async (request) => engineConfig.templates(request.log))
}

export default engineConfigRoutes
