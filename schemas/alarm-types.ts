import { Type, type Static } from '@sinclair/typebox'

/**
 * The ten alarm types in one table: everything the service knows about a type lives in its descriptor,
 * and every other list of types (routes, feature switches, dashboard counts, cleaning paths, engine
 * duplicate rules, request schemas, GET /api/alarm-types) is derived from it. Adding a type is one
 * descriptor here plus its table in db/schema/engine.ts (docs/alarm-types.md).
 *
 * Ranges: each numeric field is bounded by what it means (an IV is -1..100) and never wider than the
 * engine's column (alarm-engine.md 2.x, db/schema/engine.ts): a value the column cannot hold would come
 * back from the engine as an error instead of a clear 400.
 */

export type EngineGeneration = 'ng' | 'js'

/** Signed 32-bit `int` columns. */
export const INT_MIN = -2_147_483_648
export const INT_MAX = 2_147_483_647
/** Unsigned `int` columns (alarm uids). */
export const UINT_MAX = 4_294_967_295

/**
 * One field of an alarm, as the API takes it and as GET /api/alarm-types serves it.
 * - integer: a whole number in min..max (step 1).
 * - boolean: sent and stored as 0 or 1.
 * - enum: one of `values` (numbers or strings).
 * - string: free text up to maxLength.
 * - template: the engine's template name, a string or a number.
 * - list: a list of short strings (the engine keeps it as JSON text).
 */
export type FieldSpec =
  | { kind: 'integer', min: number, max: number, step: 1, unit?: string, description?: string }
  | { kind: 'boolean', description?: string }
  | { kind: 'enum', values: Array<number | string>, description?: string }
  | { kind: 'string', minLength?: number, maxLength: number, description?: string }
  | { kind: 'template', min: number, max: number, maxLength: number, description?: string }
  | { kind: 'list', maxItems: number, maxLength: number, description?: string }

/** The engine's duplicate detection for one type and generation (alarm-engine.md 1.3; see routes/alarms/diff.ts). */
export interface DiffRules {
  /** Fields a stored row must share to be compared at all; null: never compared (always inserted). */
  match: string[] | null
  /** A difference in exactly one of these updates the stored row. */
  updatable: string[]
}

type Row = Record<string, unknown>

/** One min/max pair as a slider: its fields, its span and step, and the form section it belongs to. */
export interface RangeSlider {
  low: string
  high: string
  min: number
  max: number
  step: number
  section: 'primary' | 'advanced' | 'pvp'
  unit?: string
}
const slider = (low: string, high: string, min: number, max: number, section: RangeSlider['section'], step = 1, unit?: string): RangeSlider =>
  ({ low, high, min, max, step, section, ...(unit !== undefined ? { unit } : {}) })

/** Everything that differs between the alarm types, so one set of routes serves all of them. */
export interface AlarmKind<T extends string = AlarmType> {
  type: T
  /** The engine's name for the type in `/api/tracking/{name}` and in its `all` answer. */
  engineName: string
  /** Path under /api; also the OpenAPI tag without its slash. */
  path: string
  /** The site setting (and engine hook) that switches the whole type off. */
  disableKey: string
  /** Its count's name in GET /api/dashboard. */
  dashboardKey: string
  /** Its name in /api/cleaning paths; null when the type has no `clean` column. */
  cleaningName: string | null
  /** The engine generations that have the type. */
  generations: readonly EngineGeneration[]
  /** POST /api/test-alert: sent by the engine, accepted but refused by the engine (501), or not a test-alert type. */
  testAlert: 'available' | 'unsupported' | 'none'
  /** How the engine detects duplicates, per generation. */
  duplicates: Record<EngineGeneration, DiffRules>
  /** Fields a create must name (the engine has no useful default for them). */
  requiredOnCreate: string[]
  /** The spec's frontend defaults, applied on create when a field is absent, plus what PoracleJS needs sent. */
  createDefaults: Row
  /**
   * What the engine stores for a field a write leaves out (alarm-engine.md 1.4): used to predict the
   * engine's duplicate detection for creates, which compares complete rows.
   */
  engineDefaults: Row
  /** Columns of a database unique key besides the owner and profile: two alarms may not share them. */
  uniqueKey?: string[]
  /** Pairs that must not be inverted. */
  ranges?: Array<[string, string]>
  /**
   * How the pairs are edited: one two-handle slider from `min` to `max` in `step`s. A pair at its full
   * span (or at the engine's defaults) filters nothing and is shown as "any".
   */
  sliders?: RangeSlider[]
  fields: Record<string, FieldSpec>
}

