import { Type, type TSchema } from '@sinclair/typebox'
import type { AlarmType } from '../plugins/engine.js'

/**
 * Alarm records on the wire: the engine's own snake_case column names, in requests and responses
 * (reference poracleweb-backend.md 1.4 for the ranges, alarm-engine.md 1.4 for what the engine accepts).
 * Request fields are nullable: on an update, null or absent keeps the stored value.
 */

export type FieldSpec =
  | { kind: 'int', minimum?: number | undefined, maximum?: number | undefined, enum?: number[], description?: string | undefined }
  | { kind: 'flag', description?: string | undefined }
  | { kind: 'string', minLength?: number, maxLength: number, description?: string }
  | { kind: 'stringEnum', values: string[], description?: string }
  | { kind: 'template' }
  /** A list of names the engine stores as JSON text; the API shows it as an array. */
  | { kind: 'strings', maxItems: number, maxLength: number, description?: string }

const int = (minimum?: number, maximum?: number, description?: string): FieldSpec => ({ kind: 'int', minimum, maximum, description })
const flag = (description?: string): FieldSpec => ({ kind: 'flag', description })

/** Every type except fort changes (which have no `clean` column) carries these. */
const DELIVERY: Record<string, FieldSpec> = {
  ping: { kind: 'string', maxLength: 256, description: 'Extra text for the message; PoracleNG does not store it.' },
  distance: int(0, 40_000_000, 'Metres around the user\'s location; 0 = the user\'s areas. The engine caps at 40,000,000.'),
  template: { kind: 'template' },
  override_location_label: { kind: 'string', maxLength: 64, description: 'A saved place to measure `distance` from (PoracleNG).' },
  override_areas: { kind: 'strings', maxItems: 32, maxLength: 255, description: 'Areas for this alarm instead of the user\'s (PoracleNG); lower-cased.' }
}
const CLEAN: Record<string, FieldSpec> = { clean: int(0, 7, 'Bitmask: 1 delete after expiry, 2 edit in place, 4 quest summary.') }
const GYM_ID: FieldSpec = { kind: 'string', maxLength: 255, description: 'One gym; null = any gym (never "").' }

export const ALARM_FIELDS: Record<AlarmType, Record<string, FieldSpec>> = {
  pokemon: {
    pokemon_id: int(0, 100_000, '0 = every pokemon.'),
    form: int(0),
    min_iv: int(-1, 100, '-1 also matches pokemon without IVs.'),
    max_iv: int(-1, 100),
    min_cp: int(0, 10_000),
    max_cp: int(0, 10_000),
    min_level: int(0, 55),
    max_level: int(0, 55),
    min_weight: int(0),
    max_weight: int(0),
    atk: int(0, 15),
    def: int(0, 15),
    sta: int(0, 15),
    max_atk: int(0, 15),
    max_def: int(0, 15),
    max_sta: int(0, 15),
    gender: int(0, 3),
    size: int(-1, 5, '-1 = any size.'),
    max_size: int(0, 5),
    min_time: int(0, 3600, 'Seconds of despawn time left.'),
    rarity: int(-1, 6),
    max_rarity: int(-1, 6),
    pvp_ranking_league: { kind: 'int', enum: [0, 500, 1500, 2500] },
    pvp_ranking_best: int(0, 4096),
    pvp_ranking_worst: int(0, 4096),
    pvp_ranking_min_cp: int(0, 10_000),
    pvp_ranking_cap: int(0, 55),
    pvp_ranking_evolution: int(0, 3, '0 base, 1 any mega, 2 Mega X, 3 Mega Y (PoracleNG).'),
    ...CLEAN,
    ...DELIVERY
  },
  raid: {
    pokemon_id: int(0, 100_000, '9000 = by level.'),
    level: int(1, 9000, '1-15, 90 = every level; 9000 for raids of one pokemon.'),
    form: int(0),
    team: int(0, 4, '4 = any team.'),
    move: int(0, 9000, '9000 = any move.'),
    evolution: int(0, 9000, '9000 = any evolution.'),
    exclusive: flag(),
    gym_id: GYM_ID,
    rsvp_changes: int(0, 2, '0 without, 1 including, 2 only RSVP changes (PoracleNG).'),
    ...CLEAN,
    ...DELIVERY
  },
  egg: {
    level: int(1, 9000),
    team: int(0, 4),
    exclusive: flag(),
    gym_id: GYM_ID,
    rsvp_changes: int(0, 2),
    ...CLEAN,
    ...DELIVERY
  },
  quest: {
    reward_type: { kind: 'int', enum: [2, 3, 4, 7, 12], description: '2 item, 3 stardust, 4 candy, 7 pokemon, 12 mega energy.' },
    reward: int(0),
    amount: int(0),
    form: int(0),
    shiny: flag(),
    ...CLEAN,
    ...DELIVERY
  },
  invasion: {
    grunt_type: { kind: 'string', minLength: 1, maxLength: 256, description: 'e.g. "fire", "mixed"; lower-cased.' },
    gender: int(0, 3),
    ...CLEAN,
    ...DELIVERY
  },
  lure: {
    lure_id: { kind: 'int', enum: [0, 501, 502, 503, 504, 505, 506], description: '0 = any lure.' },
    ...CLEAN,
    ...DELIVERY
  },
  nest: {
    pokemon_id: int(0, 100_000),
    min_spawn_avg: int(0),
    form: int(0),
    ...CLEAN,
    ...DELIVERY
  },
  gym: {
    team: int(0, 4),
    slot_changes: flag(),
    battle_changes: flag(),
    gym_id: GYM_ID,
    ...CLEAN,
    ...DELIVERY
  },
  fort: {
    fort_type: { kind: 'stringEnum', values: ['pokestop', 'gym', 'everything'] },
    include_empty: flag('Also forts without a name.'),
    change_types: { kind: 'strings', maxItems: 16, maxLength: 32, description: 'name, location, image_url, removal, new, description.' },
    ...DELIVERY
  },
  maxbattle: {
    pokemon_id: int(0, 100_000, '9000 = by level.'),
    level: int(1, 9000),
    form: int(0),
    move: int(0, 9000),
    evolution: int(0, 9000),
    gmax: flag(),
    station_id: { kind: 'string', maxLength: 255, description: 'One station; null = any.' },
    ...CLEAN,
    ...DELIVERY
  }
}

