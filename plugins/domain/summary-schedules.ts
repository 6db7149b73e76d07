import type { FastifyInstance } from 'fastify'
import type { ActiveHour } from '../../schemas/profiles.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'

/** The engine answers parsed JSON or, from older builds, the stored text. */
const activeHoursText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value ?? []))

export interface SummarySchedule { alertType: string, activeHours: string }

/**
 * Quest summary schedules: one per user and alert type, not per profile, kept by PoracleNG (PoracleJS has
 * none: its calls answer "not supported", which the routes turn into 501). Active hours travel as the JSON
 * text the engine stores.
 */
function createSummarySchedules (fastify: FastifyInstance) {
  const { engine } = fastify
  return {
    async list (userId: string): Promise<SummarySchedule[]> {
      const schedules = await engine.summaries.list(userId)
      return schedules.map((s) => ({ alertType: s.alert_type, activeHours: activeHoursText(s.active_hours) }))
    },

    /** An unset schedule reads as no hours (`[]`). */
    async get (userId: string, alertType: string): Promise<SummarySchedule> {
      const schedule = await engine.summaries.get(userId, alertType)
      return { alertType, activeHours: schedule === null ? '[]' : activeHoursText(schedule.active_hours) }
    },

    set: (userId: string, alertType: string, activeHours: ActiveHour[]) => engine.summaries.set(userId, alertType, activeHours),
    delete: (userId: string, alertType: string) => engine.summaries.delete(userId, alertType),
    /** Makes the engine deliver the summary now, like a test alert. */
    trigger: (userId: string, alertType: string) => engine.summaries.trigger(userId, alertType)
  }
}

export type SummarySchedules = ReturnType<typeof createSummarySchedules>

declare module 'fastify' {
  interface FastifyInstance {
    summarySchedules: SummarySchedules
  }
}

export default decoratorPlugin('summary-schedules', createSummarySchedules, ['engine'])
