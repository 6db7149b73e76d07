import type { Static } from '@sinclair/typebox'
import type { AlarmDefaultsSchema } from '../../../schemas/alarm-defaults'
import type { AlarmTypeDescriptor, DashboardSchema } from '../../../schemas/alarm-types'
import type { alarmCreateSchema, alarmSchema, batchCreateResultSchema, bulkUpdateResultSchema, TemplatePreviewAnswer, TestAlertResultSchema } from '../../../schemas/alarms'
import type { PublicConfigSchema, TemplatesSchema } from '../../../schemas/engine-config'
import { api, segment } from './transport'

type AlarmDefaults = Static<typeof AlarmDefaultsSchema>
/**
 * A stored alarm of any type, and a create or update body: the type's own fields by name. The type's
 * fields are built from its descriptor at run time, and the schema passes other columns through
 * (`additionalProperties`), so a stored alarm is also read by field name.
 */
type StoredAlarm = Static<ReturnType<typeof alarmSchema>> & Record<string, unknown>
type AlarmBody = Static<ReturnType<typeof alarmCreateSchema>>
/** Where a type's alarms live: the `path` of its descriptor. */
type TypePath = Pick<AlarmTypeDescriptor, 'path'>

/** Every alarm type in display order, each saying whether it is offered right now and, if not, why. */
export const types = async (signal?: AbortSignal): Promise<AlarmTypeDescriptor[]> => await api('/api/alarm-types', { signal })

/** Alarm counts per type for the active profile. */
export const dashboard = async (signal?: AbortSignal): Promise<Static<typeof DashboardSchema>> => await api('/api/dashboard', { signal })

/** Has the engine deliver a sample alert matching one alarm. */
export const testAlert = async (type: string, uid: number): Promise<Static<typeof TestAlertResultSchema>> =>
  await api(`/api/test-alert/${segment(type)}/${segment(uid)}`, { method: 'POST' })

/* The alarms of one type in the active profile. */

export const list = async (type: TypePath, signal?: AbortSignal): Promise<StoredAlarm[]> => await api(type.path, { signal })

/** Creates several at once; each item answers on its own (created, duplicate or refused). */
export const createBatch = async (type: TypePath, alarms: AlarmBody[]): Promise<Static<ReturnType<typeof batchCreateResultSchema>>> =>
  await api(`${type.path}/batch`, { method: 'POST', json: { alarms } })

export const update = async (type: TypePath, uid: number, body: AlarmBody): Promise<StoredAlarm> =>
  await api(`${type.path}/${segment(uid)}`, { method: 'PUT', json: body })

export const remove = async (type: TypePath, uid: number): Promise<void> => { await api(`${type.path}/${segment(uid)}`, { method: 'DELETE' }) }

/** The same change to several alarms; each answers on its own (updated, unchanged or refused). */
export const bulkUpdate = async (type: TypePath, uids: number[], patch: AlarmBody): Promise<Static<ReturnType<typeof bulkUpdateResultSchema>>> =>
  await api(type.path, { method: 'PATCH', json: { uids, patch } })

/** The member's defaults for new alarms. */
export const defaults = async (): Promise<AlarmDefaults> => await api('/api/alarm-defaults')

export const saveDefaults = async (value: AlarmDefaults): Promise<AlarmDefaults> => await api('/api/alarm-defaults', { method: 'PUT', json: value })

/** The engine's configuration the editor needs. */
export const engineConfig = async (signal?: AbortSignal): Promise<Static<typeof PublicConfigSchema>> => await api('/api/config', { signal })

export const templates = async (): Promise<Static<typeof TemplatesSchema>> => await api('/api/config/templates')

/** The engine's rendering of a template for a sample inside the alarm being edited (nothing is sent). */
export const templatePreview = async (type: string, alarm: Record<string, unknown>, template: string, signal: AbortSignal): Promise<TemplatePreviewAnswer> =>
  await api(`/api/template-previews/${segment(type)}`, { method: 'POST', json: { alarm, ...(template !== '' ? { template } : {}) }, signal })