const integer = (min: number, max: number, description?: string, unit?: string): FieldSpec =>
  ({ kind: 'integer', min, max, step: 1, ...(unit !== undefined ? { unit } : {}), ...(description !== undefined ? { description } : {}) })
const flag = (description?: string): FieldSpec => ({ kind: 'boolean', ...(description !== undefined ? { description } : {}) })
const oneOf = (values: Array<number | string>, description?: string): FieldSpec =>
  ({ kind: 'enum', values, ...(description !== undefined ? { description } : {}) })

/** Form, costume, weight, reward and similar ids: any value an `int` column holds that is not negative. */
const anyId = (description?: string) => integer(0, INT_MAX, description)
const POKEMON_ID = (description?: string) => integer(0, 100_000, description)
const LEVEL = (description?: string) => integer(1, 9000, description)
const TEAM = integer(0, 4, '4 = any team.')
const MOVE = integer(0, 9000, '9000 = any move.')
const EVOLUTION = integer(0, 9000, '9000 = any evolution.')
const RSVP = integer(0, 2, '0 without, 1 including, 2 only RSVP changes (PoracleNG).')
const GYM_ID: FieldSpec = { kind: 'string', maxLength: 255, description: 'One gym; null = any gym (never "").' }
const STAT = integer(0, 15)

/** Every type except fort changes (which have no `clean` column) carries `clean`; every type the rest. */
const CLEAN: Record<string, FieldSpec> = { clean: integer(0, 7, 'Bitmask: 1 delete after expiry, 2 edit in place, 4 quest summary.') }
const DELIVERY: Record<string, FieldSpec> = {
  ping: { kind: 'string', maxLength: 256, description: 'Extra text for the message; PoracleNG does not store it.' },
  distance: integer(0, 40_000_000, 'Metres around the user\'s location; 0 = the user\'s areas. The engine caps at 40,000,000.', 'm'),
  template: { kind: 'template', min: INT_MIN, max: INT_MAX, maxLength: 256, description: 'Template name; the engine\'s default when absent.' },
  override_location_label: { kind: 'string', maxLength: 64, description: 'A saved place to measure `distance` from (PoracleNG).' },
  override_areas: { kind: 'list', maxItems: 32, maxLength: 255, description: 'Areas for this alarm instead of the user\'s (PoracleNG); lower-cased.' }
}
/** What raids and eggs both filter on besides level and team. */
const RAID_FILTERS: Record<string, FieldSpec> = { exclusive: flag(), gym_id: GYM_ID, rsvp_changes: RSVP, ...CLEAN, ...DELIVERY }

const OVERRIDES = { override_location_label: null, override_areas: null }
const COMMON_DEFAULTS = { clean: 0, distance: 0, ...OVERRIDES }
const COMMON_UPDATABLE = ['distance', 'template', 'clean']
const BOTH: readonly EngineGeneration[] = ['js', 'ng']
const sameRules = (rules: DiffRules): Record<EngineGeneration, DiffRules> => ({ js: rules, ng: rules })

/** Keeps each descriptor's `type` as its literal, so the table itself defines `AlarmType`. */
const kind = <T extends string>(descriptor: AlarmKind<T>): AlarmKind<T> => descriptor

