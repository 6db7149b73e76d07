import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyBaseLogger } from 'fastify'
import type { AlarmRow } from '../../plugins/engine.js'
import { CLEANING_TYPES, NG_ONLY_ALARM_TYPES, type AlarmKind, type AlarmType } from '../../schemas/alarm-types.js'
import { errors } from '../../schemas/common.js'
import {
  CleaningAllParamsSchema, CleaningAllResultSchema, CleaningResultSchema, CleaningStatusSchema, CleaningTypeParamsSchema
} from '../../schemas/cleaning.js'
import { toTransferAlarm } from '../../schemas/profiles.js'

/** Bit 1 of `clean`: delete the message when the event expires. Bit 2 (edit in place) and 4 (summary) stay as they are. */
const AUTO_DELETE = 1
const hasAutoDelete = (row: AlarmRow) => (Number(row.clean) & AUTO_DELETE) === AUTO_DELETE

interface Applied {
  updated: number
  /** Puts the changed alarms back as they were. */
  undo: () => Promise<void>
}

/**
 * Auto-delete for all alarms of a type (`/api/cleaning`). Each changed alarm is posted back with only
 * the bit changed; the engine sees a one-field change of an updatable field and updates the row in place
 * (pokemon are addressed by uid, which the engine honours for that type only). Max battles are
 * insert-only upstream, so they are deleted and created again.
 */
const cleaningRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, engine, featureGates, userWriteLock } = fastify

  async function apply (userId: string, type: AlarmType, enabled: boolean, log: FastifyBaseLogger): Promise<Applied> {
    const rows = (await engine.tracking.get(type, userId)).filter((row) => hasAutoDelete(row) !== enabled)
    if (rows.length === 0) return { updated: 0, undo: async () => {} }
    const originals: Array<Record<string, unknown>> = rows.map((row) => ({ ...toTransferAlarm(type, row), ...(type === 'pokemon' ? { uid: row.uid } : {}) }))
    const changed = originals.map((body) => {
      const clean = Number(body.clean ?? 0)
      return { ...body, clean: enabled ? clean | AUTO_DELETE : clean & ~AUTO_DELETE }
    })
    const create = (bodies: Array<Record<string, unknown>>) => engine.tracking.create(type, userId, bodies, { silent: true })

    if (type !== 'maxbattle') {
      await create(changed)
      return { updated: rows.length, undo: async () => { await create(originals) } }
    }
    await engine.tracking.bulkDelete(type, userId, rows.map((row) => row.uid), { silent: true })
    let newUids: number[]
    try {
      const result = await create(changed)
      newUids = result.generation === 'ng' ? result.newUids ?? [] : []
    } catch (err) {
      await create(originals).catch((undoErr: unknown) => log.error({ err: undoErr, type }, 'could not restore deleted max battle alarms'))
      throw err
    }
    return {
      updated: rows.length,
      undo: async () => {
        await engine.tracking.bulkDelete(type, userId, newUids, { silent: true })
        await create(originals)
      }
    }
  }

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
    const done: Applied[] = []
    try {
      for (const { type, disableKey } of Object.values(CLEANING_TYPES)) {
        if (!ng && NG_ONLY_ALARM_TYPES.has(type)) continue
        // A switched-off type is left alone rather than failing the whole batch.
        if (await featureGates.isDisabled(disableKey)) {
          skipped.add(disableKey)
          continue
        }
        done.push(await apply(userId, type, enabled, request.log))
      }
    } catch (err) {
      for (const step of done.reverse()) {
        await step.undo().catch((undoErr: unknown) => request.log.error({ err: undoErr }, 'could not undo a cleaning change'))
      }
      throw err
    }
    return { updated: done.reduce((sum, step) => sum + step.updated, 0), skipped: [...skipped].sort() }
  }))

  fastify.put('/:alarmType/:enabled', {
    schema: { tags: ['cleaning'], params: CleaningTypeParamsSchema, response: { 200: CleaningResultSchema, ...errors(400, 401, 403, 404, 409, 500, 501, 503) } }
  }, async (request) => userWriteLock.run(request.user.userId, async () => {
    const { type, disableKey } = CLEANING_TYPES[request.params.alarmType] as AlarmKind
    await featureGates.ensure(disableKey)
    const { updated } = await apply(request.user.userId, type, request.params.enabled === 1, request.log)
    return { updated }
  }))
}

export default cleaningRoutes
