import { randomBytes } from 'node:crypto'
import t from 'tap'
import type { Connection } from 'mariadb'
import { rootConnection } from '../helper.js'

/** Golbat's power spots, with the columns the service reads (also added to the full Golbat schema where a test needs them). */
export const STATION_TABLE = `CREATE TABLE station (
    id varchar(35) NOT NULL PRIMARY KEY,
    lat double(18,14) NOT NULL DEFAULT 0,
    lon double(18,14) NOT NULL DEFAULT 0,
    name varchar(128) DEFAULT NULL,
    battle_pokemon_id smallint(5) unsigned DEFAULT NULL
  )`

/**
 * The scanner's (Golbat's) tables with the columns the service reads, as Golbat declares them, created
 * in a database of their own like a real scanner database beside the service's.
 */
export const SCANNER_SCHEMA = [
  `CREATE TABLE gym (
    id varchar(35) NOT NULL PRIMARY KEY,
    lat double(18,14) NOT NULL,
    lon double(18,14) NOT NULL,
    name varchar(128) DEFAULT NULL,
    url varchar(200) DEFAULT NULL,
    team_id tinyint(3) unsigned DEFAULT NULL,
    raid_end_timestamp int(10) unsigned DEFAULT NULL,
    raid_level tinyint(3) unsigned DEFAULT NULL,
    raid_pokemon_id smallint(5) unsigned DEFAULT NULL,
    raid_pokemon_form smallint(5) unsigned DEFAULT NULL,
    updated int(10) unsigned NOT NULL DEFAULT 0,
    KEY ix_raid_end_timestamp (raid_end_timestamp)
  )`,
  `CREATE TABLE pokestop (
    id varchar(35) NOT NULL PRIMARY KEY,
    lat double(18,14) NOT NULL,
    lon double(18,14) NOT NULL,
    name varchar(128) DEFAULT NULL,
    quest_type int(10) unsigned DEFAULT NULL,
    quest_target smallint(5) unsigned DEFAULT NULL,
    quest_reward_type smallint(5) unsigned DEFAULT NULL,
    quest_item_id smallint(5) unsigned DEFAULT NULL,
    quest_pokemon_id smallint(5) unsigned DEFAULT NULL,
    updated int(10) unsigned NOT NULL DEFAULT 0
  )`,
  STATION_TABLE,
  `CREATE TABLE weather (
    id bigint(20) NOT NULL PRIMARY KEY,
    level tinyint(3) unsigned DEFAULT NULL,
    latitude double(18,14) NOT NULL DEFAULT 0,
    longitude double(18,14) NOT NULL DEFAULT 0,
    gameplay_condition tinyint(3) unsigned DEFAULT NULL,
    wind_direction mediumint(8) DEFAULT NULL,
    cloud_level tinyint(3) unsigned DEFAULT NULL,
    rain_level tinyint(3) unsigned DEFAULT NULL,
    wind_level tinyint(3) unsigned DEFAULT NULL,
    snow_level tinyint(3) unsigned DEFAULT NULL,
    fog_level tinyint(3) unsigned DEFAULT NULL,
    special_effect_level tinyint(3) unsigned DEFAULT NULL,
    severity tinyint(3) unsigned DEFAULT NULL,
    warn_weather tinyint(3) unsigned DEFAULT NULL,
    updated int(10) unsigned NOT NULL
  )`
]

export async function createScannerSchema (connection: Connection): Promise<void> {
  for (const statement of SCANNER_SCHEMA) await connection.query(statement)
}

let created: Promise<string> | undefined
/**
 * One scanner database per test file (dropped when the file ends), beside the service and engine
 * databases, with Golbat's tables; its name for `SCANNER_DB_NAME`.
 */
export async function scannerDatabase (): Promise<string> {
  created ??= (async () => {
    const name = `aw_test_scan_${process.pid}_${randomBytes(3).toString('hex')}`
    const c = await rootConnection()
    await c.query(`CREATE DATABASE \`${name}\``)
    await c.query(`USE \`${name}\``)
    await createScannerSchema(c)
    await c.end()
    t.teardown(async () => {
      const drop = await rootConnection()
      await drop.query(`DROP DATABASE IF EXISTS \`${name}\``)
      await drop.end()
    })
    return name
  })()
  return await created
}
