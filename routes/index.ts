import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { badRequest } from '../plugins/edge/errors.js'
import { errors } from '../schemas/common.js'
import {
  BulkDistanceSchema, DeletedSchema, batchCreateResultSchema, batchCreateSchema, bulkUpdateResultSchema, bulkUpdateSchema, DistanceSchema,
  UidParamsSchema, UpdatedSchema, alarmCreateSchema, alarmSchema, alarmUpdateSchema
} from '../schemas/alarms.js'
import type { AlarmWriter } from '../plugins/domain/alarm-writer.js'
import { ALARM_KINDS, type AlarmKind } from '../schemas/alarm-types.js'

type Row = Record<string, unknown>

/**
 * The spec reads alarm keys case-insensitively: top-level keys are lower-cased before validation, and a
 * key given twice in different cases is refused rather than one silently winning.
 */
async function lowerCaseKeys (request: FastifyRequest): Promise<void> {
  const body = request.body
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return
  const details: Array<{ field: string, message: string }> = []
  const lower = (object: object, path: string): Record<string, unknown> => {
    const keys = new Map<string, unknown>()
    for (const [key, value] of Object.entries(object)) {
      const name = key.toLowerCase()
      if (keys.has(name)) details.push({ field: `${path}/${key}`, message: 'repeats another field (field names are case-insensitive)' })
      keys.set(name, value)
    }
    return Object.fromEntries(keys)
  }
  const isObject = (value: unknown): value is object => value !== null && typeof value === 'object' && !Array.isArray(value)
  const top = lower(body, '')
  // A batch carries alarms inside it: their keys are read the same way.
  if (request.routeOptions.url?.endsWith('/batch') === true && Array.isArray(top.alarms)) {
    top.alarms = top.alarms.map((item: unknown, i) => (isObject(item) ? lower(item, `/alarms/${i}`) : item))
  }
  if (isObject(top.patch)) top.patch = lower(top.patch, '/patch')
  if (details.length > 0) throw badRequest('Invalid request', { details })
  request.body = top
}

/** How many items ended in each status, under the answer's names for them. */
function counts<S extends string, N extends string> (results: Array<{ status: string }>, statuses: readonly S[], names: readonly N[]): Record<N, number> {
  return Object.fromEntries(statuses.map((status, i) => [names[i], results.filter((r) => r.status === status).length])) as Record<N, number>
}

/** The routes of one alarm type; every one of them is behind the type's feature gate. */
function typeRoutes (kind: AlarmKind, writer: AlarmWriter): FastifyPluginAsyncTypebox {
  return async (fastify) => {
    const { auth, featureGates } = fastify
    fastify.addHook('onRequest', auth.authenticate)
    fastify.addHook('preValidation', lowerCaseKeys)
    fastify.addHook('preHandler', featureGates.gate(kind.disableKey))

    const Alarm = alarmSchema(kind.type)
    const tags = [kind.path.slice(1)]
    const location = (uid: number) => `${fastify.prefix}/${uid}`

    fastify.get('/', {
      schema: { tags, description: `The caller's ${kind.type} alarms of the active profile.`, response: { 200: Type.Array(Alarm), ...errors(401, 403, 404, 500, 501) } }
    }, async (request) => writer.list(kind, request.user.userId))

    fastify.get('/:uid', {
      schema: { tags, params: UidParamsSchema, response: { 200: Alarm, ...errors(400, 401, 403, 404, 500, 501) } }
    }, async (request) => writer.one(kind, request.user.userId, request.params.uid))

    fastify.post('/', {
      schema: {
        tags,
        description: '201 with a Location when created; 200 with uid 0 when the engine already has this exact alarm.',
        body: alarmCreateSchema(kind.type),
        response: { 201: Alarm, 200: Alarm, ...errors(400, 401, 403, 404, 409, 500, 501, 503) }
      }
    }, async (request, reply) => {
      const { created, alarm } = await writer.create(kind, request.user.userId, request.body as Row)
      if (!created) return alarm
      return reply.code(201).header('location', location(alarm.uid)).send(alarm)
    })

    fastify.post('/batch', {
      schema: {
        tags,
        description: 'Creates many alarms in one alarm-engine call. Per item: created, duplicate (already there, or equal to an earlier item) or refused with the reason.',
        body: batchCreateSchema(kind.type),
        response: { 200: batchCreateResultSchema(kind.type), ...errors(400, 401, 403, 404, 409, 500, 501, 503) }
      }
    }, async (request) => {
      const results = await writer.createMany(kind, request.user.userId, request.body.alarms as Row[])
      return { ...counts(results, ['created', 'duplicate', 'refused'] as const, ['created', 'duplicates', 'refused'] as const), results }
    })

    fastify.patch('/', {
      schema: {
        tags,
        description: 'Applies one partial change to many alarms in one alarm-engine call; each keeps the fields the patch does not name. Per uid: updated, unchanged or refused with the reason.',
        body: bulkUpdateSchema(kind.type),
        response: { 200: bulkUpdateResultSchema(kind.type), ...errors(400, 401, 403, 404, 409, 500, 501, 503) }
      }
    }, async (request) => {
      const results = await writer.updateMany(kind, request.user.userId, request.body.uids, request.body.patch as Row)
      return { ...counts(results, ['updated', 'unchanged', 'refused'] as const, ['updated', 'unchanged', 'refused'] as const), results }
    })

    fastify.put('/distance', {
      schema: {
        tags,
        description: 'Sets the distance of every alarm of this type in the active profile.',
        body: DistanceSchema,
        response: { 200: UpdatedSchema, ...errors(400, 401, 403, 404, 409, 500, 501, 503) }
      }
    }, async (request) => ({ updated: await writer.setDistance(kind, request.user.userId, request.body, null) }))

    fastify.put('/distance/bulk', {
      schema: { tags, body: BulkDistanceSchema, response: { 200: UpdatedSchema, ...errors(400, 401, 403, 404, 409, 500, 501, 503) } }
    }, async (request) => ({ updated: await writer.setDistance(kind, request.user.userId, request.body.distance, request.body.uids) }))

    fastify.put('/:uid', {
      schema: {
        tags,
        description: 'Partial update: null or absent fields keep their stored values. The uid may change (PoracleNG re-keys edited rows).',
        params: UidParamsSchema,
        body: alarmUpdateSchema(kind.type),
        response: { 200: Alarm, ...errors(400, 401, 403, 404, 409, 500, 501, 503) }
      }
    }, async (request) => writer.update(kind, request.user.userId, request.params.uid, request.body as Row))

    fastify.delete('/:uid', {
      schema: { tags, params: UidParamsSchema, response: { 204: Type.Null(), ...errors(400, 401, 403, 404, 409, 500, 501, 503) } }
    }, async (request, reply) => {
      await writer.remove(kind, request.user.userId, request.params.uid)
      return reply.code(204).send(null)
    })

    fastify.delete('/', {
      schema: { tags, description: 'Deletes every alarm of this type in the active profile.', response: { 200: DeletedSchema, ...errors(401, 403, 404, 409, 500, 501, 503) } }
    }, async (request) => ({ deleted: await writer.removeAll(kind, request.user.userId) }))
  }
}

/**
 * The ten alarm URL families, `/api/<type path>` (`/api/monsters`, `/api/raids`, ...), generated from the
 * alarm-type table: one folder stands for all of them, the API root, because no one of them owns the code.
 */
const alarmRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { alarmWriter } = fastify

  for (const kind of ALARM_KINDS) await fastify.register(typeRoutes(kind, alarmWriter), { prefix: kind.path })
}

export default alarmRoutes