/** The table. Order is the API's order (routes, dashboard, GET /api/alarm-types). */
const KINDS = [
  kind({
    type: 'pokemon',
    engineName: 'pokemon',
    path: '/monsters',
    disableKey: 'disable_mons',
    dashboardKey: 'monsters',
    cleaningName: 'monsters',
    generations: BOTH,
    testAlert: 'available',
    duplicates: { js: { match: ['pokemon_id'], updatable: [...COMMON_UPDATABLE, 'min_iv'] }, ng: { match: [], updatable: [...COMMON_UPDATABLE, 'min_iv'] } },
    requiredOnCreate: ['pokemon_id'],
    createDefaults: { max_iv: 100, max_cp: 9000, max_level: 55, size: -1, max_size: 5 },
    engineDefaults: {
      form: 0,
      min_iv: -1,
      max_iv: 100,
      min_cp: 0,
      max_cp: 9000,
      min_level: 0,
      max_level: 55,
      atk: 0,
      def: 0,
      sta: 0,
      max_atk: 15,
      max_def: 15,
      max_sta: 15,
      gender: 0,
      min_weight: 0,
      max_weight: 9000000,
      min_time: 0,
      rarity: -1,
      max_rarity: 6,
      size: -1,
      max_size: 5,
      pvp_ranking_league: 0,
      pvp_ranking_best: 1,
      pvp_ranking_worst: 4096,
      pvp_ranking_min_cp: 0,
      pvp_ranking_cap: 0,
      ...COMMON_DEFAULTS
    },
    ranges: [['min_iv', 'max_iv'], ['min_cp', 'max_cp'], ['min_level', 'max_level'], ['min_weight', 'max_weight'], ['atk', 'max_atk'], ['def', 'max_def'],
      ['sta', 'max_sta'], ['size', 'max_size'], ['rarity', 'max_rarity'], ['pvp_ranking_best', 'pvp_ranking_worst']],
    sliders: [
      slider('min_iv', 'max_iv', -1, 100, 'primary', 1, '%'),
      slider('min_level', 'max_level', 0, 55, 'primary'),
      slider('min_cp', 'max_cp', 0, 10_000, 'advanced', 10),
      slider('atk', 'max_atk', 0, 15, 'advanced'),
      slider('def', 'max_def', 0, 15, 'advanced'),
      slider('sta', 'max_sta', 0, 15, 'advanced'),
      slider('size', 'max_size', -1, 5, 'advanced'),
      slider('rarity', 'max_rarity', -1, 6, 'advanced'),
      slider('pvp_ranking_best', 'pvp_ranking_worst', 1, 4096, 'pvp')
    ],
    fields: {
      pokemon_id: POKEMON_ID('0 = every pokemon.'),
      form: anyId(),
      min_iv: integer(-1, 100, '-1 also matches pokemon without IVs.', '%'),
      max_iv: integer(-1, 100, undefined, '%'),
      min_cp: integer(0, 10_000),
      max_cp: integer(0, 10_000),
      min_level: integer(0, 55),
      max_level: integer(0, 55),
      min_weight: anyId(),
      max_weight: anyId(),
      atk: STAT,
      def: STAT,
      sta: STAT,
      max_atk: STAT,
      max_def: STAT,
      max_sta: STAT,
      gender: integer(0, 3, '0 any, 1 male, 2 female, 3 genderless.'),
      size: integer(-1, 5, '-1 = any size.'),
      max_size: integer(0, 5),
      min_time: integer(0, 3600, 'Seconds of despawn time left.', 's'),
      rarity: integer(-1, 6),
      max_rarity: integer(-1, 6),
      pvp_ranking_league: oneOf([0, 500, 1500, 2500], '0 = no PVP filter; else the league\'s CP cap.'),
      pvp_ranking_best: integer(0, 4096),
      pvp_ranking_worst: integer(0, 4096),
      pvp_ranking_min_cp: integer(0, 10_000),
      pvp_ranking_cap: integer(0, 55),
      pvp_ranking_evolution: integer(0, 3, '0 base, 1 any mega, 2 Mega X, 3 Mega Y (PoracleNG).'),
      ...CLEAN,
      ...DELIVERY
    }
  }),
  kind({
    type: 'raid',
    engineName: 'raid',
    path: '/raids',
    disableKey: 'disable_raids',
    dashboardKey: 'raids',
    cleaningName: 'raids',
    generations: BOTH,
    testAlert: 'available',
    duplicates: sameRules({ match: ['team'], updatable: COMMON_UPDATABLE }),
    requiredOnCreate: [],
    // PoracleJS reads `level` only when pokemon_id is the number 9000, and fails a raid without `clean`.
    createDefaults: { pokemon_id: 9000, team: 4, move: 9000, evolution: 9000, clean: 0 },
    engineDefaults: { pokemon_id: 9000, form: 0, team: 4, exclusive: 0, move: 9000, evolution: 9000, gym_id: null, rsvp_changes: 0, ...COMMON_DEFAULTS },
    fields: {
      pokemon_id: POKEMON_ID('9000 = by level.'),
      level: LEVEL('1-15, 90 = every level; 9000 for raids of one pokemon.'),
      form: anyId(),
      team: TEAM,
      move: MOVE,
      evolution: EVOLUTION,
      ...RAID_FILTERS
    }
  }),
  kind({
    type: 'egg',
    engineName: 'egg',
    path: '/eggs',
    // Eggs are raids to the engine's hooks and to the admin switch.
    disableKey: 'disable_raids',
    dashboardKey: 'eggs',
    cleaningName: 'eggs',
    generations: BOTH,
    testAlert: 'available',
    duplicates: sameRules({ match: ['team'], updatable: COMMON_UPDATABLE }),
    requiredOnCreate: ['level'],
    createDefaults: { team: 4 },
    engineDefaults: { team: 4, exclusive: 0, gym_id: null, rsvp_changes: 0, ...COMMON_DEFAULTS },
    fields: {
      level: LEVEL(),
      team: TEAM,
      ...RAID_FILTERS
    }
  }),
  kind({
    type: 'quest',
    engineName: 'quest',
    path: '/quests',
    disableKey: 'disable_quests',
    dashboardKey: 'quests',
    cleaningName: 'quests',
    generations: BOTH,
    testAlert: 'available',
    duplicates: { js: { match: ['reward_type', 'reward'], updatable: COMMON_UPDATABLE }, ng: { match: ['reward_type', 'reward', 'form'], updatable: COMMON_UPDATABLE } },
    requiredOnCreate: ['reward_type'],
    createDefaults: {},
    engineDefaults: { reward: 0, amount: 0, form: 0, shiny: 0, ...COMMON_DEFAULTS },
    fields: {
      reward_type: oneOf([2, 3, 4, 7, 12], '2 item, 3 stardust, 4 candy, 7 pokemon, 12 mega energy.'),
      reward: anyId('The item or pokemon id; for stardust the minimum amount.'),
      amount: anyId(),
      form: anyId(),
      shiny: flag(),
      ...CLEAN,
      ...DELIVERY
    }
  }),
  kind({
    type: 'invasion',
    engineName: 'invasion',
    path: '/invasions',
    disableKey: 'disable_invasions',
    dashboardKey: 'invasions',
    cleaningName: 'invasions',
    generations: BOTH,
    testAlert: 'available',
    duplicates: sameRules({ match: ['grunt_type'], updatable: COMMON_UPDATABLE }),
    requiredOnCreate: ['grunt_type'],
    createDefaults: {},
    engineDefaults: { gender: 0, ...COMMON_DEFAULTS },
    uniqueKey: ['gender', 'grunt_type'],
    fields: {
      grunt_type: { kind: 'string', minLength: 1, maxLength: 255, description: 'e.g. "fire", "mixed"; lower-cased.' },
      gender: integer(0, 3, '0 any, 1 male, 2 female.'),
      ...CLEAN,
      ...DELIVERY
    }
  }),
  kind({
    type: 'lure',
    engineName: 'lure',
    path: '/lures',
    disableKey: 'disable_lures',
    dashboardKey: 'lures',
    cleaningName: 'lures',
    generations: BOTH,
    testAlert: 'available',
    duplicates: sameRules({ match: ['lure_id'], updatable: COMMON_UPDATABLE }),
    requiredOnCreate: [],
    // PoracleJS rejects a lure without `lure_id`; 0 is "any lure", PoracleNG's default.
    createDefaults: { lure_id: 0 },
    engineDefaults: { lure_id: 0, ...COMMON_DEFAULTS },
    uniqueKey: ['lure_id'],
    fields: {
      lure_id: oneOf([0, 501, 502, 503, 504, 505, 506], '0 = any lure.'),
      ...CLEAN,
      ...DELIVERY
    }
  }),
  kind({
    type: 'nest',
    engineName: 'nest',
    path: '/nests',
    disableKey: 'disable_nests',
    dashboardKey: 'nests',
    cleaningName: 'nests',
    generations: BOTH,
    // The route takes it, the engine cannot render a nest sample.
    testAlert: 'unsupported',
    // PoracleJS filters nests on a field they do not have, so it compares every row.
    duplicates: { js: { match: [], updatable: COMMON_UPDATABLE }, ng: { match: ['pokemon_id', 'form'], updatable: COMMON_UPDATABLE } },
    requiredOnCreate: [],
    // PoracleJS fails a nest without `pokemon_id`; 0 is PoracleNG's default.
    createDefaults: { pokemon_id: 0 },
    engineDefaults: { pokemon_id: 0, min_spawn_avg: 0, form: 0, ...COMMON_DEFAULTS },
    fields: {
      pokemon_id: POKEMON_ID(),
      min_spawn_avg: anyId('Minimum average spawns per hour.'),
      form: anyId(),
      ...CLEAN,
      ...DELIVERY
    }
  }),
  kind({
    type: 'gym',
    engineName: 'gym',
    path: '/gyms',
    disableKey: 'disable_gyms',
    dashboardKey: 'gyms',
    cleaningName: 'gyms',
    generations: BOTH,
    testAlert: 'available',
    duplicates: { js: { match: ['team'], updatable: COMMON_UPDATABLE }, ng: { match: ['team'], updatable: [...COMMON_UPDATABLE, 'slot_changes', 'battle_changes'] } },
    requiredOnCreate: [],
    createDefaults: { team: 4 },
    engineDefaults: { slot_changes: 0, battle_changes: 0, gym_id: null, ...COMMON_DEFAULTS },
    fields: {
      team: TEAM,
      slot_changes: flag(),
      battle_changes: flag(),
      gym_id: GYM_ID,
      ...CLEAN,
      ...DELIVERY
    }
  }),
  kind({
    type: 'fort',
    engineName: 'fort',
    path: '/fort-changes',
    disableKey: 'disable_fort_changes',
    dashboardKey: 'fortChanges',
    cleaningName: null,
    generations: ['ng'],
    testAlert: 'none',
    duplicates: sameRules({ match: ['fort_type'], updatable: ['distance', 'template'] }),
    requiredOnCreate: [],
    createDefaults: {},
    engineDefaults: { fort_type: 'everything', include_empty: 0, change_types: [], distance: 0, ...OVERRIDES },
    fields: {
      fort_type: oneOf(['pokestop', 'gym', 'everything']),
      include_empty: flag('Also forts without a name.'),
      // The engine keeps the list as JSON text in a varchar(255): six names of 32 letters fit, sixteen did not.
      change_types: { kind: 'list', maxItems: 6, maxLength: 32, description: 'name, location, image_url, removal, new, description.' },
      ...DELIVERY
    }
  }),
  kind({
    type: 'maxbattle',
    engineName: 'maxbattle',
    path: '/maxbattles',
    disableKey: 'disable_maxbattles',
    dashboardKey: 'maxBattles',
    cleaningName: 'maxbattles',
    generations: ['ng'],
    testAlert: 'none',
    // The engine never merges max battles: every write inserts.
    duplicates: sameRules({ match: null, updatable: [] }),
    requiredOnCreate: [],
    createDefaults: {},
    engineDefaults: { pokemon_id: 9000, level: 9000, form: 0, move: 9000, gmax: 0, evolution: 9000, station_id: null, ...COMMON_DEFAULTS },
    fields: {
      pokemon_id: POKEMON_ID('9000 = by level.'),
      level: LEVEL(),
      form: anyId(),
      move: MOVE,
      evolution: EVOLUTION,
      gmax: flag(),
      station_id: { kind: 'string', maxLength: 255, description: 'One station; null = any.' },
      ...CLEAN,
      ...DELIVERY
    }
  })
]

