import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { TSchema } from '@sinclair/typebox'
import { errors } from '../../../schemas/common.js'
import {
  AlarmsInsightSchema, AreaInsightParamsSchema, AreaInsightSchema, AreasInsightSchema, MembersInsightSchema, NoiseInsightSchema, SignInsInsightSchema
} from '../../../schemas/insights.js'
import { notFound } from '../../../plugins/edge/errors.js'

/**
 * Community insight for admins (`/api/admin/insights/*`): one panel per URL, each answered from the
 * site-wide copy `insights` keeps (10 minutes, refreshed in the background). Admins only; an
 * impersonation carries the member's rights, so it is refused too.
 */
const insightRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, insights } = fastify

  const panel = (url: string, summary: string, schema: TSchema, answer: () => Promise<unknown>) => {
    fastify.get(url, {
      ...auth.adminOnly,
      schema: { tags: ['admin'], summary, response: { 200: schema, ...errors(401, 403, 500, 503) } }
    }, async (_request, reply) => {
      reply.header('cache-control', 'no-store')
      return await answer()
    })
  }

  panel('/members', 'Members: how many, signed in lately, paused, blocked, without location; sign-ins per day', MembersInsightSchema, insights.members)
  panel('/alarms', 'Alarms per type, the most tracked species, raid bosses and quest rewards, members by alarm and profile count', AlarmsInsightSchema, insights.alarms)
  panel('/areas', 'Members per area, and member fences waiting for review', AreasInsightSchema, insights.areas)
  fastify.get('/areas/:name', {
    ...auth.adminOnly,
    schema: { tags: ['admin'], summary: 'One area: its members and the pokémon they track most (kept 10 minutes per area)', params: AreaInsightParamsSchema, response: { 200: AreaInsightSchema, ...errors(400, 401, 403, 404, 500, 503) } }
  }, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const area = await insights.area(request.params.name)
    if (area === null) throw notFound('No fence and no member\'s area has this name.')
    return area
  })
  panel('/noise', 'Members by the alerts their active profile would have sent lately, against the engine\'s limit', NoiseInsightSchema, insights.noise)
  panel('/sign-ins', 'Sign-ins by method over the last 30 days', SignInsInsightSchema, insights.signIns)
}

export default insightRoutes
