import { Type, type Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { BoundedInteger, FreeText, INT32_MAX } from './common.js'
import { badRequest } from './errors.js'
import { ALARM_KINDS, ALARM_TYPES, type AlarmType } from './alarm-types.js'
import { ALARM_FIELDS, ECHOED_FIELDS, alarmCreateSchema } from './alarms.js'

export const ProfileNoSchema = BoundedInteger({ minimum: 1, maximum: INT32_MAX, description: 'Profile number' })
export const ProfileNoParamsSchema = Type.Object({ profileNo: ProfileNoSchema })

/** The engine's `profiles.name` is varchar(255); a name must show something. */
export const ProfileNameSchema = FreeText({ minLength: 1, maxLength: 255, pattern: '\\S', description: 'Profile name' })

/** Numbers or numeric strings, as the engine's own documentation writes them. */
const part = (min: number, max: number) => Type.Union([
  Type.Integer({ minimum: min, maximum: max }),
  Type.String({ pattern: '^\\s*\\d{1,2}\\s*$' })
])

/** One active-hours rule as the engine keeps it (PoracleJS may store the numbers as text). */
export interface ActiveHour {
  day: number
  hours: number | string
  mins: number | string
}

/** One active-hours rule: the engine switches to the profile on `day` (1 = Monday) at `hours:mins`. */
export const ActiveHourSchema = Type.Object({
  day: part(1, 7),
  hours: part(0, 23),
  mins: part(0, 59)
}, { additionalProperties: false })

/** At most 28 rules (four a day), as the reference client and server allow. */
export const ActiveHourListSchema = Type.Array(ActiveHourSchema, { maxItems: 28 })

/**
 * Active hours in a request: the list itself, the same list as JSON text (the reference's wire form), or
 * null / blank text for "no schedule".
 */
export const ActiveHoursInputSchema = Type.Union([
  ActiveHourListSchema,
  Type.String({ maxLength: 4096 }),
  Type.Null()
], { description: 'A list of {day 1-7, hours 0-23, mins 0-59} (at most 28), the same as JSON text, or null' })
export type ActiveHoursInput = Static<typeof ActiveHoursInputSchema>

/**
 * Turns accepted active-hours input into numbers for the engine. JSON text is checked against the same
 * rules as the list form (the body validator only saw a string); a failure is a 400 naming the field.
 */
export function parseActiveHours (input: ActiveHoursInput | undefined, field = '/activeHours'): ActiveHour[] {
  if (input === undefined || input === null) return []
  let list: unknown = input
  if (typeof input === 'string') {
    if (input.trim() === '') return []
    try {
      list = JSON.parse(input)
    } catch {
      throw badRequest('Invalid active hours.', { details: [{ field, message: 'must be a JSON array' }] })
    }
  }
  if (!Value.Check(ActiveHourListSchema, list)) {
    const details = [...Value.Errors(ActiveHourListSchema, list)].slice(0, 10).map((e) => ({ field: field + e.path, message: e.message }))
    throw badRequest('Invalid active hours.', { details })
  }
  const bounds = { day: [1, 7], hours: [0, 23], mins: [0, 59] } as const
  return (list as Array<Static<typeof ActiveHourSchema>>).map((rule, index) => {
    const out = { day: 0, hours: 0, mins: 0 }
    for (const key of ['day', 'hours', 'mins'] as const) {
      const value = Number(rule[key])
      const [min, max] = bounds[key]
      if (value < min || value > max) throw badRequest('Invalid active hours.', { details: [{ field: `${field}/${index}/${key}`, message: `must be between ${min} and ${max}` }] })
      out[key] = value
    }
    return out
  })
}

/** A profile as the client sees it; `area` and `activeHours` are the engine's JSON text, as in the reference. */
export const ProfileSchema = Type.Object({
  id: Type.String(),
  profileNo: Type.Integer(),
  name: Type.String(),
  area: Type.String({ description: 'JSON text array of area names' }),
  latitude: Type.Number(),
  longitude: Type.Number(),
  active: Type.Boolean(),
  activeHours: Type.String({ description: 'JSON text: [{day, hours, mins}, ...]' })
})
export type Profile = Static<typeof ProfileSchema>

export const CreateProfileSchema = Type.Object({
  name: ProfileNameSchema,
  activeHours: Type.Optional(ActiveHoursInputSchema)
}, { additionalProperties: false })

export const UpdateProfileSchema = Type.Object({
  name: Type.Optional(ProfileNameSchema),
  activeHours: Type.Optional(ActiveHoursInputSchema)
}, { additionalProperties: false, minProperties: 1 })

export const DuplicateProfileSchema = Type.Object({
  fromProfileNo: ProfileNoSchema,
  name: ProfileNameSchema
}, { additionalProperties: false })

export const SwitchResultSchema = Type.Object({ profile: ProfileSchema, token: Type.String() })

export const NewProfileNameSchema = Type.Object({ name: ProfileNameSchema }, { additionalProperties: false })

/** Duplicate and import: the engine's active profile was switched meanwhile, so a token comes back. */
export const CopyResultSchema = Type.Object({
  alarmsCopied: Type.Integer(),
  newProfileNo: Type.Integer(),
  token: Type.String()
})

// ---- export / import -------------------------------------------------------------------------------

/** At most this many alarms of one type in one file (far above what a profile holds). */
const MAX_ALARMS_PER_TYPE = 2000

/**
 * The alarms of an import, checked as a whole before anything is written: each alarm against the same
 * create schema the alarm routes use (the engine's field names and ranges, required fields included).
 */
export const TransferAlarmsSchema = Type.Object(
  Object.fromEntries(ALARM_TYPES.map((type) => [type, Type.Optional(Type.Array(alarmCreateSchema(type), { maxItems: MAX_ALARMS_PER_TYPE }))])),
  { additionalProperties: false }
)

/** The export file format version this service writes. */
export const TRANSFER_VERSION = 1

export const ProfileExportSchema = Type.Object({
  profileName: Type.String(),
  version: Type.Integer(),
  alarms: Type.Record(Type.String(), Type.Array(Type.Record(Type.String(), Type.Unknown())))
})
export type ProfileExport = Static<typeof ProfileExportSchema>

export const ProfileImportSchema = Type.Object({
  profileName: ProfileNameSchema,
  version: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), FreeText({ maxLength: 32 })])),
  alarms: TransferAlarmsSchema
}, { additionalProperties: false })

