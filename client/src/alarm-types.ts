import { api } from './api'

/** One field of an alarm type: what the forms are rendered from. */
export interface FieldDescriptor {
  name: string
  kind: 'integer' | 'boolean' | 'enum' | 'string' | 'template' | 'list'
  min?: number
  max?: number
  step?: number
  unit?: string
  values?: Array<number | string>
  minLength?: number
  maxLength?: number
  maxItems?: number
  /** A create must name it. */
  required: boolean
  /** What a new alarm starts with (the spec's form defaults); null when nothing. */
  default: unknown
  labelKey: string
  helpKey: string
  /** The help text in English, for keys the language file lacks. */
  description?: string
}

/** A min/max pair edited as one slider: its fields, span, step and section (schemas/alarm-types.ts). */
export interface RangeDescriptor {
  low: string
  high: string
  min: number
  max: number
  step: number
  section: 'primary' | 'advanced' | 'pvp'
  unit?: string
}

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
  fields: FieldDescriptor[]
  /** Its min/max pairs; a maximum below its minimum is refused. */
  ranges: RangeDescriptor[]
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
