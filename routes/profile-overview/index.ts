import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { ALARM_TYPES, type AlarmType } from '../../schemas/alarm-types.js'
import { badRequest } from '../../plugins/edge/errors.js'
import { errors } from '../../schemas/common.js'
import {
  CopyResultSchema, NewProfileNameSchema, ProfileExportSchema, ProfileImportSchema, ProfileNoParamsSchema, ProfileOverviewSchema,
  TRANSFER_VERSION, fromTransferAlarm, toTransferAlarm
} from '../../schemas/profiles.js'
import { findProfile, geographyOf, humanGeography, sameGeography, storedActiveHours, typesIn, uniqueName } from '../../plugins/domain/profiles.js'
import type { AlarmWriter, NewAlarms } from '../../plugins/domain/alarm-writer.js'

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

interface AlarmToCopy {
  type: AlarmType
  body: Record<string, unknown>
}

/**
 * The engine drops names of user-drawn fences from override areas, so an alarm naming the user's own
 * fence is sent without them and keeps its full list for the alarm writer to write once created.
 * Another user's fence is a 400 on that alarm, before anything is written.
 */
async function withoutOwnFences (alarmWriter: AlarmWriter, userId: string, alarms: AlarmToCopy[]): Promise<NewAlarms[]> {
  const position = new Map<AlarmType, number>()
  const splits = await alarmWriter.splitOwnFences(userId, alarms.map((alarm) => {
    const index = position.get(alarm.type) ?? 0
    position.set(alarm.type, index + 1)
    const names = Array.isArray(alarm.body.override_areas) ? alarm.body.override_areas as unknown[] : []
    return { names, field: `/alarms/${alarm.type}/${index}/override_areas` }
  }))
  return alarms.map((alarm, i) => {
    const split = splits[i]
    if (split === undefined || !split.own) return { ...alarm, ownAreas: null }
    const body = { ...alarm.body }
    if (split.sent === null) delete body.override_areas
    else body.override_areas = split.sent
    return { type: alarm.type, body, ownAreas: split.names }
  })
}

/**
 * The cross-profile overview (`/api/profile-overview`): every alarm of every profile, duplicating a
 * profile alarm by alarm, and export / import of one profile as a JSON file.
 */
const profileOverviewRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { alarmWriter, auth, engine, featureGates, profiles, userWriteLock } = fastify

  fastify.addHook('onRequest', auth.authenticate)
  fastify.addHook('preHandler', featureGates.gate('disable_profiles'))

  fastify.get('/', {
    schema: { tags: ['profiles'], response: { 200: ProfileOverviewSchema, ...errors(401, 403, 404, 500) } }
  }, async (request) => {
    const snapshot = await engine.tracking.allProfiles(request.user.userId, { includeDescriptions: true })
    return { human: { ...snapshot.human }, profile: snapshot.profiles.map((p) => ({ ...p })), ...snapshot.alarms }
  })

  fastify.get('/export/:profileNo', {
    schema: { tags: ['profiles'], params: ProfileNoParamsSchema, response: { 200: ProfileExportSchema, ...errors(400, 401, 403, 404, 500) } }
  }, async (request) => {
    const { userId } = request.user
    const { profileNo } = request.params
    const [state, snapshot] = await Promise.all([profiles.load(userId), engine.tracking.allProfiles(userId, { includeDescriptions: false })])
    const profile = findProfile(state, profileNo)
    const alarms = Object.fromEntries(ALARM_TYPES.map((type) => [
      type,
      snapshot.alarms[type].filter((row) => Number(row.profile_no) === profileNo).map((row) => toTransferAlarm(type, row))
    ]))
    return { profileName: profile.name, version: TRANSFER_VERSION, alarms }
  })

  fastify.post('/duplicate/:profileNo', {
    schema: {
      tags: ['profiles'],
      params: ProfileNoParamsSchema,
      body: NewProfileNameSchema,
      response: { 201: CopyResultSchema, ...errors(400, 401, 403, 404, 409, 500, 501, 502, 503) }
    }
  }, async (request, reply) => userWriteLock.run(request.user.userId, async () => {
    const { userId } = request.user
    const { profileNo } = request.params
    const [state, snapshot] = await Promise.all([profiles.load(userId), engine.tracking.allProfiles(userId, { includeDescriptions: false })])
    const source = findProfile(state, profileNo)
    await profiles.ensureAlarmTypes(typesIn(snapshot.alarms, profileNo))
    const alarms = await withoutOwnFences(alarmWriter, userId, ALARM_TYPES.flatMap((type) => snapshot.alarms[type]
      .filter((row) => Number(row.profile_no) === profileNo)
      .map((row) => ({ type, body: toTransferAlarm(type, row) }))))
    const wanted = geographyOf(source)
    const result = await profiles.createFilled(state, request.body.name, {
      activeHours: storedActiveHours(source.activeHours),
      alarms,
      ...(sameGeography(wanted, humanGeography(state.human)) ? {} : { geography: wanted })
    }, request.log)
    const token = auth.reissue(request, { profileNo: Number(state.human.current_profile_no) }).token
    return reply.code(201).send({ alarmsCopied: result.copied, newProfileNo: result.profileNo, token })
  }))

  fastify.post('/import', {
    preValidation: lowerCaseAlarmKeys,
    schema: { tags: ['profiles'], body: ProfileImportSchema, response: { 201: CopyResultSchema, ...errors(400, 401, 403, 404, 409, 500, 501, 502, 503) } }
  }, async (request, reply) => userWriteLock.run(request.user.userId, async () => {
    const { userId } = request.user
    const imported = request.body.alarms as Partial<Record<AlarmType, Array<Record<string, unknown>>>>
    const all = ALARM_TYPES.flatMap((type) => (imported[type] ?? []).map((alarm) => ({ type, body: fromTransferAlarm(alarm) })))
    await profiles.ensureAlarmTypes([...new Set(all.map((a) => a.type))])
    const alarms = await withoutOwnFences(alarmWriter, userId, all)
    const state = await profiles.load(userId)
    const name = uniqueName(state.profiles.map((p) => p.name), request.body.profileName.trim())
    const result = await profiles.createFilled(state, name, { activeHours: [], alarms }, request.log)
    const token = auth.reissue(request, { profileNo: Number(state.human.current_profile_no) }).token
    return reply.code(201).send({ alarmsCopied: result.copied, newProfileNo: result.profileNo, token })
  }))
}

export default profileOverviewRoutes
