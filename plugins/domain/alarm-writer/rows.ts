import { badRequest } from '../../edge/errors.js'
import type { AlarmRow } from '../../data/engine.js'
import { ALARM_FIELDS } from '../../../schemas/alarms.js'
import type { AlarmKind, AlarmType } from '../../../schemas/alarm-types.js'
import { META_FIELDS, canon } from '../../../lib/alarm-diff.js'

/*
 * The alarm writer's row model: a stored alarm as the API shows it, a client's body as the engine will
 * store and compare it, and the service's own rules across fields. Nothing here calls the engine.
 */

export type Row = Record<string, unknown>
/** A stored alarm as the API shows it: JSON-text list columns parsed to arrays. */
export type Alarm = Row & { uid: number, id: string, profile_no: number }

/** One row to write: a new alarm, or the new content of `replaces`. */
export interface Step {
  candidate: Row
  replaces?: Alarm
  /** Delete `replaces` before writing: the engine would insert a second row under the same unique key. */
  deleteFirst?: boolean
}

/** One alarm's full override areas, own fence names included, to write directly (`writeOwnAreas`). */
export interface OverrideAreasWrite { type: AlarmType, uid: number, areas: string[] }

/** Columns the engine keeps as JSON text but the API shows as lists. */
const LIST_COLUMNS = ['override_areas', 'change_types']
/** Columns where null is a value ("any gym"), sent as such; other nulls are left out so the engine applies its default. */
const NULL_MEANS_ANY = new Set(['gym_id', 'station_id'])

function parseList (value: unknown): unknown {
  if (typeof value !== 'string') return value
  try {
    const parsed: unknown = JSON.parse(value)
    return Array.isArray(parsed) ? parsed : value
  } catch {
    return value
  }
}

/** The row as the API shows it; copied only when a list column changes (most rows have none: the list is null). */
export function present (row: AlarmRow): Alarm {
  let shown: Row = row
  for (const column of LIST_COLUMNS) {
    const value = row[column]
    if (typeof value !== 'string') continue
    if (shown === row) shown = { ...row }
    shown[column] = parseList(value)
  }
  return shown as Alarm
}

/** The alarm's own fields, without the row's bookkeeping. */
export const content = (row: Row): Row => Object.fromEntries(Object.entries(row).filter(([field]) => !META_FIELDS.has(field)))

/** The type's fields a client sent, without nulls (null = "keep" on updates, "default" on creates). */
export function given (kind: AlarmKind, body: Row): Row {
  const known = ALARM_FIELDS[kind.type]
  return Object.fromEntries(Object.entries(body).filter(([field, value]) => Object.hasOwn(known, field) && value !== null))
}

/** The spec's storage rules: grunt types and area names lower-case, "" means "none" for ids and labels. */
export function normalize (row: Row): Row {
  const out = { ...row }
  if (typeof out.grunt_type === 'string') out.grunt_type = out.grunt_type.toLowerCase()
  for (const field of ['gym_id', 'station_id', 'override_location_label']) if (out[field] === '') out[field] = null
  if (Array.isArray(out.override_areas)) {
    const areas = [...new Set(out.override_areas.map((a) => String(a).trim().toLowerCase()).filter((a) => a !== ''))]
    out.override_areas = areas.length > 0 ? areas : null
  }
  return out
}

/** What goes to the engine: no bookkeeping, and nulls only where null means "any". */
export function outgoing (row: Row): Row {
  return Object.fromEntries(Object.entries(content(row)).filter(([field, value]) => value !== null || NULL_MEANS_ANY.has(field)))
}

/** The complete row a create body becomes, as the engine will store and compare it (see `create`). */
export function prepare (kind: AlarmKind, body: Row): { sent: Row, candidate: Row } {
  const sent = normalize({ ...kind.createDefaults, ...given(kind, body) })
  // The complete row the engine will compare and store; raids of one pokemon are stored at level 9000.
  const candidate = { ...kind.engineDefaults, ...sent }
  if (kind.type === 'raid' && candidate.pokemon_id !== 9000) candidate.level = 9000
  return { sent, candidate }
}

export interface Problem { field: string, message: string }
const invalid = (details: Problem[]) => badRequest('Invalid request', { details })

/** Rules across fields, checked on the complete row that will be stored. */
export function check (kind: AlarmKind, row: Row): void {
  const details: Problem[] = []
  const num = (field: string) => (typeof row[field] === 'number' ? row[field] : null)
  for (const [low, high] of kind.ranges ?? []) {
    const a = num(low)
    const b = num(high)
    if (a !== null && b !== null && a > b) details.push({ field: `/${low}`, message: `must not be greater than ${high}` })
  }
  if (kind.type === 'raid' && num('pokemon_id') === 9000 && num('level') === null) {
    details.push({ field: '/level', message: 'is required for raids by level (pokemon_id 9000)' })
  }
  const label = row.override_location_label
  const areas = Array.isArray(row.override_areas) && row.override_areas.length > 0
  const distance = num('distance') ?? 0
  if (typeof label === 'string' && areas) details.push({ field: '/override_areas', message: 'cannot be combined with override_location_label' })
  if (areas && distance > 0) details.push({ field: '/distance', message: 'must be 0 when override_areas is set' })
  if (typeof label === 'string' && distance <= 0) details.push({ field: '/distance', message: 'must be greater than 0 when override_location_label is set' })
  if (details.length > 0) throw invalid(details)
}

/** Whether two rows agree on every field of a unique key. */
export const sameKey = (fields: string[], a: Row, b: Row) => fields.every((f) => canon(a[f]) === canon(b[f]))

/** A row's override areas as names ([] for none). */
export const areaList = (row: Row | undefined) => (Array.isArray(row?.override_areas) ? row.override_areas.map(String) : [])

/** Bit 1 of `clean`: delete the message when the event expires. Bit 2 (edit in place) and 4 (summary) stay as they are. */
export const AUTO_DELETE = 1
export const hasAutoDelete = (row: AlarmRow) => (Number(row.clean) & AUTO_DELETE) === AUTO_DELETE
