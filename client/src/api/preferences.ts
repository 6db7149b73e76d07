import type { Static } from '@sinclair/typebox'
import type { CleaningAllResultSchema, CleaningResultSchema, CleaningStatusSchema } from '../../../schemas/cleaning'
import type { SummaryCapabilitySchema, SummaryScheduleSchema, SummaryScheduleWriteSchema } from '../../../schemas/summary-schedules'
import { api, segment } from './transport'

/** Per alarm type: whether expired alerts are deleted from the chat. */
export const cleaning = async (signal?: AbortSignal): Promise<Static<typeof CleaningStatusSchema>> => await api('/api/cleaning/status', { signal })

export const setCleaning = async (alarmType: string, on: boolean): Promise<Static<typeof CleaningResultSchema>> =>
  await api(`/api/cleaning/${segment(alarmType)}/${on ? 1 : 0}`, { method: 'PUT' })

export const setCleaningAll = async (on: boolean): Promise<Static<typeof CleaningAllResultSchema>> =>
  await api(`/api/cleaning/all/${on ? 1 : 0}`, { method: 'PUT' })

/** Whether the engine builds quest summaries. */
export const summaryCapability = async (signal?: AbortSignal): Promise<Static<typeof SummaryCapabilitySchema>> =>
  await api('/api/summary-schedules/capability', { signal })

export const summarySchedule = async (alertType: string, signal?: AbortSignal): Promise<Static<typeof SummaryScheduleSchema>> =>
  await api(`/api/summary-schedules/${segment(alertType)}`, { signal })

export const saveSummarySchedule = async (alertType: string, body: Static<typeof SummaryScheduleWriteSchema>): Promise<void> => {
  await api(`/api/summary-schedules/${segment(alertType)}`, { method: 'PUT', json: body })
}

export const deleteSummarySchedule = async (alertType: string): Promise<void> => {
  await api(`/api/summary-schedules/${segment(alertType)}`, { method: 'DELETE' })
}

/** Sends the summary now. */
export const triggerSummary = async (alertType: string): Promise<void> => {
  await api(`/api/summary-schedules/${segment(alertType)}/trigger`, { method: 'POST' })
}