/** Fields a create must name (the engine has no useful default for them). */
export const REQUIRED_ON_CREATE: Record<AlarmType, string[]> = {
  pokemon: ['pokemon_id'],
  raid: [],
  egg: ['level'],
  quest: ['reward_type'],
  invasion: ['grunt_type'],
  lure: [],
  nest: [],
  gym: [],
  fort: [],
  maxbattle: []
}

/**
 * Read-only fields of a stored alarm that a client may echo back (it PUTs what it GETs). They are
 * accepted and ignored: the owner comes from the token, the uid from the path, the profile from the engine.
 */
const ECHOED: Record<string, TSchema> = {
  uid: Type.Unsafe({ type: ['integer', 'null'], minimum: 0 }),
  id: Type.Unsafe({ type: ['string', 'null'] }),
  profile_no: Type.Unsafe({ type: ['integer', 'null'] }),
  description: Type.Unsafe({ type: ['string', 'null'] })
}
export const ECHOED_FIELDS = new Set(Object.keys(ECHOED))

/** A request field; `nullable` except where a create requires it. */
function requestSchema (spec: FieldSpec, nullable = true): TSchema {
  const types = (...names: string[]) => (nullable ? [...names, 'null'] : names)
  const values = <T>(list: T[]) => (nullable ? [...list, null] : list)
  const description = 'description' in spec && spec.description !== undefined ? { description: spec.description } : {}
  switch (spec.kind) {
    case 'int':
      return Type.Unsafe(spec.enum !== undefined
        ? { type: types('integer'), enum: values(spec.enum), ...description }
        : { type: types('integer'), ...(spec.minimum !== undefined ? { minimum: spec.minimum } : {}), ...(spec.maximum !== undefined ? { maximum: spec.maximum } : {}), ...description })
    case 'flag':
      return Type.Unsafe({ type: types('integer'), enum: values([0, 1]), ...description })
    case 'string':
      return Type.Unsafe({ type: types('string'), maxLength: spec.maxLength, ...(spec.minLength !== undefined ? { minLength: spec.minLength } : {}), ...description })
    case 'stringEnum':
      return Type.Unsafe({ type: types('string'), enum: values(spec.values), ...description })
    case 'template':
      return Type.Unsafe({ type: types('string', 'integer'), maxLength: 256, description: 'Template name; the engine\'s default when absent.' })
    case 'strings':
      return Type.Unsafe({ type: types('array'), maxItems: spec.maxItems, items: { type: 'string', minLength: 1, maxLength: spec.maxLength }, ...description })
  }
}

