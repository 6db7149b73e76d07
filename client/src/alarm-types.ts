import { api } from './api'
import type { SiteSetting } from './types'

/**
 * The ten alarm types and whether this site offers each. A type is offered unless the site's
 * `disable_*` switch is "true" or the alarm engine disables it (GET /api/settings/upstream-disabled).
 */
export interface AlarmTypeInfo {
  type: string
  /** Path of its API under /api, and of its page under /alarms. */
  path: string
  disableKey: string
  /** Its count in GET /api/dashboard. */
  dashboardKey: string
}

export const ALARM_TYPES: AlarmTypeInfo[] = [
  { type: 'pokemon', path: 'monsters', disableKey: 'disable_mons', dashboardKey: 'monsters' },
  { type: 'raid', path: 'raids', disableKey: 'disable_raids', dashboardKey: 'raids' },
  { type: 'egg', path: 'eggs', disableKey: 'disable_raids', dashboardKey: 'eggs' },
  { type: 'quest', path: 'quests', disableKey: 'disable_quests', dashboardKey: 'quests' },
  { type: 'invasion', path: 'invasions', disableKey: 'disable_invasions', dashboardKey: 'invasions' },
  { type: 'lure', path: 'lures', disableKey: 'disable_lures', dashboardKey: 'lures' },
  { type: 'nest', path: 'nests', disableKey: 'disable_nests', dashboardKey: 'nests' },
  { type: 'gym', path: 'gyms', disableKey: 'disable_gyms', dashboardKey: 'gyms' },
  { type: 'fort', path: 'fort-changes', disableKey: 'disable_fort_changes', dashboardKey: 'fortChanges' },
  { type: 'maxbattle', path: 'maxbattles', disableKey: 'disable_maxbattles', dashboardKey: 'maxBattles' }
]

export async function loadEnabledAlarmTypes (signal: AbortSignal): Promise<AlarmTypeInfo[]> {
  const [settings, upstream] = await Promise.all([
    api<SiteSetting[]>('/api/settings', { signal }),
    api<string[]>('/api/settings/upstream-disabled', { signal })
  ])
  const off = new Set([...upstream, ...settings.filter((s) => s.key.startsWith('disable_') && s.value === 'true').map((s) => s.key)])
  return ALARM_TYPES.filter((t) => !off.has(t.disableKey))
}