export type AlarmType = typeof KINDS[number]['type']

export const ALARM_KINDS: ReadonlyArray<AlarmKind> = KINDS
export const ALARM_TYPES: readonly AlarmType[] = KINDS.map((k) => k.type)
export const AlarmTypeSchema = Type.Union(ALARM_TYPES.map((type) => Type.Literal(type)))

export const KIND_OF = Object.fromEntries(ALARM_KINDS.map((k) => [k.type, k])) as Readonly<Record<AlarmType, AlarmKind>>

/** Tracking types PoracleJS has no routes for. */
export const NG_ONLY_ALARM_TYPES: ReadonlySet<AlarmType> = new Set(ALARM_KINDS.filter((k) => !k.generations.includes('js')).map((k) => k.type))

/** The site switch that turns off each alarm type (eggs share the raid switch, as in the engine). */
export const ALARM_DISABLE_KEYS = Object.fromEntries(ALARM_KINDS.map((k) => [k.type, k.disableKey])) as Readonly<Record<AlarmType, string>>

/** The engine's duplicate rules for one type on one generation. */
export const engineRules = (type: AlarmType, generation: EngineGeneration): DiffRules => KIND_OF[type].duplicates[generation]

/** The types POST /api/test-alert takes (nest among them: the engine answers it with 501). */
export const TEST_ALERT_TYPES: readonly AlarmType[] = ALARM_KINDS.filter((k) => k.testAlert !== 'none').map((k) => k.type)

