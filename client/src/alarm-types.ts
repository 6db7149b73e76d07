import { api } from './api'

/** An alarm type as GET /api/alarm-types describes it (schemas/alarm-types.ts on the server). */
export interface AlarmTypeDescriptor {
  type: string
  labelKey: string
  /** Where its alarms are, e.g. /api/monsters. */
  path: string
  engineName: string
  disableKey: string
  dashboardKey: string
  cleaningName: string | null
  testAlert: boolean
  fields: Array<Record<string, unknown> & { name: string, labelKey: string, helpKey: string }>
}

/** The page of a type: /alarms/<the last segment of its API path>. */
export const pagePath = (type: { path: string }): string => type.path.replace(/^\/api\//, '')

/** The types this site offers right now, in display order (the server leaves out switched-off ones). */
export async function loadAlarmTypes (signal: AbortSignal): Promise<AlarmTypeDescriptor[]> {
  return await api<AlarmTypeDescriptor[]>('/api/alarm-types', { signal })
}

/**
 * Every type's page path and site switch, for what the descriptors cannot say because they list only
 * offered types: the admin's switches for all of them, and why a switched-off type's page is empty.
 */
export const ALARM_TYPE_SWITCHES = [
  { type: 'pokemon', path: '/api/monsters', disableKey: 'disable_mons' },
  { type: 'raid', path: '/api/raids', disableKey: 'disable_raids' },
  { type: 'egg', path: '/api/eggs', disableKey: 'disable_raids' },
  { type: 'quest', path: '/api/quests', disableKey: 'disable_quests' },
  { type: 'invasion', path: '/api/invasions', disableKey: 'disable_invasions' },
  { type: 'lure', path: '/api/lures', disableKey: 'disable_lures' },
  { type: 'nest', path: '/api/nests', disableKey: 'disable_nests' },
  { type: 'gym', path: '/api/gyms', disableKey: 'disable_gyms' },
  { type: 'fort', path: '/api/fort-changes', disableKey: 'disable_fort_changes' },
  { type: 'maxbattle', path: '/api/maxbattles', disableKey: 'disable_maxbattles' }
] as const