/** Stored values are shown as the engine keeps them, so the response schema checks types, not ranges. */
function responseSchema (spec: FieldSpec): TSchema {
  switch (spec.kind) {
    case 'int': return Type.Unsafe({ type: ['integer', 'null'] })
    case 'flag': return Type.Unsafe({ type: ['integer', 'boolean', 'null'] })
    case 'string': case 'stringEnum': return Type.Unsafe({ type: ['string', 'null'] })
    case 'template': return Type.Unsafe({ type: ['string', 'integer', 'null'] })
    case 'strings': return Type.Unsafe({ type: ['array', 'null'], items: { type: 'string' } })
  }
}

const mapFields = (type: AlarmType, build: (spec: FieldSpec) => TSchema) =>
  Object.fromEntries(Object.entries(ALARM_FIELDS[type]).map(([name, spec]) => [name, build(spec)]))

/** Request properties: all optional and nullable except `required` ones. */
const requestFields = (type: AlarmType, required: string[]) => ({
  ...Object.fromEntries(Object.entries(ALARM_FIELDS[type]).map(([name, spec]) =>
    [name, required.includes(name) ? requestSchema(spec, false) : Type.Optional(requestSchema(spec))])),
  ...Object.fromEntries(Object.entries(ECHOED).map(([name, schema]) => [name, Type.Optional(schema)]))
})

/** POST body: the type's fields, its required ones, and the echoed read-only fields. */
export const alarmCreateSchema = (type: AlarmType) => Type.Object(requestFields(type, REQUIRED_ON_CREATE[type]), { additionalProperties: false })

/** PUT body: every field optional; null or absent keeps the stored value. */
export const alarmUpdateSchema = (type: AlarmType) => Type.Object(requestFields(type, []), { additionalProperties: false })

/** A stored alarm; columns this schema does not name are passed through as the engine sent them. */
export const alarmSchema = (type: AlarmType) => Type.Object({
  uid: Type.Integer(),
  id: Type.String({ description: 'The owner\'s user id.' }),
  profile_no: Type.Integer(),
  description: Type.Optional(Type.String({ description: 'The engine\'s one-line summary.' })),
  ...Object.fromEntries(Object.entries(mapFields(type, responseSchema)).map(([name, schema]) => [name, Type.Optional(schema)]))
}, { additionalProperties: true })

export const DistanceSchema = Type.Integer({ minimum: 0, maximum: 40_000_000, description: 'Metres; 0 = the user\'s areas.' })

export const BulkDistanceSchema = Type.Object({
  uids: Type.Array(Type.Integer({ minimum: 1, maximum: 4_294_967_295 }), { minItems: 1, maxItems: 1000, uniqueItems: true }),
  distance: DistanceSchema
}, { additionalProperties: false })

export const UidParamsSchema = Type.Object({ uid: Type.Integer({ minimum: 1, maximum: 4_294_967_295 }) })

export const UpdatedSchema = Type.Object({ updated: Type.Integer() })
export const DeletedSchema = Type.Object({ deleted: Type.Integer() })

export const DashboardSchema = Type.Object({
  monsters: Type.Integer(),
  raids: Type.Integer(),
  eggs: Type.Integer(),
  quests: Type.Integer(),
  invasions: Type.Integer(),
  lures: Type.Integer(),
  nests: Type.Integer(),
  gyms: Type.Integer(),
  fortChanges: Type.Integer(),
  maxBattles: Type.Integer()
})

export const TEST_ALERT_TYPES = ['pokemon', 'raid', 'egg', 'quest', 'invasion', 'lure', 'nest', 'gym'] as const

export const TestAlertParamsSchema = Type.Object({
  type: Type.Union(TEST_ALERT_TYPES.map((t) => Type.Literal(t))),
  uid: Type.Integer({ minimum: 1, maximum: 4_294_967_295 })
})

export const TestAlertResultSchema = Type.Object({ status: Type.Literal('ok'), message: Type.String() })
