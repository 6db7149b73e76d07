import { eq, sql } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import { alarmDefaults as table } from '../../db/schema/service.js'
import type { AlarmDefaults } from '../../schemas/alarm-defaults.js'
import { toSqlTime } from '../../db/client.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'

const NONE: AlarmDefaults = { distance: null, clean: null, template: null }

/** The defaults each member set for new alarms, kept in the service's database so every device sees them. */
function createAlarmDefaults (fastify: FastifyInstance) {
  const { db, clock } = fastify
  return {
    async get (userId: string): Promise<AlarmDefaults> {
      const [row] = await db.db.select({ distance: table.distance, clean: table.clean, template: table.template })
        .from(table).where(eq(table.userId, userId)).limit(1)
      return row ?? NONE
    },

    /** Replaces the member's defaults; all null removes the row. */
    async set (userId: string, defaults: AlarmDefaults): Promise<AlarmDefaults> {
      if (defaults.distance === null && defaults.clean === null && defaults.template === null) {
        await db.db.delete(table).where(eq(table.userId, userId))
        return NONE
      }
      const now = toSqlTime(clock.now())
      await db.db.insert(table).values({ userId, ...defaults, updatedAt: now })
        .onDuplicateKeyUpdate({ set: { distance: sql`VALUES(distance)`, clean: sql`VALUES(clean)`, template: sql`VALUES(template)`, updatedAt: now } })
      return defaults
    }
  }
}

export type AlarmDefaultsStore = ReturnType<typeof createAlarmDefaults>

declare module 'fastify' {
  interface FastifyInstance {
    alarmDefaults: AlarmDefaultsStore
  }
}

export default decoratorPlugin('alarm-defaults', createAlarmDefaults, ['db', 'clock'])
