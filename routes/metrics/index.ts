import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../schemas/common.js'
import { notFound, unauthorized } from '../../plugins/edge/errors.js'

/**
 * `GET /metrics`, the Prometheus text format. Not there (404) unless METRICS_TOKEN is set; then only
 * for `Authorization: Bearer <METRICS_TOKEN>` (401 otherwise).
 */
const metricsRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { metrics } = fastify

  fastify.get('/metrics', {
    schema: {
      tags: ['health'],
      headers: Type.Object({ authorization: Type.Optional(Type.String()) }),
      response: { 200: Type.String({ description: 'Prometheus text exposition format 0.0.4' }), ...errors(401, 404) }
    }
  }, async (request, reply) => {
    if (metrics.registry === null) throw notFound()
    if (!metrics.authorized(request.headers.authorization)) throw unauthorized()
    reply.header('cache-control', 'no-store').type(metrics.registry.contentType)
    return await metrics.registry.metrics()
  })
}

export default metricsRoutes