/** The types with an auto-delete bit, by their names in /api/cleaning paths. */
export const CLEANING_TYPES: Readonly<Record<string, AlarmKind>> =
  Object.fromEntries(ALARM_KINDS.flatMap((k) => (k.cleaningName === null ? [] : [[k.cleaningName, k]])))

/** The ten alarm count names of GET /api/dashboard. */
export const DashboardSchema = Type.Object(Object.fromEntries(ALARM_KINDS.map((k) => [k.dashboardKey, Type.Integer()])))

/* GET /api/alarm-types: the table as the web client renders its alarm forms from it. */

const FieldDescriptorSchema = Type.Object({
  name: Type.String({ description: 'The field\'s name in alarm bodies (snake_case, as the engine names its column).' }),
  kind: Type.Union(['integer', 'boolean', 'enum', 'string', 'template', 'list'].map((k) => Type.Literal(k)), {
    description: 'integer: whole number in min..max; boolean: sent as 0 or 1; enum: one of `values`; string: text up to maxLength; template: a template name (text or number); list: strings.'
  }),
  min: Type.Optional(Type.Integer()),
  max: Type.Optional(Type.Integer()),
  step: Type.Optional(Type.Integer()),
  unit: Type.Optional(Type.String({ description: 'm (metres), s (seconds) or % when the number has a unit.' })),
  values: Type.Optional(Type.Array(Type.Union([Type.Integer(), Type.String()]))),
  minLength: Type.Optional(Type.Integer()),
  maxLength: Type.Optional(Type.Integer()),
  maxItems: Type.Optional(Type.Integer()),
  required: Type.Boolean({ description: 'A create must name it.' }),
  default: Type.Unknown({ description: 'What a new alarm starts with: the spec\'s form default, else what the engine stores; null when nothing.' }),
  labelKey: Type.String({ description: 'Translation key of the field\'s label (shared by every type).' }),
  helpKey: Type.String({ description: 'Translation key of the field\'s help text for this type.' }),
  description: Type.Optional(Type.String({ description: 'The help text in English.' }))
})

