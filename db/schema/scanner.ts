import { bigint, double, int, mysqlTable, smallint, tinyint, varchar } from 'drizzle-orm/mysql-core'

/**
 * The scanner's (Golbat's) tables, only the columns the service reads. Owned by the scanner and never
 * migrated here; the service connects read-only.
 */
export const gym = mysqlTable('gym', {
  id: varchar('id', { length: 35 }).primaryKey(),
  name: varchar('name', { length: 128 }),
  url: varchar('url', { length: 200 }),
  lat: double('lat').notNull(),
  lon: double('lon').notNull(),
  teamId: tinyint('team_id', { unsigned: true }),
  raidLevel: tinyint('raid_level', { unsigned: true }),
  raidPokemonId: smallint('raid_pokemon_id', { unsigned: true }),
  raidPokemonForm: smallint('raid_pokemon_form', { unsigned: true }),
  /** Unix seconds. */
  raidEndTimestamp: int('raid_end_timestamp', { unsigned: true })
})

export const pokestop = mysqlTable('pokestop', {
  id: varchar('id', { length: 35 }).primaryKey(),
  name: varchar('name', { length: 128 }),
  lat: double('lat').notNull(),
  lon: double('lon').notNull(),
  questType: int('quest_type', { unsigned: true }),
  questTarget: smallint('quest_target', { unsigned: true }),
  questRewardType: smallint('quest_reward_type', { unsigned: true }),
  questItemId: smallint('quest_item_id', { unsigned: true }),
  questPokemonId: smallint('quest_pokemon_id', { unsigned: true })
})

export const station = mysqlTable('station', {
  id: varchar('id', { length: 35 }).primaryKey(),
  battlePokemonId: smallint('battle_pokemon_id', { unsigned: true })
})

/** One row per S2 level-10 cell; `id` is the cell id as a signed 64-bit integer (Go's int64). */
export const weather = mysqlTable('weather', {
  id: bigint('id', { mode: 'bigint' }).primaryKey(),
  level: tinyint('level', { unsigned: true }),
  latitude: double('latitude').notNull(),
  longitude: double('longitude').notNull(),
  gameplayCondition: tinyint('gameplay_condition', { unsigned: true }),
  windDirection: int('wind_direction'),
  cloudLevel: tinyint('cloud_level', { unsigned: true }),
  rainLevel: tinyint('rain_level', { unsigned: true }),
  windLevel: tinyint('wind_level', { unsigned: true }),
  snowLevel: tinyint('snow_level', { unsigned: true }),
  fogLevel: tinyint('fog_level', { unsigned: true }),
  severity: tinyint('severity', { unsigned: true }),
  warnWeather: tinyint('warn_weather', { unsigned: true }),
  /** Unix seconds. */
  updated: int('updated', { unsigned: true }).notNull()
})
