import { api } from './api'

/**
 * The alarm types as GET /api/alarm-types describes them: the server's table is the only definition of
 * the fields, ranges, defaults and switches, and the forms are rendered from it. The server leaves out
 * the types the site or the engine switches off, so the navigation never offers them.
 */
export type FieldKind = 'integer' | 'boolean' | 'enum' | 'string' | 'template' | 'list'

export interface FieldDescriptor {
  name: string
  kind: FieldKind
  min?: number
  max?: number
  step?: number
  unit?: string
  values?: Array<number | string>
  minLength?: number
  maxLength?: number
  maxItems?: number
  required: boolean
  default: unknown
  labelKey: string
  helpKey: string
  description?: string
}

export interface AlarmTypeInfo {
  type: string
  labelKey: string
  /** Path of its API under /api, and of its page under /alarms. */
  path: string
  engineName: string
  disableKey: string
  /** Its count in GET /api/dashboard. */
  dashboardKey: string
  /** Its name in /api/cleaning paths; null when the type has no auto-delete. */
  cleaningName: string | null
  testAlert: boolean
  fields: FieldDescriptor[]
}

/**
 * The page addresses of all ten types, offered or not, so the page of a switched-off type can still
 * name it and say why it is unavailable (the descriptors leave such types out).
 */
export const ALARM_PAGES: ReadonlyArray<{ type: string, path: string, disableKey: string }> = [
  { type: 'pokemon', path: 'monsters', disableKey: 'disable_mons' },
  { type: 'raid', path: 'raids', disableKey: 'disable_raids' },
  { type: 'egg', path: 'eggs', disableKey: 'disable_raids' },
  { type: 'quest', path: 'quests', disableKey: 'disable_quests' },
  { type: 'invasion', path: 'invasions', disableKey: 'disable_invasions' },
  { type: 'lure', path: 'lures', disableKey: 'disable_lures' },
  { type: 'nest', path: 'nests', disableKey: 'disable_nests' },
  { type: 'gym', path: 'gyms', disableKey: 'disable_gyms' },
  { type: 'fort', path: 'fort-changes', disableKey: 'disable_fort_changes' },
  { type: 'maxbattle', path: 'maxbattles', disableKey: 'disable_maxbattles' }
]

export async function loadEnabledAlarmTypes (signal: AbortSignal): Promise<AlarmTypeInfo[]> {
  const descriptors = await api<AlarmTypeInfo[]>('/api/alarm-types', { signal })
  return descriptors.map((d) => ({ ...d, path: d.path.replace(/^\/api\//, '') }))
}
