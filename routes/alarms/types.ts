import type { AlarmType } from '../../plugins/engine.js'
import { ALARM_DISABLE_KEYS } from '../../plugins/feature-gates.js'

type Row = Record<string, unknown>

/** One alarm type of the API: everything that differs between the ten, so one set of routes serves all. */
export interface AlarmKind {
  type: AlarmType
  /** Path under /api. */
  path: string
  /** The site setting (and engine hook) that switches the whole type off. */
  disableKey: string
  /** Its count's name in GET /api/dashboard. */
  dashboardKey: 'monsters' | 'raids' | 'eggs' | 'quests' | 'invasions' | 'lures' | 'nests' | 'gyms' | 'fortChanges' | 'maxBattles'
  tag: string
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
}

const OVERRIDES = { override_location_label: null, override_areas: null }
const COMMON = { clean: 0, distance: 0, ...OVERRIDES }

export const ALARM_KINDS: AlarmKind[] = [
  {
    type: 'pokemon',
    path: '/monsters',
    disableKey: ALARM_DISABLE_KEYS.pokemon,
    dashboardKey: 'monsters',
    tag: 'monsters',
    createDefaults: { max_iv: 100, max_cp: 9000, max_level: 55, size: -1, max_size: 5 },
    engineDefaults: {
      form: 0, min_iv: -1, max_iv: 100, min_cp: 0, max_cp: 9000, min_level: 0, max_level: 55, atk: 0, def: 0, sta: 0,
      max_atk: 15, max_def: 15, max_sta: 15, gender: 0, min_weight: 0, max_weight: 9000000, min_time: 0, rarity: -1,
      max_rarity: 6, size: -1, max_size: 5, pvp_ranking_league: 0, pvp_ranking_best: 1, pvp_ranking_worst: 4096,
      pvp_ranking_min_cp: 0, pvp_ranking_cap: 0, ...COMMON
    },
    ranges: [['min_iv', 'max_iv'], ['min_cp', 'max_cp'], ['min_level', 'max_level'], ['min_weight', 'max_weight']]
  },
  {
    type: 'raid',
    path: '/raids',
    disableKey: ALARM_DISABLE_KEYS.raid,
    dashboardKey: 'raids',
    tag: 'raids',
    // PoracleJS reads `level` only when pokemon_id is the number 9000, and fails a raid without `clean`.
    createDefaults: { pokemon_id: 9000, team: 4, move: 9000, evolution: 9000, clean: 0 },
    engineDefaults: { pokemon_id: 9000, form: 0, team: 4, exclusive: 0, move: 9000, evolution: 9000, gym_id: null, rsvp_changes: 0, ...COMMON }
  },
  {
    type: 'egg',
    path: '/eggs',
    // Eggs are raids to the engine and to the admin switch.
    disableKey: ALARM_DISABLE_KEYS.egg,
    dashboardKey: 'eggs',
    tag: 'eggs',
    createDefaults: { team: 4 },
    engineDefaults: { team: 4, exclusive: 0, gym_id: null, rsvp_changes: 0, ...COMMON }
  },
  {
    type: 'quest',
    path: '/quests',
    disableKey: ALARM_DISABLE_KEYS.quest,
    dashboardKey: 'quests',
    tag: 'quests',
    createDefaults: {},
    engineDefaults: { reward: 0, amount: 0, form: 0, shiny: 0, ...COMMON }
  },
  {
    type: 'invasion',
    path: '/invasions',
    disableKey: ALARM_DISABLE_KEYS.invasion,
    dashboardKey: 'invasions',
    tag: 'invasions',
    createDefaults: {},
    engineDefaults: { gender: 0, ...COMMON },
    uniqueKey: ['gender', 'grunt_type']
  },
  {
    type: 'lure',
    path: '/lures',
    disableKey: ALARM_DISABLE_KEYS.lure,
    dashboardKey: 'lures',
    tag: 'lures',
    // PoracleJS rejects a lure without `lure_id`; 0 is "any lure", PoracleNG's default.
    createDefaults: { lure_id: 0 },
    engineDefaults: { lure_id: 0, ...COMMON },
    uniqueKey: ['lure_id']
  },
  {
    type: 'nest',
    path: '/nests',
    disableKey: ALARM_DISABLE_KEYS.nest,
    dashboardKey: 'nests',
    tag: 'nests',
    // PoracleJS fails a nest without `pokemon_id`; 0 is PoracleNG's default.
    createDefaults: { pokemon_id: 0 },
    engineDefaults: { pokemon_id: 0, min_spawn_avg: 0, form: 0, ...COMMON }
  },
  {
    type: 'gym',
    path: '/gyms',
    disableKey: ALARM_DISABLE_KEYS.gym,
    dashboardKey: 'gyms',
    tag: 'gyms',
    createDefaults: { team: 4 },
    engineDefaults: { slot_changes: 0, battle_changes: 0, gym_id: null, ...COMMON }
  },
  {
    type: 'fort',
    path: '/fort-changes',
    disableKey: ALARM_DISABLE_KEYS.fort,
    dashboardKey: 'fortChanges',
    tag: 'fort-changes',
    createDefaults: {},
    engineDefaults: { fort_type: 'everything', include_empty: 0, change_types: [], distance: 0, ...OVERRIDES }
  },
  {
    type: 'maxbattle',
    path: '/maxbattles',
    disableKey: ALARM_DISABLE_KEYS.maxbattle,
    dashboardKey: 'maxBattles',
    tag: 'maxbattles',
    createDefaults: {},
    engineDefaults: { pokemon_id: 9000, level: 9000, form: 0, move: 9000, gmax: 0, evolution: 9000, station_id: null, ...COMMON }
  }
]

export const KIND_OF: Record<AlarmType, AlarmKind> = Object.fromEntries(ALARM_KINDS.map((k) => [k.type, k])) as Record<AlarmType, AlarmKind>
