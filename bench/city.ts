import type { Connection } from 'mariadb'
import type { LatLon } from '../lib/polygon.js'

/** The bench city: 20 × 10 fences of about 2 × 2.8 km (bench:estimates, bench:explain). */
export const CITY = { lat: 51.0, lon: 6.8, rows: 10, cols: 20, dLat: 0.02, dLon: 0.04 }

/** A star-shaped ring of 16 points inside a grid cell: concave like real fences, never self-crossing. */
export function fence (row: number, col: number): LatLon[] {
  const cLat = CITY.lat + (row + 0.5) * CITY.dLat
  const cLon = CITY.lon + (col + 0.5) * CITY.dLon
  return Array.from({ length: 16 }, (_, i) => {
    const angle = (i / 16) * 2 * Math.PI
    const r = i % 2 === 0 ? 0.5 : 0.42
    return [cLat + Math.sin(angle) * r * CITY.dLat, cLon + Math.cos(angle) * r * CITY.dLon] as LatLon
  })
}

/** The city's live scanner tables: 400,000 pokemon and 20,000 gyms and stops with raids, quests, lures and invasions. */
export const POKEMON = 400_000
export const FORTS = 20_000
/** Species are skewed: a few common, many rare. */
export const SPECIES = 1000

/**
 * Fills Golbat's live tables of the bench city (test/fixtures/golbat-schema.ts) by INSERT … SELECT over
 * MariaDB's sequence tables; `nowS` is the moment the data describes (pokemon first seen in the hour before it).
 */
export async function generateLiveTables (c: Connection, nowS: number): Promise<void> {
  await c.query('SET SESSION unique_checks = 0')
  // Pokemon: spawn positions anywhere in the city, species skewed (a few common, many rare), 70 % encountered.
  await c.query(`INSERT INTO pokemon (id, lat, lon, pokemon_id, form, atk_iv, def_iv, sta_iv, iv, cp, level, gender, size, weight,
      first_seen_timestamp, expire_timestamp, expire_timestamp_verified, updated, pvp)
    SELECT CONCAT('p', seq), lat, lon, species, 0, a, d, s, IF(a IS NULL, NULL, ROUND((a + d + s) * 100 / 45, 2)),
      IF(a IS NULL, NULL, 10 + FLOOR(r1 * 3000)), IF(a IS NULL, NULL, 1 + FLOOR(r2 * 35)), 1 + FLOOR(r3 * 2), IF(a IS NULL, NULL, 1 + FLOOR(r4 * 5)),
      IF(a IS NULL, NULL, r1 * 100), ? - FLOOR(r5 * 3500), ? + FLOOR(r6 * 1800), 1, ?,
      IF(a IS NOT NULL AND r2 < 0.3, CONCAT('{"great":[{"pokemon":', species, ',"form":0,"cap":50,"value":1,"level":20,"cp":', 1300 + FLOOR(r3 * 200), ',"percentage":0.9,"rank":', 1 + FLOOR(r4 * 4096), ',"capped":false}]}'), NULL)
    FROM (SELECT seq, ? + RAND() * ? AS lat, ? + RAND() * ? AS lon, 1 + FLOOR(POW(RAND(), 3) * ?) AS species,
            IF(RAND() < 0.7, FLOOR(RAND() * 16), NULL) AS a, FLOOR(RAND() * 16) AS d, FLOOR(RAND() * 16) AS s,
            RAND() AS r1, RAND() AS r2, RAND() AS r3, RAND() AS r4, RAND() AS r5, RAND() AS r6
          FROM seq_1_to_${POKEMON}) g`,
  [nowS, nowS, nowS, CITY.lat, CITY.rows * CITY.dLat, CITY.lon, CITY.cols * CITY.dLon, SPECIES])
  // Gyms and stops with raids, quests, lures and invasions.
  await c.query(`INSERT INTO gym (id, lat, lon, updated, first_seen_timestamp, team_id, raid_level, raid_pokemon_id, raid_pokemon_form, raid_end_timestamp)
    SELECT CONCAT('g', seq), ? + RAND() * ?, ? + RAND() * ?, ?, ?, FLOOR(RAND() * 4), 1 + FLOOR(RAND() * 5), IF(RAND() < 0.7, 1 + FLOOR(RAND() * 900), NULL), 0, ? - 3600 + FLOOR(RAND() * 7200)
    FROM seq_1_to_${FORTS}`, [CITY.lat, CITY.rows * CITY.dLat, CITY.lon, CITY.cols * CITY.dLon, nowS, nowS, nowS])
  await c.query(`INSERT INTO pokestop (id, lat, lon, updated, first_seen_timestamp, quest_type, quest_reward_type, quest_item_id, quest_pokemon_id, quest_reward_amount, quest_expiry, lure_id, lure_expire_timestamp)
    SELECT CONCAT('s', seq), ? + RAND() * ?, ? + RAND() * ?, ?, ?, 1, rt, IF(rt = 2, 1 + FLOOR(RAND() * 1500), NULL), IF(rt = 7, 1 + FLOOR(RAND() * 900), NULL), 1 + FLOOR(RAND() * 2000), ? + 43200,
      IF(RAND() < 0.05, 501 + FLOOR(RAND() * 6), 0), IF(RAND() < 0.05, ? + 900, NULL)
    FROM (SELECT seq, ELT(1 + FLOOR(RAND() * 3), 2, 3, 7) AS rt FROM seq_1_to_${FORTS}) g`,
  [CITY.lat, CITY.rows * CITY.dLat, CITY.lon, CITY.cols * CITY.dLon, nowS, nowS, nowS, nowS])
  await c.query(`INSERT INTO incident (id, pokestop_id, start, expiration, display_type, style, \`character\`, updated)
    SELECT CONCAT('i', seq), CONCAT('s', seq * 10), ?, ? + 1200, 1, 0, 4 + FLOOR(RAND() * 46), ? FROM seq_1_to_${FORTS / 10}`, [nowS, nowS, nowS])
}
