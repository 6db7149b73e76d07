import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

/** `/version`: what is running, from the build's own stamp. */
const versionRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { config } = fastify

  fastify.get('/version', {
    schema: {
      tags: ['health'],
      response: { 200: Type.Object({ version: Type.String(), revision: Type.String(), revisionShort: Type.String(), buildDate: Type.String(), environment: Type.String() }) }
    }
  }, async () => ({
    version: config.BUILD_VERSION,
    revision: config.BUILD_REVISION,
    revisionShort: config.BUILD_REVISION.slice(0, 7),
    buildDate: config.BUILD_DATE,
    environment: config.NODE_ENV
  }))
}

export default versionRoutes