/** The engine's own answer, passed through: the human, every profile row and every alarm of every profile. */
export const ProfileOverviewSchema = Type.Object({
  human: Type.Record(Type.String(), Type.Unknown()),
  profile: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  ...Object.fromEntries(ALARM_KINDS.map((kind) => [kind.engineName, Type.Array(Type.Record(Type.String(), Type.Unknown()))]))
})

/**
 * A stored alarm row as an exported alarm and as a create body for the engine: only the type's own
 * fields (no `uid`, owner, profile or `ping`), JSON text columns as lists, null values left out so the
 * engine applies its own defaults (a null `gym_id` already means "any gym").
 */
export function toTransferAlarm (type: AlarmType, row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [field, spec] of Object.entries(ALARM_FIELDS[type])) {
    if (field === 'ping') continue
    let value = row[field]
    if (spec.kind === 'list' && typeof value === 'string') {
      try {
        value = JSON.parse(value)
      } catch {
        value = null
      }
      if (!Array.isArray(value)) value = null
    }
    if (value !== null && value !== undefined) out[field] = value
  }
  return out
}

/**
 * An imported alarm as a create body: the read-only fields a file may carry are dropped (a `uid` would
 * make the engine update that row instead of creating one) and so are nulls (PoracleJS would store 0).
 */
export function fromTransferAlarm (alarm: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(alarm).filter(([field, value]) => value !== null && value !== undefined && !ECHOED_FIELDS.has(field)))
}

/**
 * A preValidation hook for routes taking `activeHours`: hours sent as JSON text are checked before any
 * hook that asks the engine (a feature gate), so bad input never costs an engine call. parseActiveHours
 * copes with a body the schema has not checked yet.
 */
export async function checkActiveHoursEarly (request: { body: unknown }): Promise<void> {
  const body = request.body as { activeHours?: ActiveHoursInput } | undefined
  if (body?.activeHours !== undefined) parseActiveHours(body.activeHours)
}
