import type { Static } from '@sinclair/typebox'
import type { AlarmDefaultsSchema } from '../../../schemas/alarm-defaults'
import type { AlarmTypeDescriptor, DashboardSchema } from '../../../schemas/alarm-types'
import type { TestAlertResultSchema } from '../../../schemas/alarms'
import type { PublicConfigSchema, TemplatesSchema } from '../../../schemas/engine-config'
import { api, segment } from './transport'

type AlarmDefaults = Static<typeof AlarmDefaultsSchema>

/** Every alarm type in display order, each saying whether it is offered right now and, if not, why. */
export const types = async (signal?: AbortSignal): Promise<AlarmTypeDescriptor[]> => await api('/api/alarm-types', { signal })

/** Alarm counts per type for the active profile. */
export const dashboard = async (signal?: AbortSignal): Promise<Static<typeof DashboardSchema>> => await api('/api/dashboard', { signal })

/** Has the engine deliver a sample alert matching one alarm. */
export const testAlert = async (type: string, uid: number): Promise<Static<typeof TestAlertResultSchema>> =>
  await api(`/api/test-alert/${segment(type)}/${segment(uid)}`, { method: 'POST' })

/** The member's defaults for new alarms. */
export const defaults = async (): Promise<AlarmDefaults> => await api('/api/alarm-defaults')

export const saveDefaults = async (value: AlarmDefaults): Promise<AlarmDefaults> => await api('/api/alarm-defaults', { method: 'PUT', json: value })

/** The engine's configuration the editor needs. */
export const engineConfig = async (signal?: AbortSignal): Promise<Static<typeof PublicConfigSchema>> => await api('/api/config', { signal })

export const templates = async (): Promise<Static<typeof TemplatesSchema>> => await api('/api/config/templates')
