import type { QueryOptions } from 'mariadb'
import { ALARM_TABLES } from '../../plugins/data/engine-db.js'

/**
 * The alarm engine's database for tests: the DDL PoracleNG 5.1 leaves behind (golang-migrate version 5,
 * no foreign keys: NG drops them), and seed helpers that write rows the way the engine's bots do.
 * `db/schema/engine.ts` is the drizzle view of the same tables.
 */

/** Anything that runs SQL: a mariadb pool, pool connection or connection. */
export interface SqlRunner {
  query<T = any>(sql: string | QueryOptions, values?: any): Promise<T>
}

const TABLE_OPTIONS = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci'
/** NG migration 4 adds these to every alarm table. */
const OVERRIDES = '`override_location_label` varchar(64) DEFAULT NULL,\n  `override_areas` text DEFAULT NULL'

/**
 * The leading columns of the alarm tables added after the first migrations (lures, nests, gym), in the
 * order those migrations create them; `template` is nullable in some of them and not in others.
 */
const laterAlarmColumns = (template: 'DEFAULT NULL' | 'NOT NULL') => `\`uid\` int(10) unsigned NOT NULL AUTO_INCREMENT,
  \`id\` varchar(255) NOT NULL,
  \`profile_no\` int(11) NOT NULL DEFAULT 1,
  \`ping\` varchar(255) NOT NULL,
  \`clean\` tinyint(1) NOT NULL DEFAULT 0,
  \`distance\` int(11) NOT NULL,
  \`template\` text ${template}`

