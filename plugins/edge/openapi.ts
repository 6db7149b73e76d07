import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'

/**
 * The OpenAPI document, generated from every route's TypeBox schemas: declaring a route's schema is
 * all it takes to document it. Served at GET /api/openapi.json.
 * @see https://github.com/fastify/fastify-swagger
 */
export default fp(async (fastify) => {
  await fastify.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'alarm-web API', version: fastify.config.BUILD_VERSION },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } }
    },
    hideUntagged: false
  })
  fastify.get('/api/openapi.json', { schema: { hide: true } }, async () => fastify.swagger())
}, { name: 'openapi', fastify: '5.x', dependencies: ['config'] })
