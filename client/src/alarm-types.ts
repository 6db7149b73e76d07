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
  /** Whether members can use it on this site now. */
  available: boolean
  /** Why not: the site's switch, the engine's configuration, or an engine generation without the type. */
  reason: 'site' | 'engine' | 'generation' | null
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

/** Every alarm type in display order, each saying whether it is offered right now and, if not, why. */
export async function loadAlarmTypes (signal: AbortSignal): Promise<AlarmTypeDescriptor[]> {
  return await api<AlarmTypeDescriptor[]>('/api/alarm-types', { signal })
}