const DDL: string[] = [
  `CREATE TABLE \`humans\` (
  \`id\` varchar(255) NOT NULL,
  \`type\` varchar(255) NOT NULL,
  \`name\` varchar(255) NOT NULL,
  \`enabled\` tinyint(1) NOT NULL DEFAULT 1,
  \`area\` text NOT NULL,
  \`latitude\` float(14,10) NOT NULL DEFAULT 0.0000000000,
  \`longitude\` float(14,10) NOT NULL DEFAULT 0.0000000000,
  \`fails\` int(11) NOT NULL DEFAULT 0,
  \`last_checked\` datetime NOT NULL DEFAULT current_timestamp(),
  \`language\` varchar(255) DEFAULT NULL,
  \`admin_disable\` tinyint(1) NOT NULL DEFAULT 0,
  \`disabled_date\` datetime DEFAULT NULL,
  \`current_profile_no\` int(11) NOT NULL DEFAULT 1,
  \`community_membership\` text NOT NULL,
  \`area_restriction\` text DEFAULT NULL,
  \`notes\` varchar(255) NOT NULL DEFAULT '',
  \`blocked_alerts\` varchar(255) DEFAULT NULL,
  PRIMARY KEY (\`id\`)
) ${TABLE_OPTIONS}`,
  `CREATE TABLE \`profiles\` (
  \`uid\` int(10) unsigned NOT NULL AUTO_INCREMENT,
  \`id\` varchar(255) NOT NULL,
  \`profile_no\` int(11) NOT NULL DEFAULT 1,
  \`name\` varchar(255) NOT NULL,
  \`area\` text NOT NULL,
  \`latitude\` float(14,10) NOT NULL DEFAULT 0.0000000000,
  \`longitude\` float(14,10) NOT NULL DEFAULT 0.0000000000,
  \`active_hours\` varchar(4096) NOT NULL DEFAULT '[]',
  PRIMARY KEY (\`uid\`),
  UNIQUE KEY \`profile_unique\` (\`id\`,\`profile_no\`)
) ${TABLE_OPTIONS}`,
  `CREATE TABLE \`monsters\` (
  \`id\` varchar(255) NOT NULL,
  \`ping\` text NOT NULL,
  \`clean\` tinyint(1) NOT NULL DEFAULT 0,
  \`pokemon_id\` int(11) NOT NULL,
  \`distance\` int(11) NOT NULL,
  \`min_iv\` int(11) NOT NULL,
  \`max_iv\` int(11) NOT NULL,
  \`min_cp\` int(11) NOT NULL,
  \`max_cp\` int(11) NOT NULL,
  \`min_level\` int(11) NOT NULL,
  \`max_level\` int(11) NOT NULL,
  \`atk\` int(11) NOT NULL,
  \`def\` int(11) NOT NULL,
  \`sta\` int(11) NOT NULL,
  \`template\` text DEFAULT NULL,
  \`min_weight\` int(11) NOT NULL,
  \`max_weight\` int(11) NOT NULL,
  \`form\` int(11) NOT NULL,
  \`max_atk\` int(11) NOT NULL,
  \`max_def\` int(11) NOT NULL,
  \`max_sta\` int(11) NOT NULL,
  \`gender\` int(11) NOT NULL,
  \`uid\` int(10) unsigned NOT NULL AUTO_INCREMENT,
  \`profile_no\` int(11) NOT NULL DEFAULT 1,
  \`min_time\` int(11) NOT NULL DEFAULT 0,
  \`rarity\` int(11) NOT NULL DEFAULT -1,
  \`max_rarity\` int(11) NOT NULL DEFAULT 6,
  \`pvp_ranking_worst\` int(11) NOT NULL DEFAULT 4096,
  \`pvp_ranking_best\` int(11) NOT NULL DEFAULT 1,
  \`pvp_ranking_min_cp\` int(11) NOT NULL DEFAULT 1,
  \`pvp_ranking_league\` int(11) NOT NULL DEFAULT 0,
  \`pvp_ranking_cap\` int(11) NOT NULL DEFAULT 0,
  \`size\` int(11) NOT NULL DEFAULT -1,
  \`max_size\` int(11) NOT NULL DEFAULT 5,
  ${OVERRIDES},
  \`pvp_ranking_evolution\` tinyint(1) NOT NULL DEFAULT 0,
  PRIMARY KEY (\`uid\`),
  KEY \`monsters_pvp_ranking_league_pokemon_id_min_iv_index\` (\`pvp_ranking_league\`,\`pokemon_id\`,\`min_iv\`),
  KEY \`monsters_pvp_ranking_league_pokemon_id_pvp_ranking_worst_index\` (\`pvp_ranking_league\`,\`pokemon_id\`,\`pvp_ranking_worst\`)
) ${TABLE_OPTIONS}`,
  `CREATE TABLE \`raid\` (
  \`id\` varchar(255) NOT NULL,
  \`ping\` text NOT NULL,
  \`clean\` tinyint(1) NOT NULL DEFAULT 0,
  \`pokemon_id\` int(11) NOT NULL,
  \`exclusive\` tinyint(1) DEFAULT 0,
  \`template\` text DEFAULT NULL,
  \`distance\` int(11) NOT NULL,
  \`team\` int(11) NOT NULL,
  \`level\` int(11) NOT NULL,
  \`form\` int(11) NOT NULL,
  \`uid\` int(10) unsigned NOT NULL AUTO_INCREMENT,
  \`profile_no\` int(11) NOT NULL DEFAULT 1,
  \`move\` int(11) NOT NULL DEFAULT 9000,
  \`evolution\` int(11) NOT NULL DEFAULT 9000,
  \`gym_id\` varchar(255) DEFAULT NULL,
  \`rsvp_changes\` tinyint(8) NOT NULL DEFAULT 0,
  ${OVERRIDES},
  PRIMARY KEY (\`uid\`)
) ${TABLE_OPTIONS}`,
  `CREATE TABLE \`egg\` (
  \`id\` varchar(255) NOT NULL,
  \`ping\` text NOT NULL,
  \`clean\` tinyint(1) NOT NULL DEFAULT 0,
  \`exclusive\` tinyint(1) DEFAULT 0,
  \`template\` text DEFAULT NULL,
  \`distance\` int(11) NOT NULL,
  \`team\` int(11) NOT NULL,
  \`level\` int(11) NOT NULL,
  \`uid\` int(10) unsigned NOT NULL AUTO_INCREMENT,
  \`profile_no\` int(11) NOT NULL DEFAULT 1,
  \`gym_id\` varchar(255) DEFAULT NULL,
  \`rsvp_changes\` tinyint(8) NOT NULL DEFAULT 0,
  ${OVERRIDES},
  PRIMARY KEY (\`uid\`)
) ${TABLE_OPTIONS}`,
  `CREATE TABLE \`quest\` (
  \`id\` varchar(255) NOT NULL,
  \`ping\` text NOT NULL,
  \`clean\` tinyint(1) NOT NULL DEFAULT 0,
  \`reward\` int(11) NOT NULL,
  \`template\` text DEFAULT NULL,
  \`shiny\` tinyint(1) DEFAULT 0,
  \`reward_type\` int(11) NOT NULL,
  \`distance\` int(11) NOT NULL,
  \`uid\` int(10) unsigned NOT NULL AUTO_INCREMENT,
  \`profile_no\` int(11) NOT NULL DEFAULT 1,
  \`form\` int(11) NOT NULL DEFAULT 0,
  \`amount\` int(11) NOT NULL DEFAULT 0,
  ${OVERRIDES},
  PRIMARY KEY (\`uid\`)
) ${TABLE_OPTIONS}`,
  `CREATE TABLE \`invasion\` (
  \`id\` varchar(255) NOT NULL,
  \`ping\` varchar(255) NOT NULL,
  \`clean\` tinyint(1) NOT NULL DEFAULT 0,
  \`distance\` int(11) NOT NULL,
  \`template\` text DEFAULT NULL,
  \`gender\` int(11) NOT NULL,
  \`grunt_type\` varchar(255) NOT NULL,
  \`uid\` int(10) unsigned NOT NULL AUTO_INCREMENT,
  \`profile_no\` int(11) NOT NULL DEFAULT 1,
  ${OVERRIDES},
  PRIMARY KEY (\`uid\`),
  UNIQUE KEY \`invasion_tracking\` (\`id\`,\`profile_no\`,\`gender\`,\`grunt_type\`)
) ${TABLE_OPTIONS}`,
  `CREATE TABLE \`lures\` (
  ${laterAlarmColumns('DEFAULT NULL')},
  \`lure_id\` int(11) NOT NULL,
  ${OVERRIDES},
  PRIMARY KEY (\`uid\`),
  UNIQUE KEY \`lure_tracking\` (\`id\`,\`profile_no\`,\`lure_id\`)
) ${TABLE_OPTIONS}`,
  `CREATE TABLE \`nests\` (
  ${laterAlarmColumns('DEFAULT NULL')},
  \`pokemon_id\` int(11) NOT NULL,
  \`min_spawn_avg\` int(11) NOT NULL,
  \`form\` int(11) NOT NULL,
  ${OVERRIDES},
  PRIMARY KEY (\`uid\`)
) ${TABLE_OPTIONS}`,
  `CREATE TABLE \`gym\` (
  ${laterAlarmColumns('NOT NULL')},
  \`team\` int(11) NOT NULL,
  \`slot_changes\` tinyint(1) NOT NULL,
  \`gym_id\` varchar(255) DEFAULT NULL,
  \`battle_changes\` tinyint(1) NOT NULL DEFAULT 0,
  ${OVERRIDES},
  PRIMARY KEY (\`uid\`)
) ${TABLE_OPTIONS}`,
  `CREATE TABLE \`forts\` (
  \`uid\` int(10) unsigned NOT NULL AUTO_INCREMENT,
  \`id\` varchar(255) NOT NULL,
  \`profile_no\` int(11) NOT NULL DEFAULT 1,
  \`ping\` varchar(255) NOT NULL,
  \`distance\` int(11) NOT NULL,
  \`template\` text NOT NULL,
  \`fort_type\` varchar(255) NOT NULL DEFAULT 'everything',
  \`include_empty\` tinyint(1) NOT NULL DEFAULT 1,
  \`change_types\` varchar(255) NOT NULL DEFAULT '[]',
  ${OVERRIDES},
  PRIMARY KEY (\`uid\`)
) ${TABLE_OPTIONS}`,
  `CREATE TABLE \`weather\` (
  \`id\` varchar(255) NOT NULL,
  \`ping\` text NOT NULL,
  \`template\` int(11) NOT NULL,
  \`clean\` tinyint(1) NOT NULL DEFAULT 0,
  \`condition\` int(11) NOT NULL,
  \`cell\` varchar(255) NOT NULL,
  \`uid\` int(10) unsigned NOT NULL AUTO_INCREMENT,
  \`profile_no\` int(11) NOT NULL DEFAULT 1,
  PRIMARY KEY (\`uid\`),
  UNIQUE KEY \`weather_tracking\` (\`id\`,\`profile_no\`,\`condition\`,\`cell\`)
) ${TABLE_OPTIONS}`,
  `CREATE TABLE \`maxbattle\` (
  \`uid\` int(10) unsigned NOT NULL AUTO_INCREMENT,
  \`id\` varchar(255) NOT NULL,
  \`profile_no\` int(11) NOT NULL DEFAULT 1,
  \`pokemon_id\` int(11) NOT NULL DEFAULT 9000,
  \`gmax\` tinyint(1) NOT NULL DEFAULT 0,
  \`level\` int(11) NOT NULL DEFAULT 9000,
  \`form\` int(11) NOT NULL DEFAULT 0,
  \`move\` int(11) NOT NULL DEFAULT 9000,
  \`evolution\` int(11) NOT NULL DEFAULT 9000,
  \`distance\` int(11) NOT NULL DEFAULT 0,
  \`station_id\` varchar(255) DEFAULT NULL,
  \`ping\` text NOT NULL,
  \`clean\` tinyint(1) NOT NULL DEFAULT 0,
  \`template\` text NOT NULL,
  ${OVERRIDES},
  PRIMARY KEY (\`uid\`)
) ${TABLE_OPTIONS}`,
  `CREATE TABLE \`summary_schedules\` (
  \`id\` varchar(64) NOT NULL,
  \`alert_type\` varchar(32) NOT NULL,
  \`active_hours\` varchar(4096) NOT NULL DEFAULT '[]',
  PRIMARY KEY (\`id\`,\`alert_type\`)
) ${TABLE_OPTIONS}`
]

