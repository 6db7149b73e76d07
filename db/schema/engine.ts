import { sql } from 'drizzle-orm'
import {
  bigint, boolean, datetime, float, index, int, mysqlTable, primaryKey, text, timestamp, tinyint, uniqueIndex, varchar
} from 'drizzle-orm/mysql-core'

/**
 * The alarm engine's database as PoracleNG 5.1 leaves it (golang-migrate version 5: the initial
 * schema, `maxbattle`, `summary_schedules`, the per-rule override columns and
 * `monsters.pvp_ranking_evolution`). The engine owns and migrates this schema; the service never does.
 * Only the direct operations the spec allows touch it. Foreign keys are absent because NG drops them.
 * Column names are the engine's; property names are their camelCase forms.
 */

const uid = () => int('uid', { unsigned: true }).autoincrement().notNull()
const humanId = () => varchar('id', { length: 255 }).notNull()
const profileNo = () => int('profile_no').notNull().default(1)
/** Latitude and longitude are float(14,10): values carry float noise (51.0999984741). */
const coordinate = (name: string) => float(name, { precision: 14, scale: 10 }).notNull().default(0)
const clean = () => tinyint('clean').notNull().default(0)
/** Every tracking table's key: its own uid, the owning human and the profile the rule belongs to. */
const trackingKeys = () => ({ uid: uid().primaryKey(), id: humanId(), profileNo: profileNo() })
/** Added by NG migration 4 to every alarm table: a saved-place label and a JSON text array of areas. */
const overrides = () => ({
  overrideLocationLabel: varchar('override_location_label', { length: 64 }),
  overrideAreas: text('override_areas')
})

export const humans = mysqlTable('humans', {
  id: varchar('id', { length: 255 }).primaryKey(),
  /** discord:user, discord:channel, webhook, telegram:user, telegram:channel, telegram:group */
  type: varchar('type', { length: 255 }).notNull(),
  name: varchar('name', { length: 255 }).notNull(),
  enabled: tinyint('enabled').notNull().default(1),
  /** JSON text array of lower-case area names; no DB default. */
  area: text('area').notNull(),
  latitude: coordinate('latitude'),
  longitude: coordinate('longitude'),
  fails: int('fails').notNull().default(0),
  lastChecked: datetime('last_checked', { mode: 'string' }).notNull().default(sql`current_timestamp()`),
  language: varchar('language', { length: 255 }),
  adminDisable: tinyint('admin_disable').notNull().default(0),
  disabledDate: datetime('disabled_date', { mode: 'string' }),
  currentProfileNo: int('current_profile_no').notNull().default(1),
  /** JSON text array; no DB default, the bots write '[]'. */
  communityMembership: text('community_membership').notNull(),
  areaRestriction: text('area_restriction'),
  notes: varchar('notes', { length: 255 }).notNull().default(''),
  blockedAlerts: varchar('blocked_alerts', { length: 255 })
})

export const profiles = mysqlTable('profiles', {
  uid: uid().primaryKey(),
  id: humanId(),
  profileNo: profileNo(),
  name: varchar('name', { length: 255 }).notNull(),
  area: text('area').notNull(),
  latitude: coordinate('latitude'),
  longitude: coordinate('longitude'),
  /** JSON text: [{ day: 1-7, hours, mins }, ...]. */
  activeHours: varchar('active_hours', { length: 4096 }).notNull().default('[]')
}, (t) => [uniqueIndex('profile_unique').on(t.id, t.profileNo)])

