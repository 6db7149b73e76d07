import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../schemas/common.js'
import { TestAlertParamsSchema, TestAlertResultSchema } from '../../schemas/alarms.js'

/** Test alerts: the engine renders and delivers a sample alert for one of the caller's alarms. */
const testAlertRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, rateLimits, testAlerts } = fastify

  fastify.post('/test-alert/:type/:uid', {
    onRequest: auth.authenticate,
    config: { rateLimit: rateLimits.testAlert },
    schema: {
      tags: ['test-alerts'],
      description: 'Has the engine render and deliver a sample alert matching one alarm (PoracleNG only).',
      params: TestAlertParamsSchema,
      response: { 200: TestAlertResultSchema, ...errors(400, 401, 403, 404, 429, 500, 501) }
    }
  }, async (request) => {
    await testAlerts.send(request.user.userId, request.params.type, request.params.uid)
    return { status: 'ok' as const, message: 'Test alert sent' }
  })
}

export default testAlertRoutes
