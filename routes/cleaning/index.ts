import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { hasAutoDelete } from '../../plugins/domain/alarm-writer.js'
import { CLEANING_TYPES, NG_ONLY_ALARM_TYPES, type AlarmKind } from '../../schemas/alarm-types.js'
import { errors } from '../../schemas/common.js'
import {
  CleaningAllParamsSchema, CleaningAllResultSchema, CleaningResultSchema, CleaningStatusSchema, CleaningTypeParamsSchema
} from '../../schemas/cleaning.js'
import { Undo } from '../../lib/undo.js'

/**
 * Auto-delete for all alarms of a type (`/api/cleaning`), written by the alarm writer (`setAutoDelete`).
 * A change of several types is one operation: when a later type fails, the earlier ones are put back.
 */
const cleaningRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { alarmWriter, auth, engine, featureGates, userWriteLock } = fastify

  fastify.addHook('onRequest', auth.authenticate)

  fastify.get('/status', {
    schema: { tags: ['cleaning'], response: { 200: CleaningStatusSchema, ...errors(401, 404, 500) } }
  }, async (request) => {
    const { alarms } = await engine.tracking.all(request.user.userId)
    return Object.fromEntries(Object.entries(CLEANING_TYPES).map(([name, { type }]) => {
      const rows = alarms[type]
      return [name, rows.length > 0 && rows.every(hasAutoDelete)]
    }))
  })

  fastify.put('/all/:enabled', {
    schema: { tags: ['cleaning'], params: CleaningAllParamsSchema, response: { 200: CleaningAllResultSchema, ...errors(400, 401, 404, 409, 500, 503) } }
  }, async (request) => userWriteLock.run(request.user.userId, async () => {
    const { userId } = request.user
    const enabled = request.params.enabled === 1
    const ng = await engine.generation() === 'ng'
    const skipped = new Set<string>()
    const undo = new Undo(request.log)
    const updated = await undo.guard(async () => {
      let sum = 0
      for (const { type, disableKey } of Object.values(CLEANING_TYPES)) {
        if (!ng && NG_ONLY_ALARM_TYPES.has(type)) continue
        // A switched-off type is left alone rather than failing the whole batch.
        if (await featureGates.isDisabled(disableKey)) {
          skipped.add(disableKey)
          continue
        }
        sum += await alarmWriter.setAutoDelete(type, userId, enabled, undo)
      }
      return sum
    })
    return { updated, skipped: [...skipped].sort() }
  }))

  fastify.put('/:alarmType/:enabled', {
    schema: { tags: ['cleaning'], params: CleaningTypeParamsSchema, response: { 200: CleaningResultSchema, ...errors(400, 401, 403, 404, 409, 500, 501, 503) } }
  }, async (request) => userWriteLock.run(request.user.userId, async () => {
    const { type, disableKey } = CLEANING_TYPES[request.params.alarmType] as AlarmKind
    await featureGates.ensure(disableKey)
    const undo = new Undo(request.log)
    const updated = await undo.guard(() => alarmWriter.setAutoDelete(type, request.user.userId, request.params.enabled === 1, undo))
    return { updated }
  }))
}

export default cleaningRoutes
