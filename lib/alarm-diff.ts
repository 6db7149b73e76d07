import type { DiffRules } from '../schemas/alarm-types.js'

/**
 * The engines' duplicate detection (alarm-engine.md 1.3), modelled so the service can tell before a
 * write whether the engine would treat it as new, as an update of the same alarm, or as an update of a
 * *different* alarm (the rules per type are in schemas/alarm-types.ts): each posted row is compared with the profile's rows of the same match key, in
 * storage order; the first row that is equal ("already present") or differs in exactly one updatable
 * field ("update") wins; otherwise the row is inserted.
 */

type Row = Record<string, unknown>

/** Columns that describe the stored row, not the alarm. */
export const META_FIELDS = new Set(['uid', 'id', 'profile_no', 'description', 'ping'])

/** Engines return numbers where they were sent strings (template) and 0/1 for booleans: compare as text. */
export function canon (value: unknown): string | null {
  if (value === undefined || value === null) return null
  if (typeof value === 'boolean') return value ? '1' : '0'
  if (typeof value === 'object') return JSON.stringify(value)
  return String(value)
}

/** The alarm fields of `candidate` whose value `row` does not share (fields absent from the candidate are not compared). */
export function differences (candidate: Row, row: Row): string[] {
  return Object.keys(candidate).filter((field) => !META_FIELDS.has(field) && canon(candidate[field]) !== canon(row[field]))
}

export const sameAlarm = (candidate: Row, row: Row) => differences(candidate, row).length === 0

export type Prediction =
  | { kind: 'present', row: Row }
  | { kind: 'update', row: Row }
  | { kind: 'insert' }

/** What the engine would do with `candidate` (a complete row) given the stored `rows` in uid order. */
export function predict (rules: DiffRules, candidate: Row, rows: Row[]): Prediction {
  if (rules.match === null) return { kind: 'insert' }
  for (const row of rows) {
    if (rules.match.some((field) => canon(row[field]) !== canon(candidate[field]))) continue
    const differing = differences(candidate, row)
    if (differing.length === 0) return { kind: 'present', row }
    if (differing.length === 1 && rules.updatable.includes(differing[0] as string)) return { kind: 'update', row }
  }
  return { kind: 'insert' }
}