/** golang-migrate's own table, as its MySQL driver creates it. */
const NG_BOOKKEEPING = [
  'CREATE TABLE `schema_migrations` (`version` bigint(20) NOT NULL, `dirty` tinyint(1) NOT NULL, PRIMARY KEY (`version`)) ' + TABLE_OPTIONS,
  'INSERT INTO `schema_migrations` (`version`, `dirty`) VALUES (5, 0)'
]

/** The knex migration files of PoracleJS 4.8 up to `v18_fort.js` (the probe's markers are the last three). */
export const JS_MIGRATION_NAMES = [
  'base.js', 'v00_altertemplatetype.js', 'v01_userlanguage.js', 'v02_profileslures.js', 'v02a_admindisable.js',
  'v02a_luretemplatetype.js', 'v02a_removeunique.js', 'v03_rarity.js', 'v04_communities.js',
  'v05_better_monster_index.js', 'v06_nests.js', 'v06a_nesttemplatetype.js', 'v07_questform.js',
  'v07a_quest_removeunique.js', 'v08_gyms.js', 'v09_littlecup.js', 'v09_pvp2.js', 'v10_commandsecurity.js',
  'v11_removeraideggunique.js', 'v11a_specificraid.js', 'v11b_specificegg.js', 'v12_removeoldpvp.js',
  'v13_addbattlechanges.js', 'v14_better2_monster_index.js', 'v15_cap_filtering.js',
  'v16_extendprofileactivehours.js', 'v17_size.js', 'v18_fort.js'
]