/** Why a type is not offered: the site's switch, the engine's own configuration, or an engine generation without it. */
export const UnavailableReasonSchema = Type.Union([Type.Literal('site'), Type.Literal('engine'), Type.Literal('generation')])
export type UnavailableReason = Static<typeof UnavailableReasonSchema>

export const AlarmTypeDescriptorSchema = Type.Object({
  type: AlarmTypeSchema,
  available: Type.Boolean({ description: 'Whether members can use the type on this site right now.' }),
  reason: Type.Union([UnavailableReasonSchema, Type.Null()], { description: 'Why it is not available; null when it is.' }),
  labelKey: Type.String(),
  path: Type.String({ description: 'Where its alarms are, e.g. /api/monsters.' }),
  engineName: Type.String(),
  disableKey: Type.String({ description: 'The site setting that switches the type off.' }),
  dashboardKey: Type.String({ description: 'Its count\'s name in GET /api/dashboard.' }),
  cleaningName: Type.Union([Type.String(), Type.Null()], { description: 'Its name in /api/cleaning paths; null: no auto-delete.' }),
  testAlert: Type.Boolean({ description: 'POST /api/test-alert/{type}/{uid} sends a sample, and POST /api/template-previews/{type} renders one.' }),
  fields: Type.Array(FieldDescriptorSchema),
  ranges: Type.Array(Type.Object({
    low: Type.String({ description: 'The lower field of the pair.' }),
    high: Type.String({ description: 'The upper field; never below `low` (a 400 otherwise).' }),
    min: Type.Integer({ description: 'The slider\'s lowest value.' }),
    max: Type.Integer({ description: 'The slider\'s highest value; the pair at min..max (or at its defaults) filters nothing.' }),
    step: Type.Integer(),
    section: Type.Union([Type.Literal('primary'), Type.Literal('advanced'), Type.Literal('pvp')]),
    unit: Type.Optional(Type.String())
  }), { description: 'The min/max pairs, each edited as one two-handle slider.' })
})
export type AlarmTypeDescriptor = Static<typeof AlarmTypeDescriptorSchema>

/** A descriptor as served: the fields in table order with their defaults, requirement and translation keys. */
export function describeKind (kind: AlarmKind, reason: UnavailableReason | null = null, apiPrefix = '/api'): AlarmTypeDescriptor {
  return {
    type: kind.type,
    available: reason === null,
    reason,
    labelKey: `alarms.types.${kind.type}`,
    path: `${apiPrefix}${kind.path}`,
    engineName: kind.engineName,
    disableKey: kind.disableKey,
    dashboardKey: kind.dashboardKey,
    cleaningName: kind.cleaningName,
    testAlert: kind.testAlert === 'available',
    ranges: kind.sliders ?? [],
    fields: Object.entries(kind.fields).map(([name, spec]) => ({
      name,
      ...spec,
      required: kind.requiredOnCreate.includes(name),
      default: kind.createDefaults[name] ?? kind.engineDefaults[name] ?? null,
      labelKey: `alarms.fields.${name}`,
      helpKey: `alarms.help.${kind.type}.${name}`
    }))
  }
}
