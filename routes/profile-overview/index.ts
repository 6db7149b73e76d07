import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import type { AlarmType } from '../../schemas/alarm-types.js'
import { badRequest } from '../../plugins/edge/errors.js'
import { errors } from '../../schemas/common.js'
import {
  CopyResultSchema, NewProfileNameSchema, ProfileExportSchema, ProfileImportSchema, ProfileNoParamsSchema, ProfileOverviewSchema
} from '../../schemas/profiles.js'
import type { CopyResult } from '../../plugins/domain/profile-overview.js'

/**
 * Alarm field names are case-insensitive (the spec's deserialization rule, as for the alarm routes):
 * the import's type names and the fields of each alarm are lower-cased before the schema sees them.
 */
async function lowerCaseAlarmKeys (request: FastifyRequest): Promise<void> {
  const body = request.body as { alarms?: unknown } | null
  if (body === null || typeof body !== 'object' || body.alarms === null || typeof body.alarms !== 'object' || Array.isArray(body.alarms)) return
  const details: Array<{ field: string, message: string }> = []
  const lower = (value: Record<string, unknown>, path: string) => {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) {
      const name = key.toLowerCase()
      if (Object.hasOwn(out, name)) details.push({ field: `${path}/${key}`, message: 'repeats another field (field names are case-insensitive)' })
      out[name] = item
    }
    return out
  }
  const alarms = lower(body.alarms as Record<string, unknown>, '/alarms')
  for (const [type, list] of Object.entries(alarms)) {
    if (!Array.isArray(list)) continue
    alarms[type] = list.map((alarm: unknown, index) => alarm !== null && typeof alarm === 'object' && !Array.isArray(alarm)
      ? lower(alarm as Record<string, unknown>, `/alarms/${type}/${index}`)
      : alarm)
  }
  if (details.length > 0) throw badRequest('Invalid request', { details })
  body.alarms = alarms
}

/**
 * The cross-profile overview (`/api/profile-overview`): every alarm of every profile, duplicating a
 * profile alarm by alarm, and export / import of one profile as a JSON file.
 */
const profileOverviewRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, featureGates, profileOverview } = fastify

  fastify.addHook('onRequest', auth.authenticate)
  fastify.addHook('preHandler', featureGates.gate('disable_profiles'))

  fastify.get('/', {
    schema: { tags: ['profiles'], response: { 200: ProfileOverviewSchema, ...errors(401, 403, 404, 500) } }
  }, async (request) => profileOverview.all(request.user.userId))

  fastify.get('/export/:profileNo', {
    schema: { tags: ['profiles'], params: ProfileNoParamsSchema, response: { 200: ProfileExportSchema, ...errors(400, 401, 403, 404, 500) } }
  }, async (request) => profileOverview.exportOne(request.user.userId, request.params.profileNo))

  fastify.post('/duplicate/:profileNo', {
    schema: {
      tags: ['profiles'],
      params: ProfileNoParamsSchema,
      body: NewProfileNameSchema,
      response: { 201: CopyResultSchema, ...errors(400, 401, 403, 404, 409, 500, 501, 502, 503) }
    }
  }, async (request, reply) => {
    const result = await profileOverview.duplicate(request.user.userId, request.params.profileNo, request.body.name, request.log)
    return reply.code(201).send(copied(request, result))
  })

  fastify.post('/import', {
    preValidation: lowerCaseAlarmKeys,
    schema: { tags: ['profiles'], body: ProfileImportSchema, response: { 201: CopyResultSchema, ...errors(400, 401, 403, 404, 409, 500, 501, 502, 503) } }
  }, async (request, reply) => {
    const imported = request.body.alarms as Partial<Record<AlarmType, Array<Record<string, unknown>>>>
    const result = await profileOverview.import(request.user.userId, request.body.profileName, imported, request.log)
    return reply.code(201).send(copied(request, result))
  })

  /** The answer with a token naming the active profile (a client holding a stale one is set right). */
  function copied (request: FastifyRequest, result: CopyResult) {
    return { alarmsCopied: result.alarmsCopied, newProfileNo: result.newProfileNo, token: auth.reissue(request, { profileNo: result.activeProfileNo }).token }
  }
}

export default profileOverviewRoutes