/** Many monsters columns have no DB default: a direct insert must give every one of them. */
export const monsters = mysqlTable('monsters', {
  ...trackingKeys(),
  ping: text('ping').notNull(),
  clean: clean(),
  pokemonId: int('pokemon_id').notNull(),
  distance: int('distance').notNull(),
  minIv: int('min_iv').notNull(),
  maxIv: int('max_iv').notNull(),
  minCp: int('min_cp').notNull(),
  maxCp: int('max_cp').notNull(),
  minLevel: int('min_level').notNull(),
  maxLevel: int('max_level').notNull(),
  atk: int('atk').notNull(),
  def: int('def').notNull(),
  sta: int('sta').notNull(),
  template: text('template'),
  minWeight: int('min_weight').notNull(),
  maxWeight: int('max_weight').notNull(),
  form: int('form').notNull(),
  maxAtk: int('max_atk').notNull(),
  maxDef: int('max_def').notNull(),
  maxSta: int('max_sta').notNull(),
  gender: int('gender').notNull(),
  minTime: int('min_time').notNull().default(0),
  rarity: int('rarity').notNull().default(-1),
  maxRarity: int('max_rarity').notNull().default(6),
  pvpRankingWorst: int('pvp_ranking_worst').notNull().default(4096),
  pvpRankingBest: int('pvp_ranking_best').notNull().default(1),
  pvpRankingMinCp: int('pvp_ranking_min_cp').notNull().default(1),
  pvpRankingLeague: int('pvp_ranking_league').notNull().default(0),
  pvpRankingCap: int('pvp_ranking_cap').notNull().default(0),
  size: int('size').notNull().default(-1),
  maxSize: int('max_size').notNull().default(5),
  ...overrides(),
  pvpRankingEvolution: tinyint('pvp_ranking_evolution').notNull().default(0)
}, (t) => [
  index('monsters_pvp_ranking_league_pokemon_id_min_iv_index').on(t.pvpRankingLeague, t.pokemonId, t.minIv),
  index('monsters_pvp_ranking_league_pokemon_id_pvp_ranking_worst_index').on(t.pvpRankingLeague, t.pokemonId, t.pvpRankingWorst)
])

export const raid = mysqlTable('raid', {
  ...trackingKeys(),
  ping: text('ping').notNull(),
  clean: clean(),
  pokemonId: int('pokemon_id').notNull(),
  exclusive: tinyint('exclusive').default(0),
  template: text('template'),
  distance: int('distance').notNull(),
  team: int('team').notNull(),
  level: int('level').notNull(),
  form: int('form').notNull(),
  move: int('move').notNull().default(9000),
  evolution: int('evolution').notNull().default(9000),
  gymId: varchar('gym_id', { length: 255 }),
  /** 0 without RSVP changes, 1 including them, 2 only them. */
  rsvpChanges: tinyint('rsvp_changes').notNull().default(0),
  ...overrides()
})

export const egg = mysqlTable('egg', {
  ...trackingKeys(),
  ping: text('ping').notNull(),
  clean: clean(),
  exclusive: tinyint('exclusive').default(0),
  template: text('template'),
  distance: int('distance').notNull(),
  team: int('team').notNull(),
  level: int('level').notNull(),
  gymId: varchar('gym_id', { length: 255 }),
  rsvpChanges: tinyint('rsvp_changes').notNull().default(0),
  ...overrides()
})

export const quest = mysqlTable('quest', {
  ...trackingKeys(),
  ping: text('ping').notNull(),
  clean: clean(),
  reward: int('reward').notNull(),
  template: text('template'),
  shiny: tinyint('shiny').default(0),
  rewardType: int('reward_type').notNull(),
  distance: int('distance').notNull(),
  form: int('form').notNull().default(0),
  amount: int('amount').notNull().default(0),
  ...overrides()
})

export const invasion = mysqlTable('invasion', {
  ...trackingKeys(),
  ping: varchar('ping', { length: 255 }).notNull(),
  clean: clean(),
  distance: int('distance').notNull(),
  template: text('template'),
  gender: int('gender').notNull(),
  gruntType: varchar('grunt_type', { length: 255 }).notNull(),
  ...overrides()
}, (t) => [uniqueIndex('invasion_tracking').on(t.id, t.profileNo, t.gender, t.gruntType)])

export const lures = mysqlTable('lures', {
  ...trackingKeys(),
  ping: varchar('ping', { length: 255 }).notNull(),
  clean: clean(),
  distance: int('distance').notNull(),
  template: text('template'),
  lureId: int('lure_id').notNull(),
  ...overrides()
}, (t) => [uniqueIndex('lure_tracking').on(t.id, t.profileNo, t.lureId)])

