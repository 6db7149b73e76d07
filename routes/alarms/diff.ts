import type { AlarmType, EngineGeneration } from '../../plugins/engine.js'

/**
 * The engines' duplicate detection (alarm-engine.md 1.3), modelled so the service can tell before a
 * write whether the engine would treat it as new, as an update of the same alarm, or as an update of a
 * *different* alarm: each posted row is compared with the profile's rows of the same match key, in
 * storage order; the first row that is equal ("already present") or differs in exactly one updatable
 * field ("update") wins; otherwise the row is inserted.
 */

type Row = Record<string, unknown>

export interface DiffRules {
  /** Fields a stored row must share to be compared at all; null: never compared (always inserted). */
  match: string[] | null
  /** A difference in exactly one of these updates the stored row. */
  updatable: string[]
}

const COMMON = ['distance', 'template', 'clean']

export function engineRules (type: AlarmType, generation: EngineGeneration): DiffRules {
  switch (type) {
    case 'pokemon': return { match: generation === 'js' ? ['pokemon_id'] : [], updatable: [...COMMON, 'min_iv'] }
    case 'raid': case 'egg': return { match: ['team'], updatable: COMMON }
    case 'gym': return { match: ['team'], updatable: generation === 'ng' ? [...COMMON, 'slot_changes', 'battle_changes'] : COMMON }
    case 'quest': return { match: generation === 'ng' ? ['reward_type', 'reward', 'form'] : ['reward_type', 'reward'], updatable: COMMON }
    case 'invasion': return { match: ['grunt_type'], updatable: COMMON }
    case 'lure': return { match: ['lure_id'], updatable: COMMON }
    // PoracleJS filters nests on a field they do not have, so it compares every row.
    case 'nest': return { match: generation === 'ng' ? ['pokemon_id', 'form'] : [], updatable: COMMON }
    case 'fort': return { match: ['fort_type'], updatable: ['distance', 'template'] }
    case 'maxbattle': return { match: null, updatable: [] }
  }
}

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
