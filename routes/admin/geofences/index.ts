import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errors } from '../../../schemas/common.js'
import { ApproveSchema, FenceIdParamsSchema, RejectSchema, ReviewedFenceSchema, UserFenceSchema } from '../../../schemas/geofences.js'

/**
 * Review of user geofences (`/api/admin/geofences`, admins only): every fence, the review queue,
 * approval (published to Koji under the promoted name), rejection with a reason, and deletion.
 */
const adminGeofenceRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, userGeofences } = fastify

  fastify.get('/all', {
    ...auth.adminOnly,
    schema: { tags: ['admin', 'geofences'], response: { 200: Type.Array(ReviewedFenceSchema), ...errors(401, 403) } }
  }, async () => userGeofences.all())

  fastify.get('/submissions', {
    ...auth.adminOnly,
    schema: { tags: ['admin', 'geofences'], response: { 200: Type.Array(ReviewedFenceSchema), ...errors(401, 403) } }
  }, async () => userGeofences.all('pending_review'))

  fastify.delete('/:id', {
    ...auth.adminOnly,
    config: { audit: { action: 'geofence.delete' } },
    schema: { tags: ['admin', 'geofences'], params: FenceIdParamsSchema, response: { 204: Type.Null(), ...errors(401, 403, 404, 500, 502, 503) } }
  }, async (request, reply) => {
    await userGeofences.adminDelete(request.params.id)
    return reply.code(204).send(null)
  })

  fastify.post('/submissions/:id/approve', {
    ...auth.adminOnly,
    config: { audit: { action: 'geofence.approve' } },
    schema: {
      tags: ['admin', 'geofences'],
      params: FenceIdParamsSchema,
      body: Type.Optional(ApproveSchema),
      response: { 200: UserFenceSchema, ...errors(400, 401, 403, 404, 409, 500, 502, 503) }
    }
  }, async (request) => userGeofences.approve(request.user.userId, request.params.id, request.body ?? {}))

  fastify.post('/submissions/:id/reject', {
    ...auth.adminOnly,
    config: { audit: { action: 'geofence.reject' } },
    schema: { tags: ['admin', 'geofences'], params: FenceIdParamsSchema, body: RejectSchema, response: { 200: UserFenceSchema, ...errors(400, 401, 403, 404) } }
  }, async (request) => userGeofences.reject(request.user.userId, request.params.id, request.body.reviewNotes.trim()))
}

export default adminGeofenceRoutes
