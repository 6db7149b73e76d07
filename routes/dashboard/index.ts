import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../schemas/common.js'
import { DashboardSchema } from '../../schemas/alarm-types.js'

/** The dashboard: alarm counts per type for the active profile. */
const dashboardRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, dashboard } = fastify

  fastify.get('/dashboard', {
    onRequest: auth.authenticate,
    schema: { tags: ['dashboard'], description: 'Alarm counts per type for the active profile.', response: { 200: DashboardSchema, ...errors(401, 404, 500) } }
  }, async (request) => dashboard.counts(request.user.userId))
}

export default dashboardRoutes
