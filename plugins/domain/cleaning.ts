import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { hasAutoDelete } from './alarm-writer.js'
import { CLEANING_TYPES, NG_ONLY_ALARM_TYPES, type AlarmKind } from '../../schemas/alarm-types.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { Undo } from '../../lib/undo.js'

/**
 * Auto-delete ("cleaning") for all of a member's alarms of a type, written by the alarm writer
 * (`setAutoDelete`) under the member's write lock. A change of several types is one operation: when a
 * later type fails, the earlier ones are put back.
 */
function createCleaning (fastify: FastifyInstance) {
  const { alarmWriter, engine, featureGates, userWriteLock } = fastify

  return {
    /** Per cleaning type: on when the member has alarms of it and every one cleans up after itself. */
    async status (userId: string): Promise<Record<string, boolean>> {
      const { alarms } = await engine.tracking.all(userId)
      return Object.fromEntries(Object.entries(CLEANING_TYPES).map(([name, { type }]) => {
        const rows = alarms[type]
        return [name, rows.length > 0 && rows.every(hasAutoDelete)]
      }))
    },

    /** Every type the engine has and the site offers; a switched-off type is skipped (its switch is named), not a failure. */
    async setAll (userId: string, enabled: boolean, requestLog: FastifyBaseLogger): Promise<{ updated: number, skipped: string[] }> {
      return await userWriteLock.run(userId, async () => {
        const ng = await engine.generation() === 'ng'
        const skipped = new Set<string>()
        const undo = new Undo(requestLog)
        const updated = await undo.guard(async () => {
          let sum = 0
          for (const { type, disableKey } of Object.values(CLEANING_TYPES)) {
            if (!ng && NG_ONLY_ALARM_TYPES.has(type)) continue
            if (await featureGates.isDisabled(disableKey)) {
              skipped.add(disableKey)
              continue
            }
            sum += await alarmWriter.setAutoDelete(type, userId, enabled, undo)
          }
          return sum
        })
        return { updated, skipped: [...skipped].sort() }
      })
    },

    async setOne (userId: string, cleaningType: string, enabled: boolean, requestLog: FastifyBaseLogger): Promise<number> {
      return await userWriteLock.run(userId, async () => {
        const { type, disableKey } = CLEANING_TYPES[cleaningType] as AlarmKind
        await featureGates.ensure(disableKey)
        const undo = new Undo(requestLog)
        return await undo.guard(() => alarmWriter.setAutoDelete(type, userId, enabled, undo))
      })
    }
  }
}

export type Cleaning = ReturnType<typeof createCleaning>

declare module 'fastify' {
  interface FastifyInstance {
    cleaning: Cleaning
  }
}

export default decoratorPlugin('cleaning', createCleaning, ['engine', 'alarm-writer', 'feature-gates', 'user-write-lock'])
