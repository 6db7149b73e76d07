import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errors } from '../../schemas/common.js'
import {
  FenceCreateSchema, FenceIdParamsSchema, FenceRenameSchema, GeoJsonExportSchema, GeoJsonImportSchema,
  ImportRefusalSchema, ImportResultSchema, RegionSchema, UserFenceSchema
} from '../../schemas/geofences.js'
import { readFeatures, toFeatureCollection } from './geojson.js'

/** The reference's upload limit for GeoJSON imports. */
const IMPORT_LIMIT_BYTES = 5 * 1024 * 1024

/**
 * The caller's own geofences (`/api/geofences`): reads and delete are open, other writes are gated by
 * `disable_user_geofences` (activation also by `disable_areas`). Another user's fence answers 404.
 */
const geofenceRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, featureGates, userGeofences, koji } = fastify
  const fenceGate = featureGates.gate('disable_user_geofences')
  const areasGate = featureGates.gate('disable_areas')

  fastify.addHook('onRequest', auth.authenticate)
  // Files saved by map tools carry GeoJSON's own media type.
  fastify.addContentTypeParser('application/geo+json', { parseAs: 'string', bodyLimit: IMPORT_LIMIT_BYTES }, fastify.getDefaultJsonParser('error', 'error'))

  fastify.get('/custom', {
    schema: { tags: ['geofences'], response: { 200: Type.Array(UserFenceSchema), ...errors(401) } }
  }, async (request) => userGeofences.list(request.user.userId))

  fastify.post('/custom', {
    preHandler: fenceGate,
    schema: { tags: ['geofences'], body: FenceCreateSchema, response: { 201: UserFenceSchema, ...errors(400, 401, 403, 409, 500, 502, 503) } }
  }, async (request, reply) => {
    const activate = !(await featureGates.isDisabled('disable_areas'))
    return reply.code(201).send(await userGeofences.create(request.user.userId, request.body, { activate }))
  })

  fastify.put('/custom/:id', {
    preHandler: fenceGate,
    schema: { tags: ['geofences'], params: FenceIdParamsSchema, body: FenceRenameSchema, response: { 200: UserFenceSchema, ...errors(400, 401, 403, 404, 409, 500, 503) } }
  }, async (request) => userGeofences.rename(request.user.userId, request.params.id, request.body))

  fastify.delete('/custom/:id', {
    schema: { tags: ['geofences'], params: FenceIdParamsSchema, response: { 204: Type.Null(), ...errors(401, 404, 409, 500, 502, 503) } }
  }, async (request, reply) => {
    await userGeofences.delete(request.user.userId, request.params.id)
    return reply.code(204).send(null)
  })

  fastify.post('/custom/:id/submit', {
    preHandler: fenceGate,
    schema: { tags: ['geofences'], params: FenceIdParamsSchema, response: { 200: UserFenceSchema, ...errors(400, 401, 403, 404) } }
  }, async (request) => userGeofences.submit(request.user.userId, request.params.id))

  for (const action of ['activate', 'deactivate'] as const) {
    fastify.post(`/custom/:id/${action}`, {
      preHandler: [fenceGate, areasGate],
      schema: { tags: ['geofences'], params: FenceIdParamsSchema, response: { 204: Type.Null(), ...errors(401, 403, 404, 409, 500, 503) } }
    }, async (request, reply) => {
      await userGeofences[action](request.user.userId, request.params.id)
      return reply.code(204).send(null)
    })
  }

  fastify.get('/regions', {
    schema: { tags: ['geofences'], response: { 200: Type.Array(RegionSchema), ...errors(401) } }
  }, async () => koji.regions())

  fastify.get('/export/geojson', {
    schema: { tags: ['geofences'], response: { 200: GeoJsonExportSchema, ...errors(401) } }
  }, async (request, reply) => {
    const fences = await userGeofences.list(request.user.userId)
    const name = `geofences-${request.user.userId.replace(/[^A-Za-z0-9_-]/g, '_')}.geojson`
    return reply.type('application/geo+json').header('content-disposition', `attachment; filename="${name}"`).send(toFeatureCollection(fences))
  })

  fastify.post('/import/geojson', {
    preHandler: fenceGate,
    bodyLimit: IMPORT_LIMIT_BYTES,
    schema: {
      tags: ['geofences'],
      description: 'A GeoJSON FeatureCollection as the request body (application/json or application/geo+json), at most 5 MB and 50 features. Every feature is checked before anything is created; any bad feature answers 400 with one entry per bad feature and creates nothing.',
      body: GeoJsonImportSchema,
      response: { 201: ImportResultSchema, 400: ImportRefusalSchema, ...errors(401, 403, 409, 413, 415, 500, 503) }
    },
    errorHandler: (error, _request, reply) => {
      // An oversized upload or a file of the wrong shape is answered like any other unusable file.
      const unusable = (message: string) => reply.code(400).send({ error: message })
      if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return unusable('The file is larger than 5 MB.')
      if (error.validation && error.validationContext === 'body') {
        return unusable(error.validation.some((v) => v.keyword === 'maxItems') ? 'A file may hold at most 50 features.' : 'The file is not a GeoJSON FeatureCollection.')
      }
      throw error
    }
  }, async (request, reply) => {
    const { inputs, errors: readProblems, warnings } = readFeatures(request.body.features)
    const { created, problems } = await userGeofences.importAll(request.user.userId, inputs, readProblems)
    if (problems.length > 0) {
      return reply.code(400).send({ error: 'The file has features that cannot be imported; nothing was created.', errors: problems, warnings })
    }
    return reply.code(201).send({ created, errors: [], warnings })
  })
}

export default geofenceRoutes