export const nests = mysqlTable('nests', {
  ...trackingKeys(),
  ping: varchar('ping', { length: 255 }).notNull(),
  clean: clean(),
  distance: int('distance').notNull(),
  template: text('template'),
  pokemonId: int('pokemon_id').notNull(),
  minSpawnAvg: int('min_spawn_avg').notNull(),
  form: int('form').notNull(),
  ...overrides()
})

export const gym = mysqlTable('gym', {
  ...trackingKeys(),
  ping: varchar('ping', { length: 255 }).notNull(),
  clean: clean(),
  distance: int('distance').notNull(),
  template: text('template').notNull(),
  team: int('team').notNull(),
  slotChanges: tinyint('slot_changes').notNull(),
  gymId: varchar('gym_id', { length: 255 }),
  battleChanges: tinyint('battle_changes').notNull().default(0),
  ...overrides()
})

/** Fort changes. There is no `clean` column. */
export const forts = mysqlTable('forts', {
  ...trackingKeys(),
  ping: varchar('ping', { length: 255 }).notNull(),
  distance: int('distance').notNull(),
  template: text('template').notNull(),
  /** pokestop, gym or everything */
  fortType: varchar('fort_type', { length: 255 }).notNull().default('everything'),
  includeEmpty: tinyint('include_empty').notNull().default(1),
  /** JSON text array, e.g. ["name","location","image_url","removal","new"]. */
  changeTypes: varchar('change_types', { length: 255 }).notNull().default('[]'),
  ...overrides()
})

export const maxbattle = mysqlTable('maxbattle', {
  ...trackingKeys(),
  pokemonId: int('pokemon_id').notNull().default(9000),
  gmax: tinyint('gmax').notNull().default(0),
  level: int('level').notNull().default(9000),
  form: int('form').notNull().default(0),
  move: int('move').notNull().default(9000),
  evolution: int('evolution').notNull().default(9000),
  distance: int('distance').notNull().default(0),
  stationId: varchar('station_id', { length: 255 }),
  ping: text('ping').notNull(),
  clean: clean(),
  template: text('template').notNull(),
  ...overrides()
})

/** Weather changes: no API in either engine, but profile copies include it. */
export const weather = mysqlTable('weather', {
  id: humanId(),
  ping: text('ping').notNull(),
  template: int('template').notNull(),
  clean: clean(),
  condition: int('condition').notNull(),
  cell: varchar('cell', { length: 255 }).notNull(),
  uid: uid().primaryKey(),
  profileNo: profileNo()
}, (t) => [uniqueIndex('weather_tracking').on(t.id, t.profileNo, t.condition, t.cell)])

/** Quest summary schedules (NG). `active_hours` is JSON text. */
export const summarySchedules = mysqlTable('summary_schedules', {
  id: varchar('id', { length: 64 }).notNull(),
  alertType: varchar('alert_type', { length: 32 }).notNull(),
  activeHours: varchar('active_hours', { length: 4096 }).notNull().default('[]')
}, (t) => [primaryKey({ columns: [t.id, t.alertType] })])

/** golang-migrate bookkeeping of PoracleNG: a single row; its version is the capability probe. */
export const schemaMigrations = mysqlTable('schema_migrations', {
  version: bigint('version', { mode: 'number' }).primaryKey(),
  dirty: boolean('dirty').notNull()
})

/** knex bookkeeping of PoracleJS (not `knex_migrations`): one row per applied migration file. */
export const migrations = mysqlTable('migrations', {
  id: int('id', { unsigned: true }).autoincrement().primaryKey(),
  name: varchar('name', { length: 255 }),
  batch: int('batch'),
  migrationTime: timestamp('migration_time', { mode: 'string' })
})

/** The alarm tables by the engine's API type name (`/api/tracking/{type}`). */
export const alarmTables = {
  pokemon: monsters,
  raid,
  egg,
  quest,
  invasion,
  lure: lures,
  nest: nests,
  gym,
  fort: forts,
  maxbattle
} as const