/** knex's tables, as PoracleJS names them (`migrations`, not `knex_migrations`). */
const JS_BOOKKEEPING = [
  'CREATE TABLE `migrations` (`id` int(10) unsigned NOT NULL AUTO_INCREMENT, `name` varchar(255) DEFAULT NULL, `batch` int(11) DEFAULT NULL, `migration_time` timestamp NULL DEFAULT NULL, PRIMARY KEY (`id`)) ' + TABLE_OPTIONS,
  'CREATE TABLE `migrations_lock` (`index` int(10) unsigned NOT NULL AUTO_INCREMENT, `is_locked` int(11) DEFAULT NULL, PRIMARY KEY (`index`)) ' + TABLE_OPTIONS,
  'INSERT INTO `migrations_lock` (`is_locked`) VALUES (0)',
  'INSERT INTO `migrations` (`name`, `batch`, `migration_time`) VALUES ' + JS_MIGRATION_NAMES.map((n) => `('${n}', 1, current_timestamp())`).join(', ')
]

export interface EngineSchemaOptions {
  /**
   * Which engine's migration bookkeeping to leave: 'ng' (default) writes `schema_migrations` at
   * version 5; 'js' writes knex's `migrations` instead, as a PoracleJS database has it. The tables
   * stay NG's in both cases so the alarm-engine fake can serve either generation from them.
   */
  generation?: 'ng' | 'js'
}

/** Creates the engine's tables in the runner's current database (which must be empty). */
export async function createEngineSchema (runner: SqlRunner, options: EngineSchemaOptions = {}): Promise<void> {
  const bookkeeping = options.generation === 'js' ? JS_BOOKKEEPING : NG_BOOKKEEPING
  for (const statement of [...DDL, ...bookkeeping]) await runner.query(statement)
}

/** The engine's tracking table of each API alarm type: the service's own map. */
export { ALARM_TABLES }
export type EngineAlarmType = keyof typeof ALARM_TABLES

/** Every table a profile copy or delete touches (weather has no API but belongs to profiles too). */
export const PROFILE_TABLES = [...Object.values(ALARM_TABLES), 'weather'] as const

/**
 * What the engine's API stores for fields a request leaves out (alarm-engine.md 1.4, NG values), with
 * `template` and `ping` filled as the API does. Seeding through `insertAlarm` uses the same values.
 */
