import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { conflict, notFound } from '../../plugins/edge/errors.js'
import { errors } from '../../schemas/common.js'
import {
  CreateProfileSchema, DuplicateProfileSchema, ProfileNoParamsSchema, ProfileSchema, SwitchResultSchema, UpdateProfileSchema,
  parseActiveHours, type ActiveHoursInput
} from '../../schemas/profiles.js'
import {
  ensureNameFree, findProfile, geographyOf, humanGeography, sameGeography, storedActiveHours, typesIn
} from '../../plugins/domain/profiles.js'
import { Undo } from '../../lib/undo.js'

/**
 * Alarm profiles (`/api/profiles`): list, create, rename and schedule, delete, switch, and duplicate
 * through the engine's copy call. Everything goes through the engine except the rename, which the engine
 * cannot do: that one is written to `profiles.name` directly and the engine is told to reload.
 */
const profileRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, engine, engineDb, featureGates, profiles, userWriteLock } = fastify

  fastify.addHook('onRequest', auth.authenticate)
  // Active hours sent as JSON text are checked before any hook that asks the engine, so bad input never
  // costs an engine call (parseActiveHours copes with a body the schema has not checked yet).
  fastify.addHook('preValidation', async (request) => {
    const body = request.body as { activeHours?: ActiveHoursInput } | undefined
    if (body?.activeHours !== undefined) parseActiveHours(body.activeHours)
  })
  fastify.addHook('preHandler', featureGates.gate('disable_profiles'))

  fastify.get('/', {
    schema: { tags: ['profiles'], response: { 200: Type.Array(ProfileSchema), ...errors(401, 403, 404, 500) } }
  }, async (request) => (await profiles.load(request.user.userId)).profiles)

  fastify.post('/', {
    schema: { tags: ['profiles'], body: CreateProfileSchema, response: { 201: ProfileSchema, ...errors(400, 401, 403, 404, 409, 500, 502, 503) } }
  }, async (request, reply) => userWriteLock.run(request.user.userId, async () => {
    const { userId } = request.user
    const activeHours = parseActiveHours(request.body.activeHours)
    const profileNo = await profiles.create(await profiles.load(userId), request.body.name, activeHours)
    return reply.code(201).send(findProfile(await profiles.load(userId), profileNo))
  }))

  fastify.put('/switch/:profileNo', {
    schema: { tags: ['profiles'], params: ProfileNoParamsSchema, response: { 200: SwitchResultSchema, ...errors(400, 401, 403, 404, 409, 500, 503) } }
  }, async (request) => userWriteLock.run(request.user.userId, async () => {
    const { userId } = request.user
    const { profileNo } = request.params
    const state = await profiles.load(userId)
    const profile = findProfile(state, profileNo)
    // Without a row it is the synthetic entry of a PoracleJS user's implicit profile: active already, and
    // the engine would not find it.
    if (state.rows.some((r) => Number(r.profile_no) === profileNo)) await engine.humans.switchProfile(userId, profileNo)
    return { profile: { ...profile, active: true }, token: auth.reissue(request, { profileNo }).token }
  }))

  fastify.put('/:profileNo', {
    schema: { tags: ['profiles'], params: ProfileNoParamsSchema, body: UpdateProfileSchema, response: { 200: ProfileSchema, ...errors(400, 401, 403, 404, 409, 500, 503) } }
  }, async (request) => userWriteLock.run(request.user.userId, async () => {
    const { userId } = request.user
    const { profileNo } = request.params
    const { name } = request.body
    const activeHours = request.body.activeHours === undefined ? undefined : parseActiveHours(request.body.activeHours)
    const state = await profiles.load(userId)
    const row = state.rows.find((r) => Number(r.profile_no) === profileNo)
    if (row === undefined) throw notFound('Profile not found.')
    if (name !== undefined) ensureNameFree(state, name, profileNo)

    const undo = new Undo(request.log)
    await undo.guard(async () => {
      if (name !== undefined && name !== row.name) {
        const rename = (to: string) => engineDb.renameProfile(userId, profileNo, to)
        await rename(name)
        undo.push('restore the profile name', async () => { await rename(row.name); await engine.reload() })
        await engine.reload()
      }
      if (activeHours !== undefined) await engine.profiles.update(userId, { profile_no: profileNo, active_hours: activeHours })
    })
    return findProfile(await profiles.load(userId), profileNo)
  }))

  fastify.delete('/:profileNo', {
    schema: { tags: ['profiles'], params: ProfileNoParamsSchema, response: { 204: Type.Null(), ...errors(400, 401, 403, 404, 409, 500, 503) } }
  }, async (request, reply) => userWriteLock.run(request.user.userId, async () => {
    const { userId } = request.user
    const { profileNo } = request.params
    const state = await profiles.load(userId)
    if (!state.rows.some((r) => Number(r.profile_no) === profileNo)) throw notFound('Profile not found.')
    // The engine keeps a lone profile and answers as if it had deleted it.
    if (state.rows.length === 1) throw conflict('The last profile cannot be deleted.')
    await profiles.delete(userId, profileNo)
    return reply.code(204).send(null)
  }))

  fastify.post('/duplicate', {
    schema: { tags: ['profiles'], body: DuplicateProfileSchema, response: { 201: ProfileSchema, ...errors(400, 401, 403, 404, 409, 500, 501, 502, 503) } }
  }, async (request, reply) => userWriteLock.run(request.user.userId, async () => {
    const { userId } = request.user
    const { fromProfileNo, name } = request.body
    const state = await profiles.load(userId)
    const source = findProfile(state, fromProfileNo)
    const snapshot = await engine.tracking.allProfiles(userId)
    await profiles.ensureAlarmTypes(typesIn(snapshot.alarms, fromProfileNo))

    const current = Number(state.human.current_profile_no)
    const undo = new Undo(request.log)
    const profileNo = await undo.guard(async () => {
      const created = await profiles.create(state, name, storedActiveHours(source.activeHours))
      undo.push('delete the new profile', () => engine.profiles.delete(userId, created))
      await engine.profiles.copy(userId, fromProfileNo, created)
      // The engine gave the new profile the active profile's areas and location; the source's are wanted.
      const wanted = geographyOf(source)
      if (!sameGeography(wanted, humanGeography(state.human))) {
        await engine.humans.switchProfile(userId, created)
        undo.push('switch back to the active profile', () => engine.humans.switchProfile(userId, current))
        await profiles.writeGeography(userId, wanted)
        await engine.humans.switchProfile(userId, current)
        undo.pop()
      }
      return created
    })
    return reply.code(201).send(findProfile(await profiles.load(userId), profileNo))
  }))
}

export default profileRoutes
