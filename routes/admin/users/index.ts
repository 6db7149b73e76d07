import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../../schemas/common.js'
import { AdminExplanationParamsSchema, ExplanationRequestSchema, ExplanationSchema, RecentListSchema, RecentQuerySchema } from '../../../schemas/alarm-explanations.js'
import {
  AdminUserDetailSchema, DeletedAlarmsSchema, UserIdQuerySchema, UserListQuerySchema, UserOverviewSchema, UserPageSchema, UserUpdateSchema
} from '../../../schemas/admin-users.js'

/**
 * User administration under /api/admin: the list and edits read and write the engine's database
 * directly (as the spec allows for admin bulk operations); single-user reads and the block, pause and
 * create actions go through the engine where it has a route for them.
 */
const adminUserRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, adminUsers, alarmExplanations } = fastify
  const tags = ['admin']

  fastify.get('/users', {
    ...auth.adminOnly,
    schema: { tags, summary: 'Engine users, paged, with search and filters', querystring: UserListQuerySchema, response: { 200: UserPageSchema, ...errors(400, 401, 403) } }
  }, async (request) => adminUsers.list(request.query))

  fastify.get('/users/by-id', {
    ...auth.adminOnly,
    schema: { tags, querystring: UserIdQuerySchema, response: { 200: AdminUserDetailSchema, ...errors(400, 401, 403, 404, 500, 501) } }
  }, async (request) => adminUsers.one(request.query.id))

  fastify.post('/users/avatars', {
    ...auth.adminOnly,
    config: { changes: false },
    schema: {
      tags,
      summary: 'Avatar addresses of up to 200 users, by id (from what is known; the chat platform is not asked)',
      body: Type.Array(Type.String({ maxLength: 255 }), { maxItems: 200 }),
      response: { 200: Type.Record(Type.String(), Type.String()), ...errors(400, 401, 403) }
    }
  }, async (request) => adminUsers.avatarsOf(request.body))

  fastify.get('/users/overview', {
    ...auth.adminOnly,
    schema: {
      tags,
      summary: 'The user\'s profiles with alarm counts per type, and the areas the user may choose',
      querystring: UserIdQuerySchema,
      response: { 200: UserOverviewSchema, ...errors(400, 401, 403, 404, 500, 503) }
    }
  }, async (request) => adminUsers.overview(request.query.id))

  fastify.patch('/users', {
    ...auth.adminOnly,
    config: { audit: { action: 'user.edit' } },
    schema: {
      tags,
      summary: 'Edit name, notes, language, area restriction, community membership, and the active profile\'s location and areas',
      querystring: UserIdQuerySchema,
      body: UserUpdateSchema,
      response: { 200: AdminUserDetailSchema, ...errors(400, 401, 403, 404, 409, 500, 503) }
    }
  }, async (request) => {
    await adminUsers.update(request.query.id, request.body)
    return adminUsers.one(request.query.id)
  })

  const action = (path: string, summary: string, run: (id: string, adminId: string) => Promise<void>) => {
    fastify.put(path, {
      ...auth.adminOnly,
      config: { audit: { action: `user.${path.slice('/users/'.length)}` } },
      schema: { tags, summary, querystring: UserIdQuerySchema, response: { 200: AdminUserDetailSchema, ...errors(400, 401, 403, 404, 500, 501) } }
    }, async (request) => {
      await run(request.query.id, request.user.userId)
      request.log.info({ event: 'AdminUserAction', action: path, admin: request.user.userId }, 'admin user action')
      return adminUsers.one(request.query.id)
    })
  }
  action('/users/disable', 'Block the account: refresh sessions end, the next API call is refused', (id, adminId) => adminUsers.setBlocked(id, true, adminId))
  action('/users/enable', 'Unblock the account', (id, adminId) => adminUsers.setBlocked(id, false, adminId))
  action('/users/pause', 'Stop the user\'s alerts', (id) => adminUsers.setPaused(id, true))
  action('/users/resume', 'Resume the user\'s alerts', (id) => adminUsers.setPaused(id, false))

  fastify.delete('/users/alarms', {
    ...auth.adminOnly,
    config: { audit: { action: 'user.delete-alarms' } },
    schema: { tags, summary: 'Delete every alarm of the user (all types and profiles)', querystring: UserIdQuerySchema, response: { 200: DeletedAlarmsSchema, ...errors(400, 401, 403, 404, 409, 500) } }
  }, async (request) => ({ deleted: await adminUsers.deleteAlarms(request.query.id) }))

  fastify.delete('/users', {
    ...auth.adminOnly,
    config: { audit: { action: 'user.delete' } },
    schema: { tags, summary: 'Delete the user and everything of theirs, atomically', querystring: UserIdQuerySchema, response: { 204: Type.Null(), ...errors(400, 401, 403, 404, 409, 500) } }
  }, async (request, reply) => {
    // Under the user's write lock: no alarm or profile change of theirs runs while they are purged.
    await adminUsers.purge(request.query.id, request.user.userId)
    request.log.info({ event: 'AdminUserPurged', admin: request.user.userId }, 'admin purged a user')
    return reply.code(204).send(null)
  })

  // "Why didn't this member get that alert?" To anyone but an admin, another member's explanations do not
  // exist: 404, as for a member the engine does not know.
  fastify.post('/users/:id/alarm-explanations', {
    ...auth.adminOnlyUnseen,
    config: { rateLimit: alarmExplanations.rateLimit, audit: { action: 'alarm-explanations.ask' }, changes: false },
    schema: {
      tags: [...tags, 'alarm-explanations'],
      summary: 'The answer of POST /api/alarm-explanations for the member `id`',
      params: AdminExplanationParamsSchema,
      body: ExplanationRequestSchema,
      response: { 200: ExplanationSchema, ...errors(400, 401, 404, 429, 500) }
    }
  }, async (request) => alarmExplanations.explain(request.params.id, request.body))

  // The member's recent list, as they see it; its event ids explain only through the route above.
  fastify.get('/users/:id/alarm-explanations/recent', {
    ...auth.adminOnlyUnseen,
    config: { rateLimit: alarmExplanations.recentRateLimit, audit: { action: 'alarm-explanations.recent' } },
    schema: {
      tags: [...tags, 'alarm-explanations'],
      summary: 'The answer of GET /api/alarm-explanations/recent for the member `id`',
      params: AdminExplanationParamsSchema,
      querystring: RecentQuerySchema,
      response: { 200: RecentListSchema, ...errors(400, 401, 404, 429, 500, 501, 502, 503, 504) }
    }
  }, async (request) => alarmExplanations.recent(request.params.id, request.query))
}

export default adminUserRoutes