export const ALARM_DEFAULTS: Record<EngineAlarmType, Record<string, unknown>> = {
  pokemon: {
    pokemon_id: 0,
    form: 0,
    distance: 0,
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
    clean: 0,
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
    pvp_ranking_evolution: 0
  },
  raid: { pokemon_id: 9000, level: 9000, form: 0, team: 4, exclusive: 0, move: 9000, evolution: 9000, gym_id: null, rsvp_changes: 0, clean: 0, distance: 0 },
  egg: { level: 1, team: 4, exclusive: 0, gym_id: null, rsvp_changes: 0, clean: 0, distance: 0 },
  quest: { reward_type: 2, reward: 0, amount: 0, form: 0, shiny: 0, clean: 0, distance: 0 },
  invasion: { grunt_type: 'mixed', gender: 0, clean: 0, distance: 0 },
  lure: { lure_id: 0, clean: 0, distance: 0 },
  nest: { pokemon_id: 0, min_spawn_avg: 0, form: 0, clean: 0, distance: 0 },
  gym: { team: 4, slot_changes: 0, battle_changes: 0, gym_id: null, clean: 0, distance: 0 },
  fort: { fort_type: 'everything', include_empty: 0, change_types: '[]', distance: 0 },
  maxbattle: { pokemon_id: 9000, level: 9000, form: 0, move: 9000, gmax: 0, evolution: 9000, station_id: null, clean: 0, distance: 0 }
}

async function insertRow (runner: SqlRunner, table: string, row: Record<string, unknown>): Promise<number> {
  const columns = Object.keys(row)
  const result = await runner.query<{ insertId: number | bigint }>(
    `INSERT INTO \`${table}\` (${columns.map((c) => `\`${c}\``).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
    columns.map((c) => row[c])
  )
  return Number(result.insertId)
}

export interface SeedHuman {
  id: string
  type?: string
  name?: string
  enabled?: boolean
  area?: string[]
  latitude?: number
  longitude?: number
  language?: string | null
  adminDisable?: boolean
  currentProfileNo?: number
  communityMembership?: string[]
  areaRestriction?: string[] | null
  notes?: string
  /** Name of profile 1, created with the human as the bots do; `null` skips it (a PoracleJS-registered user). */
  profileName?: string | null
}

/** Registers a human like the bots do: the `humans` row plus profile 1 with the same area and location. */
export async function insertHuman (runner: SqlRunner, human: SeedHuman): Promise<void> {
  const area = JSON.stringify((human.area ?? []).map((a) => a.toLowerCase()))
  await insertRow(runner, 'humans', {
    id: human.id,
    type: human.type ?? 'discord:user',
    name: human.name ?? `user ${human.id}`,
    enabled: human.enabled === false ? 0 : 1,
    area,
    latitude: human.latitude ?? 0,
    longitude: human.longitude ?? 0,
    language: human.language ?? null,
    admin_disable: human.adminDisable === true ? 1 : 0,
    current_profile_no: human.currentProfileNo ?? 1,
    community_membership: JSON.stringify(human.communityMembership ?? []),
    area_restriction: human.areaRestriction == null ? null : JSON.stringify(human.areaRestriction),
    notes: human.notes ?? ''
  })
  if (human.profileName === null) return
  await insertProfile(runner, {
    id: human.id,
    profileNo: 1,
    name: human.profileName ?? 'Default',
    area: human.area ?? [],
    latitude: human.latitude ?? 0,
    longitude: human.longitude ?? 0
  })
}

export interface SeedProfile {
  id: string
  profileNo: number
  name?: string
  area?: string[]
  latitude?: number
  longitude?: number
  /** Stored as JSON text. */
  activeHours?: unknown
}

export async function insertProfile (runner: SqlRunner, profile: SeedProfile): Promise<number> {
  return insertRow(runner, 'profiles', {
    id: profile.id,
    profile_no: profile.profileNo,
    name: profile.name ?? `Profile ${profile.profileNo}`,
    area: JSON.stringify((profile.area ?? []).map((a) => a.toLowerCase())),
    latitude: profile.latitude ?? 0,
    longitude: profile.longitude ?? 0,
    active_hours: JSON.stringify(profile.activeHours ?? [])
  })
}

/**
 * Writes one alarm row straight into its table, filling every column the API would (many have no DB
 * default). `row` uses the engine's column names and must hold `id`; the new uid is returned.
 */
export async function insertAlarm (runner: SqlRunner, type: EngineAlarmType, row: Record<string, unknown> & { id: string }): Promise<number> {
  return insertRow(runner, ALARM_TABLES[type], { ping: '', template: '1', profile_no: 1, ...ALARM_DEFAULTS[type], ...row })
}
