import { Type } from '@sinclair/typebox'
import { FreeText } from './common.js'
import { ActiveHoursInputSchema } from './profiles.js'

/** The alert types the engine keeps summary schedules for (PoracleNG has only quest summaries). */
export const SUMMARY_ALERT_TYPES = ['quest'] as const

export const AlertTypeParamsSchema = Type.Object({
  alertType: FreeText({ maxLength: 32, description: 'quest (any case)' })
})

/** One schedule; `activeHours` is JSON text, as in the reference. */
export const SummaryScheduleSchema = Type.Object({
  alertType: Type.String(),
  activeHours: Type.String({ description: 'JSON text: [{day, hours, mins}, ...]' })
})

export const SummaryScheduleWriteSchema = Type.Object({
  activeHours: ActiveHoursInputSchema
}, { additionalProperties: false })

export const SummaryCapabilitySchema = Type.Object({
  enabled: Type.Boolean({ description: 'The engine builds quest summaries (tracking.quest_summary_enabled)' })
})
