import t from 'tap'
import type { Connection } from 'mariadb'
import { build, bearer, rootConnection, seedHuman, type Test, type TestApp } from './helper.js'
import { golbatDatabase } from './fakes/golbat-db.js'
import { ALARM_DEFAULTS, insertAlarm } from './fakes/engine-db.js'

/**
 * Alarm estimates against a scanner database with Golbat's own schema: every figure is compared with a
 * count this file makes itself from the rows it inserted (its own rectangle test for the fence, its own
 * distance formula, its own reading of the filters), for a spread of filters.
 */

const USER = '999999999999999999'
const NOW_S = Date.parse('2026-11-26T12:00:00Z') / 1000
const HOME = { lat: 51.1, lon: 7.1 }
/** Town is an axis-aligned rectangle, so "inside" needs no polygon code here. */
const TOWN = { minLat: 51, maxLat: 51.2, minLon: 7, maxLon: 7.2 }
const VILLAGE = { minLat: 48, maxLat: 49, minLon: 9, maxLon: 9.5 }
const rect = (r: typeof TOWN): Array<[number, number]> => [[r.minLat, r.minLon], [r.minLat, r.maxLon], [r.maxLat, r.maxLon], [r.maxLat, r.minLon]]

/** A deterministic generator, so a failing case can be replayed. */
function random (seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let x = Math.imul(a ^ (a >>> 15), 1 | a)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

interface Mon {
  id: string
  lat: number
  lon: number
  pokemonId: number
  form: number
  atk: number | null
  def: number | null
  sta: number | null
  cp: number | null
  level: number | null
  gender: number
  size: number | null
  weight: number | null
  firstSeen: number
  expire: number
  great: Array<{ rank: number, cp: number, cap: number, capped: boolean }> | null
}

function monsters (count: number, seed: number): Mon[] {
  const rnd = random(seed)
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1))
  const out: Mon[] = []
  for (let i = 0; i < count; i++) {
    const village = rnd() < 0.15
    const encountered = rnd() < 0.7
    const near = !village && rnd() < 0.15
    const lat = village ? 48.05 + rnd() * 0.9 : near ? HOME.lat - 0.02 + rnd() * 0.04 : 50.9 + rnd() * 0.4
    const lon = village ? 9.05 + rnd() * 0.4 : near ? HOME.lon - 0.02 + rnd() * 0.04 : 6.9 + rnd() * 0.4
    // Some perfect and some lopsided stats, so IV and stat filters have something to find.
    const shape = rnd()
    const stat = (perfect: number, lopsided: number) => (shape < 0.08 ? perfect : shape < 0.16 ? lopsided : int(0, 15))
    const pokemonId = [1, 25, 25, 150, 133][int(0, 4)] as number
    const firstSeen = NOW_S - int(60, 2 * 3600)
    out.push({
      id: `m${seed}-${i}`,
      lat,
      lon,
      pokemonId,
      form: pokemonId === 25 && rnd() < 0.3 ? 598 : 0,
      atk: encountered ? stat(15, 15) : null,
      def: encountered ? stat(15, 12) : null,
      sta: encountered ? stat(15, 3) : null,
      cp: encountered ? int(10, 3000) : null,
      level: encountered ? int(1, 35) : null,
      gender: int(1, 2),
      size: encountered ? int(1, 5) : null,
      weight: encountered ? Math.round(rnd() * 1000) / 10 : null,
      firstSeen,
      expire: firstSeen + int(0, 1800),
      great: encountered && rnd() < 0.5 ? [{ rank: int(1, 200), cp: int(1300, 1500), cap: 50, capped: rnd() < 0.5 }] : null
    })
  }
  return out
}

async function insertMonsters (c: Connection, list: Mon[]): Promise<void> {
  for (let at = 0; at < list.length; at += 500) {
    const chunk = list.slice(at, at + 500)
    await c.batch(`INSERT INTO pokemon (id, lat, lon, pokemon_id, form, atk_iv, def_iv, sta_iv, iv, cp, level, gender, size, weight, first_seen_timestamp, expire_timestamp, expire_timestamp_verified, updated, pvp)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)`, chunk.map((m) => [
      m.id, m.lat, m.lon, m.pokemonId, m.form, m.atk, m.def, m.sta,
      m.atk === null ? null : Math.round(((m.atk + (m.def ?? 0) + (m.sta ?? 0)) * 10000) / 45) / 100,
      m.cp, m.level, m.gender, m.size, m.weight, m.firstSeen, m.expire, m.firstSeen,
      m.great === null ? null : JSON.stringify({ great: m.great.map((g) => ({ pokemon: m.pokemonId, form: 0, ...g, level: 20, percentage: 0.9 })) })
    ]))
  }
}

/* The test's own reading of a pokemon alarm (alarm-engine.md 1.4 defaults). */
type Filter = Record<string, number | string[]>
/** The engine's own defaults (the fake engine stores them as alarm-engine.md 1.4 says), not the service's. */
const DEFAULTS = ALARM_DEFAULTS.pokemon
function metres (lat1: number, lon1: number, lat2: number, lon2: number): number {
  const r = Math.PI / 180
  const a = Math.sin(((lat2 - lat1) * r) / 2) ** 2 + Math.cos(lat1 * r) * Math.cos(lat2 * r) * Math.sin(((lon2 - lon1) * r) / 2) ** 2
  return 12_742_000 * Math.asin(Math.sqrt(a))
}
const inRect = (r: typeof TOWN, m: Mon) => m.lat >= r.minLat && m.lat <= r.maxLat && m.lon >= r.minLon && m.lon <= r.maxLon

function expected (list: Mon[], filter: Filter, windowS = 3600): number {
  const f = (k: string) => (typeof filter[k] === 'number' ? filter[k] : DEFAULTS[k]) as number
  const areas = Array.isArray(filter.override_areas) ? filter.override_areas : ['town']
  return list.filter((m) => {
    if (m.firstSeen < NOW_S - windowS) return false
    if (f('pokemon_id') !== 0 && f('pokemon_id') !== m.pokemonId) return false
    if (f('form') !== 0 && f('form') !== m.form) return false
    const iv = m.atk === null ? -1 : ((m.atk + (m.def ?? 0) + (m.sta ?? 0)) / 45) * 100
    if (iv < f('min_iv') || iv > f('max_iv')) return false
    if ((m.cp ?? 0) < f('min_cp') || (m.cp ?? 0) > f('max_cp')) return false
    if ((m.level ?? 0) < f('min_level') || (m.level ?? 0) > f('max_level')) return false
    if ((m.atk ?? 0) < f('atk') || (m.atk ?? 0) > f('max_atk')) return false
    if ((m.def ?? 0) < f('def') || (m.def ?? 0) > f('max_def')) return false
    if ((m.sta ?? 0) < f('sta') || (m.sta ?? 0) > f('max_sta')) return false
    if (f('gender') !== 0 && f('gender') !== m.gender) return false
    if ((m.weight ?? 0) * 1000 < f('min_weight') || (m.weight ?? 0) * 1000 > f('max_weight')) return false
    if (f('size') !== -1 && ((m.size ?? 0) < f('size') || (m.size ?? 0) > f('max_size'))) return false
    if (f('min_time') > 0 && m.expire - m.firstSeen < f('min_time')) return false
    if (f('pvp_ranking_league') === 1500) {
      if (!(m.great ?? []).some((g) => g.rank >= f('pvp_ranking_best') && g.rank <= f('pvp_ranking_worst') && g.cp >= f('pvp_ranking_min_cp'))) return false
    }
    if (f('distance') > 0) return metres(HOME.lat, HOME.lon, m.lat, m.lon) <= f('distance')
    return areas.some((a) => (a === 'town' && inRect(TOWN, m)) || (a === 'village' && inRect(VILLAGE, m)))
  }).length
}

interface Setup extends TestApp { headers: { authorization: string }, scanner: Connection }

async function setup (t: Test, env: Record<string, string> = {}, withScanner = true): Promise<Setup> {
  const database = await golbatDatabase()
  const scanner = await rootConnection()
  await scanner.query(`USE \`${database}\``)
  t.teardown(() => scanner.end())
  for (const table of ['pokemon', 'gym', 'pokestop', 'incident', 'pokemon_stats', 'pokemon_iv_stats', 'pokemon_hundo_stats']) await scanner.query(`DELETE FROM ${table}`)
  const s = await build(t, {
    env: {
      ...(withScanner ? { SCANNER_DB_HOST: '127.0.0.1', SCANNER_DB_USER: 'root', SCANNER_DB_NAME: database } : {}),
      ...env
    }
  })
  // The fences come from the engine's own geofence file (no Koji), as on most PoracleJS sites.
  s.engine.set({ fences: [{ name: 'Town', path: rect(TOWN) }, { name: 'Village', path: rect(VILLAGE) }] })
  await seedHuman(s, { id: USER, latitude: HOME.lat, longitude: HOME.lon, area: ['town'] })
  return Object.assign(s, { headers: bearer(s.app, { userId: USER }), scanner })
}

const estimate = async (s: Setup, type: string, alarm: object, uid?: number) => {
  const res = await s.app.inject({ method: 'POST', url: '/api/alarm-estimates', headers: s.headers, payload: { type, alarm, ...(uid !== undefined ? { uid } : {}) } })
  return { status: res.statusCode, body: res.json() }
}
const create = async (s: Setup, path: string, alarm: object): Promise<number> => {
  const res = await s.app.inject({ method: 'POST', url: `/api${path}`, headers: s.headers, payload: alarm })
  if (res.statusCode >= 300) throw new Error(`create ${path}: ${res.statusCode} ${res.body}`)
  const list = (await s.app.inject({ method: 'GET', url: `/api${path}`, headers: s.headers })).json() as Array<{ uid: number }>
  return Math.max(...list.map((a) => a.uid))
}

t.test('pokemon: the figure equals an independent count for a spread of filters', async (t) => {
  const s = await setup(t)
  const list = monsters(3000, 7)
  await insertMonsters(s.scanner, list)
  const filters: Array<[string, Filter]> = [
    ['everything (IV -1 includes unencountered)', { pokemon_id: 0 }],
    ['one species', { pokemon_id: 25 }],
    ['IV at least 90', { pokemon_id: 0, min_iv: 90 }],
    ['hundos', { pokemon_id: 0, min_iv: 100, max_iv: 100 }],
    ['IV 0..50 of one species', { pokemon_id: 150, min_iv: 0, max_iv: 50 }],
    ['level 20..30', { pokemon_id: 0, min_level: 20, max_level: 30 }],
    ['CP 1500 and more', { pokemon_id: 0, min_cp: 1500 }],
    ['stats', { pokemon_id: 0, atk: 15, def: 10, max_sta: 5 }],
    ['female', { pokemon_id: 0, gender: 2 }],
    ['size XL..XXL', { pokemon_id: 0, size: 4, max_size: 5 }],
    ['weight', { pokemon_id: 0, min_weight: 20000, max_weight: 60000 }],
    ['great league top 50 over 1400 CP', { pokemon_id: 0, pvp_ranking_league: 1500, pvp_ranking_best: 1, pvp_ranking_worst: 50, pvp_ranking_min_cp: 1400 }],
    ['10 km around the pin', { pokemon_id: 0, distance: 10000 }],
    ['3 km around the pin, IV 80', { pokemon_id: 0, distance: 3000, min_iv: 80 }],
    ['the alarm\'s own areas', { pokemon_id: 0, override_areas: ['village'] }],
    ['a form', { pokemon_id: 25, form: 598 }],
    ['despawn time left', { pokemon_id: 0, min_time: 900 }]
  ]
  for (const [name, filter] of filters) {
    const { status, body } = await estimate(s, 'pokemon', filter)
    t.equal(status, 200, name)
    t.equal(body.basis, 'scanner', name)
    t.equal(body.windowHours, 1)
    t.equal(body.recent, expected(list, filter), `${name}: ${body.recent}`)
  }
  t.ok(filters.every(([, f]) => expected(list, f) > 0), 'every filter counts something: the data is not trivially empty')
  const everything = await estimate(s, 'pokemon', { pokemon_id: 0 })
  t.same(everything.body.areas, ['town'])
  t.notMatch(JSON.stringify(everything.body), /lat|lon|51\.|7\.\d{3}/, 'no position in the answer')
  t.equal((await estimate(s, '/api/monsters', { pokemon_id: 25 })).body.recent, expected(list, { pokemon_id: 25 }), 'the type by its path')
})

t.test('fences from the engine\'s own geofence file, no Koji: an area the engine does not know is said, not a silent zero', async (t) => {
  const s = await setup(t)
  await insertMonsters(s.scanner, monsters(500, 13))
  const village = await estimate(s, 'pokemon', { pokemon_id: 0, override_areas: ['village'] })
  t.ok(village.body.recent > 0, 'the engine\'s fence counts')
  t.same([village.body.areas, village.body.unknownAreas], [['village'], []])
  const nowhere = await estimate(s, 'pokemon', { pokemon_id: 0, override_areas: ['atlantis', 'village'] })
  t.same([nowhere.body.recent, nowhere.body.areas, nowhere.body.unknownAreas], [village.body.recent, ['village'], ['atlantis']], 'the known area counts, the unknown one is named')
  s.engine.set({ fences: [{ name: 'Village', path: rect(VILLAGE) }] })
  s.clock.advance(11_000)
  const gone = await estimate(s, 'pokemon', { pokemon_id: 0 })
  t.same([gone.body.recent, gone.body.areas, gone.body.unknownAreas], [0, [], ['town']], 'the engine dropped Town: zero, and why')
})

t.test('the figure is kept a minute per member and body; the scanner is read at most once a minute; the window moves with the clock', async (t) => {
  const s = await setup(t)
  const list = monsters(400, 11)
  await insertMonsters(s.scanner, list)
  const before = (await estimate(s, 'pokemon', { pokemon_id: 0 })).body.recent
  await insertMonsters(s.scanner, monsters(100, 12).map((m) => ({ ...m, lat: 51.1, lon: 7.1, firstSeen: NOW_S - 30 })))
  t.equal((await estimate(s, 'pokemon', { pokemon_id: 0 })).body.recent, before, 'same body within a minute: the kept figure')
  t.equal((await estimate(s, 'pokemon', { pokemon_id: 0, min_iv: -1, max_iv: 100 })).body.recent, before, 'the same alarm with its defaults written out: the same kept figure')
  t.equal((await estimate(s, 'pokemon', { pokemon_id: 0, max_cp: 8999 })).body.recent, before, 'another alarm within the minute: counted from the same read of the scanner')
  s.clock.advance(61_000)
  t.equal((await estimate(s, 'pokemon', { pokemon_id: 0 })).body.recent, expected(list, { pokemon_id: 0 }, 3600 - 61),
    'a minute later: answered at once from the last read, over the moved window, while a new read runs')
  let recent = 0
  for (let cp = 8998; cp > 8900 && recent !== expected(list, { pokemon_id: 0 }, 3600 - 61) + 100; cp--) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    recent = (await estimate(s, 'pokemon', { pokemon_id: 0, max_cp: cp })).body.recent
  }
  t.equal(recent, expected(list, { pokemon_id: 0 }, 3600 - 61) + 100, 'then the new read counts the rows seen since')
})

t.test('a typical day from the daily statistics: species, hundo and IV counts, or the uniform IV share', async (t) => {
  const s = await setup(t)
  // Seven days before today, plus today and eight days ago, which a typical day leaves out.
  const days = ['2026-11-18', '2026-11-19', '2026-11-20', '2026-11-21', '2026-11-22', '2026-11-23', '2026-11-24', '2026-11-25', '2026-11-26']
  for (const [i, day] of days.entries()) {
    const counted = i >= 1 && i <= 7
    const k = counted ? 1 : 1000
    await s.scanner.query('INSERT INTO pokemon_stats (date, area, fence, pokemon_id, form_id, count) VALUES (?, \'Region\', \'Town\', 25, 0, ?), (?, \'Region\', \'Town\', 1, 0, ?), (?, \'Region\', \'Village\', 25, 0, 999)', [day, 700 * k, day, 70 * k, day])
    await s.scanner.query('INSERT INTO pokemon_iv_stats (date, area, fence, pokemon_id, form_id, count) VALUES (?, \'Region\', \'Town\', 25, 0, ?)', [day, 350 * k])
    await s.scanner.query('INSERT INTO pokemon_hundo_stats (date, area, fence, pokemon_id, form_id, count) VALUES (?, \'Region\', \'Town\', 25, 0, ?)', [day, 7 * k])
  }
  let share = 0
  for (let a = 0; a < 16; a++) for (let d = 0; d < 16; d++) for (let st = 0; st < 16; st++) if ((a + d + st) / 45 >= 0.9) share++
  share /= 4096
  const species = await estimate(s, 'pokemon', { pokemon_id: 25 })
  t.equal(species.body.perDay, 700)
  t.equal(species.body.perDayBasis, 'species-stats')
  t.equal((await estimate(s, 'pokemon', { pokemon_id: 0 })).body.perDay, 770, 'every species of the member\'s areas')
  const hundo = await estimate(s, 'pokemon', { pokemon_id: 25, min_iv: 100 })
  t.same([hundo.body.perDay, hundo.body.perDayBasis], [7, 'hundo-stats'])
  const ninety = await estimate(s, 'pokemon', { pokemon_id: 25, min_iv: 90 })
  t.equal(ninety.body.perDayBasis, 'iv-stats')
  t.ok(Math.abs(ninety.body.perDay - 350 * share) < 1e-9, `IV counts times the uniform share of 90+ (${ninety.body.perDay})`)
  t.equal((await estimate(s, 'pokemon', { pokemon_id: 25, distance: 1000 })).body.perDay, null, 'a distance alarm has no fence statistics')
  await s.scanner.query('DELETE FROM pokemon_iv_stats')
  await s.scanner.query('DELETE FROM pokemon_hundo_stats')
  s.clock.advance(61_000)
  t.equal((await estimate(s, 'pokemon', { pokemon_id: 25, min_iv: 90 })).body.perDayBasis, 'iv-stats', 'a fence\'s week is kept an hour for everyone: the statistics of past days do not change')
  s.clock.advance(60 * 60_000)
  // An hour on: a new access token, as the client would have by now.
  s.headers = bearer(s.app, { userId: USER })
  const uniform = await estimate(s, 'pokemon', { pokemon_id: 25, min_iv: 90 })
  t.equal(uniform.body.perDayBasis, 'uniform', 'no IV statistics: says so')
  t.ok(Math.abs(uniform.body.perDay - 700 * share) < 1e-9)
})

t.test('raids and eggs, quests, invasions and lures', async (t) => {
  const s = await setup(t)
  const gym = (id: string, lat: number, level: number, boss: number | null, end: number, team = 1) =>
    s.scanner.query('INSERT INTO gym (id, lat, lon, updated, first_seen_timestamp, raid_level, raid_pokemon_id, raid_pokemon_form, raid_end_timestamp, team_id) VALUES (?, ?, 7.1, ?, ?, ?, ?, 0, ?, ?)', [id, lat, NOW_S, NOW_S, level, boss, end, team])
  await gym('g1', 51.1, 5, 150, NOW_S + 600)
  await gym('g2', 51.15, 5, null, NOW_S + 2400)
  await gym('g3', 51.05, 1, 129, NOW_S - 1200, 2)
  await gym('g4', 51.1, 5, 150, NOW_S - 4000)
  await gym('g5', 50.5, 5, 150, NOW_S + 600)
  t.equal((await estimate(s, 'raid', { pokemon_id: 150 })).body.recent, 1, 'a boss: current raids in the areas, not the one outside or long over')
  t.equal((await estimate(s, 'raid', { pokemon_id: 9000, level: 90 })).body.recent, 2, 'every level: hatched raids, current and recent')
  t.equal((await estimate(s, 'raid', { pokemon_id: 9000, level: 1, team: 2 })).body.recent, 1)
  t.equal((await estimate(s, 'egg', { level: 5 })).body.recent, 2, 'eggs: every raid of the level, hatched or not')
  t.equal((await estimate(s, 'raid', { pokemon_id: 150, distance: 200000 })).body.recent, 2, 'a distance reaches the gym outside the areas')

  const stop = (id: string, lat: number, extra: Record<string, unknown>) => {
    const columns = Object.keys(extra)
    return s.scanner.query(`INSERT INTO pokestop (id, lat, lon, updated, first_seen_timestamp${columns.map((c) => `, ${c}`).join('')}) VALUES (?, ?, 7.1, ?, ?${columns.map(() => ', ?').join('')})`, [id, lat, NOW_S, NOW_S, ...Object.values(extra)])
  }
  const tonight = NOW_S + 12 * 3600
  await stop('s1', 51.1, { quest_type: 7, quest_reward_type: 7, quest_pokemon_id: 25, quest_pokemon_form_id: 0, quest_expiry: tonight, alternative_quest_reward_type: 2, alternative_quest_item_id: 1301, alternative_quest_reward_amount: 1, alternative_quest_expiry: tonight })
  await stop('s2', 51.12, { quest_reward_type: 3, quest_reward_amount: 1500, quest_expiry: tonight, lure_id: 501, lure_expire_timestamp: NOW_S + 900 })
  await stop('s3', 51.13, { quest_reward_type: 7, quest_pokemon_id: 25, quest_expiry: NOW_S - 1, lure_id: 502, lure_expire_timestamp: NOW_S - 1 })
  await stop('s4', 50.5, { quest_reward_type: 7, quest_pokemon_id: 25, quest_expiry: tonight })
  const pikachu = await estimate(s, 'quest', { reward_type: 7, reward: 25 })
  t.same([pikachu.body.recent, pikachu.body.perDay, pikachu.body.perDayBasis], [1, 1, 'today'], 'today\'s quests in the areas; an expired one does not count')
  t.equal((await estimate(s, 'quest', { reward_type: 2, reward: 1301 })).body.recent, 1, 'the AR quest of a stop counts too')
  t.equal((await estimate(s, 'quest', { reward_type: 3, reward: 1000 })).body.recent, 1, 'stardust: the reward is the minimum amount')
  t.equal((await estimate(s, 'quest', { reward_type: 3, reward: 2000 })).body.recent, 0)
  t.equal((await estimate(s, 'lure', { lure_id: 0 })).body.recent, 1, 'current lures only')
  t.equal((await estimate(s, 'lure', { lure_id: 502 })).body.recent, 0)

  const incident = (id: string, stopId: string, character: number, expiration: number) =>
    s.scanner.query('INSERT INTO incident (id, pokestop_id, start, expiration, display_type, style, `character`, updated) VALUES (?, ?, ?, ?, 1, 0, ?, ?)', [id, stopId, NOW_S - 60, expiration, character, NOW_S])
  await incident('i1', 's1', 18, NOW_S + 600)
  await incident('i2', 's2', 6, NOW_S + 600)
  await incident('i3', 's3', 18, NOW_S - 1)
  await incident('i4', 's4', 18, NOW_S + 600)
  t.equal((await estimate(s, 'invasion', { grunt_type: 'fire' })).body.recent, 1, 'grunt types from the engine\'s master data')
  t.equal((await estimate(s, 'invasion', { grunt_type: 'Fire', gender: 1 })).body.recent, 0, 'the fire grunt is female')
  t.equal((await estimate(s, 'invasion', { grunt_type: 'bug' })).body.recent, 1)
  const nest = await estimate(s, 'nest', { pokemon_id: 25 })
  t.same([nest.status, nest.body.basis, nest.body.recent], [200, 'unavailable', null], 'a type the scanner does not show')

  const now = await s.app.inject({ method: 'GET', url: '/api/alarm-estimates/now/raid-bosses', headers: s.headers })
  t.same(now.json(), { enabled: true, bosses: [{ level: 5, pokemonId: 150, form: 0, evolution: 0, count: 2 }] }, 'running raids with a boss, counted, no gyms')
  const rewards = (await s.app.inject({ method: 'GET', url: '/api/alarm-estimates/now/quest-rewards', headers: s.headers })).json()
  t.same(rewards.rewards.map((r: { rewardType: number, count: number }) => [r.rewardType, r.count]), [[2, 1], [3, 1], [7, 2]], 'today\'s rewards, both quests of a stop')
})

t.test('spawning now: species alive, counted', async (t) => {
  const s = await setup(t)
  await insertMonsters(s.scanner, monsters(50, 3).map((m, i) => ({ ...m, expire: i < 10 ? NOW_S - 5 : NOW_S + 600, pokemonId: i % 2 === 0 ? 25 : 1, form: 0 })))
  const answer = (await s.app.inject({ method: 'GET', url: '/api/alarm-estimates/now/pokemon', headers: s.headers })).json()
  t.same(answer, { enabled: true, pokemon: [{ pokemonId: 1, form: 0, count: 20 }, { pokemonId: 25, form: 0, count: 20 }] })
  t.equal((await s.app.inject({ method: 'GET', url: '/api/alarm-estimates/now/pokemon' })).statusCode, 401)
})

t.test('overlap: coveredBy and covers name the member\'s alarms, both ways', async (t) => {
  const s = await setup(t)
  const broad = await create(s, '/monsters', { pokemon_id: 0, min_iv: 90 })
  const narrow = await create(s, '/monsters', { pokemon_id: 25, min_iv: 100, max_iv: 100 })
  const far = await create(s, '/monsters', { pokemon_id: 25, distance: 1000 })
  const pikachu = await estimate(s, 'pokemon', { pokemon_id: 25, min_iv: 95 })
  t.same(pikachu.body.coveredBy, [broad], 'every pokemon IV 90+ in the areas covers Pikachu 95+ in the areas')
  t.same(pikachu.body.covers, [narrow], 'and Pikachu 95+ covers Pikachu 100')
  t.notOk(pikachu.body.coveredBy.includes(far), 'a distance never covers areas')
  const self = await estimate(s, 'pokemon', { pokemon_id: 0, min_iv: 90 }, broad)
  t.same([self.body.coveredBy, self.body.covers], [[], [narrow]], 'an alarm being edited is not its own cover')
  const profile = (await s.app.inject({ method: 'GET', url: '/api/alarm-estimates?type=pokemon', headers: s.headers })).json()
  t.same(profile.alarms[String(narrow)].coveredBy, [broad])
  t.same(profile.alarms[String(broad)].covers, [narrow])
})

t.test('a whole profile: one figure per alarm, equal to the single estimates, and a total', async (t) => {
  const s = await setup(t)
  const list = monsters(1500, 21)
  await insertMonsters(s.scanner, list)
  const bodies: Filter[] = [{ pokemon_id: 25 }, { pokemon_id: 0, min_iv: 90 }, { pokemon_id: 150, distance: 5000 }, { pokemon_id: 1, gender: 1 }, { pokemon_id: 0, min_cp: 2000, min_level: 30 }]
  const uids: number[] = []
  for (const body of bodies) uids.push(await create(s, '/monsters', body))
  const res = await s.app.inject({ method: 'GET', url: '/api/alarm-estimates?type=pokemon', headers: s.headers })
  t.equal(res.statusCode, 200)
  const answer = res.json()
  t.equal(answer.basis, 'scanner')
  t.same(Object.keys(answer.alarms).sort(), uids.map(String).sort())
  let total = 0
  bodies.forEach((body, i) => {
    const want = expected(list, body)
    total += want
    t.equal(answer.alarms[String(uids[i])].recent, want, `alarm ${JSON.stringify(body)}`)
  })
  t.equal(answer.total.recent, total)
  t.equal((await s.app.inject({ method: 'GET', url: '/api/alarm-estimates?type=raid', headers: s.headers })).json().total.recent, 0, 'no alarms of a type: a total of 0')
  t.equal((await s.app.inject({ method: 'GET', url: '/api/alarm-estimates?type=nope', headers: s.headers })).statusCode, 400)
})

t.test('a whole profile: each typical day equals the single estimate of the same alarm, and the total is their sum', async (t) => {
  // Equality is the point here, not the time limit: a busy test machine must not turn a figure into "unavailable".
  const s = await setup(t, { ESTIMATE_TIMEOUT_MS: '30000' })
  await insertMonsters(s.scanner, monsters(1500, 31))
  // Seven days of statistics in both fences, every species and Pikachu's two forms, different each day.
  for (let d = 1; d <= 7; d++) {
    const day = new Date(NOW_S * 1000 - d * 86_400_000).toISOString().slice(0, 10)
    for (const [fence, k] of [['Town', 1], ['Village', 3]] as const) {
      for (const [pokemonId, form, count] of [[1, 0, 90], [25, 0, 400], [25, 598, 60], [150, 0, 12], [133, 0, 250]] as const) {
        const all = count * k + d
        await s.scanner.query('INSERT INTO pokemon_stats (date, area, fence, pokemon_id, form_id, count) VALUES (?, \'Region\', ?, ?, ?, ?)', [day, fence, pokemonId, form, all])
        await s.scanner.query('INSERT INTO pokemon_iv_stats (date, area, fence, pokemon_id, form_id, count) VALUES (?, \'Region\', ?, ?, ?, ?)', [day, fence, pokemonId, form, Math.floor(all / 2)])
        await s.scanner.query('INSERT INTO pokemon_hundo_stats (date, area, fence, pokemon_id, form_id, count) VALUES (?, \'Region\', ?, ?, ?, ?)', [day, fence, pokemonId, form, d % 3])
      }
    }
  }
  // Species, forms, IV ranges and hundos, filters the statistics do not know (PvP, CP, gender, level: the
  // live rows' share), two alarms with one such core, and a distance; Village's counts are not the member's. Any two differ in two
  // fields at least, so the engine takes none for an edit of another.
  const bodies: Filter[] = [
    { pokemon_id: 25 }, { pokemon_id: 25, form: 598, min_iv: 10 }, { pokemon_id: 0 }, { pokemon_id: 0, min_iv: 90, max_iv: 99 },
    { pokemon_id: 0, min_iv: 100, gender: 2 }, { pokemon_id: 0, max_iv: 50, max_level: 40 }, { pokemon_id: 150, min_cp: 500 },
    { pokemon_id: 1, gender: 1, min_iv: 60 }, { pokemon_id: 0, pvp_ranking_league: 1500, pvp_ranking_worst: 100 },
    { pokemon_id: 0, pvp_ranking_league: 1500, pvp_ranking_best: 2, pvp_ranking_worst: 50 },
    { pokemon_id: 133, min_iv: 50 }, { pokemon_id: 25, min_iv: 20, distance: 1000 }
  ]
  const uids: number[] = []
  for (const body of bodies) uids.push(await create(s, '/monsters', body))
  const profile = (await s.app.inject({ method: 'GET', url: '/api/alarm-estimates?type=pokemon', headers: s.headers })).json()
  let sum = 0
  for (const [i, body] of bodies.entries()) {
    const single = (await estimate(s, 'pokemon', body)).body
    t.equal(single.basis, 'scanner')
    const mine = profile.alarms[String(uids[i])]
    t.equal(mine.perDayBasis, single.perDayBasis, `${JSON.stringify(body)}: ${String(single.perDayBasis)}`)
    if (single.perDay === null) t.equal(mine.perDay, null, `${JSON.stringify(body)}: no typical day`)
    else t.ok(Math.abs(mine.perDay - single.perDay) <= 1e-9 * Math.max(1, single.perDay), `${JSON.stringify(body)}: ${String(mine.perDay)} = ${String(single.perDay)}`)
    t.equal(mine.recent, single.recent)
    sum += single.perDay ?? 0
  }
  t.ok(bodies.filter((_, i) => (profile.alarms[String(uids[i])].perDay ?? 0) > 0).length >= 10, 'the typical days are not trivially zero')
  t.ok(Math.abs(profile.total.perDay - sum) <= 1e-9 * sum, `the total is the sum (${String(profile.total.perDay)})`)
})

t.test('bad input is a 400 and nothing else; signed-out is a 401; the per-member rate limit', async (t) => {
  const s = await setup(t, { ESTIMATE_RATE_MAX: '4' })
  t.equal((await estimate(s, 'pokemon', { pokemon_id: 25, min_iv: 101 })).status, 400, 'the create body\'s ranges')
  t.equal((await estimate(s, 'pokemon', { pokemon_id: 25, bogus: 1 })).status, 400, 'unknown fields')
  t.equal((await estimate(s, 'pokemon', { min_iv: 50 })).status, 400, 'a create needs pokemon_id')
  t.equal((await s.app.inject({ method: 'POST', url: '/api/alarm-estimates', payload: { type: 'pokemon', alarm: { pokemon_id: 1 } } })).statusCode, 401)
  t.equal((await estimate(s, 'pokemon', { pokemon_id: 1 })).status, 200, 'the fourth request of the minute (the 401 is nobody\'s)')
  t.equal((await estimate(s, 'pokemon', { pokemon_id: 1 })).status, 429, 'the fifth')
  const other = bearer(s.app, { userId: '111111111111111111' })
  t.not((await s.app.inject({ method: 'POST', url: '/api/alarm-estimates', headers: other, payload: { type: 'pokemon', alarm: { pokemon_id: 1 } } })).statusCode, 429, 'another member has their own budget')
})

t.test('an alarm is checked as its create checks it: text a create refuses is a 400 here too', async (t) => {
  const s = await setup(t)
  const bell = { pokemon_id: 25, ping: 'ring\u0007' }
  const refused = await estimate(s, 'pokemon', bell)
  t.equal(refused.status, 400, 'a control character in the message')
  t.match(refused.body, { details: [{ field: '/alarm/ping', message: String }] }, 'the field at fault, as a JSON pointer into the body like every 400\'s')
  t.equal((await s.app.inject({ method: 'POST', url: '/api/monsters', headers: s.headers, payload: bell })).statusCode, 400, 'as the create refuses it')
  t.equal((await estimate(s, 'pokemon', { pokemon_id: 25, ping: 'ring' })).status, 200, 'the same alarm with plain text')
})

t.test('a profile of 1,000 alarms: the overlap reads each stored alarm once, not once per pair', async (t) => {
  const s = await setup(t, {}, false)
  const alarms = [{ pokemon_id: 0, min_iv: 90 }, ...Array.from({ length: 999 }, (_, i) => ({ pokemon_id: 1 + (i % 900), min_iv: 95 + (i % 6), form: Math.floor(i / 900) }))]
  // Stored straight into the engine's database: this test counts the overlap's reads, and the batch write
  // that would make them (test/alarm-batch.test.ts) can outlast the engine timeout on a shared test machine.
  for (const alarm of alarms) await insertAlarm(s.app.engineDb.pool, 'pokemon', { id: USER, ...alarm })
  const started = performance.now()
  const res = await s.app.inject({ method: 'GET', url: '/api/alarm-estimates?type=pokemon', headers: s.headers })
  const took = performance.now() - started
  t.equal(res.statusCode, 200)
  // Reading every other alarm again for each alarm took 41 s here; one read of each takes a fraction of a second.
  t.ok(took < 5000, `answered in ${Math.round(took)} ms`)
  const answer = res.json() as { alarms: Record<string, { coveredBy: number[], covers: number[] }> }
  const entries = Object.values(answer.alarms)
  t.equal(entries.length, 1000)
  t.equal(entries.filter((e) => e.covers.length === 999).length, 1, 'the IV 90+ alarm of every pokemon covers the 999 others')
  t.equal(entries.filter((e) => e.coveredBy.length >= 1).length, 999, 'and each of them is covered')
})

t.test('no scanner: unavailable, never an error; overlap still answered', async (t) => {
  const s = await setup(t, {}, false)
  const uid = await create(s, '/monsters', { pokemon_id: 0 })
  const answer = await estimate(s, 'pokemon', { pokemon_id: 25 })
  t.equal(answer.status, 200)
  t.match(answer.body, { basis: 'unavailable', recent: null, perDay: null, coveredBy: [uid] })
  t.same((await s.app.inject({ method: 'GET', url: '/api/alarm-estimates/now/pokemon', headers: s.headers })).json(), { enabled: false, pokemon: [] })
  t.match((await s.app.inject({ method: 'GET', url: '/api/alarm-estimates?type=pokemon', headers: s.headers })).json(), { basis: 'unavailable', total: { recent: null } })
})

t.test('closing the app cuts a read of the live table under way instead of waiting it out', async (t) => {
  const s = await setup(t, { ESTIMATE_TIMEOUT_MS: '200' })
  const locker = await rootConnection()
  await locker.query(`USE \`${await golbatDatabase()}\``)
  await locker.query('LOCK TABLES pokemon WRITE')
  t.teardown(async () => { await locker.query('UNLOCK TABLES').catch(() => {}); await locker.end() })
  t.match((await estimate(s, 'pokemon', { pokemon_id: 25 })).body, { basis: 'unavailable' }, 'the read waits for the table')
  const started = Date.now()
  await s.app.close()
  t.ok(Date.now() - started < 1000, `closed in ${Date.now() - started} ms`)
})

t.test('a read that fails while a kept one is recent: the kept one answers, each caller tries again, each failure is logged', async (t) => {
  const s = await setup(t)
  const list = monsters(120, 31)
  await insertMonsters(s.scanner, list)
  t.equal((await estimate(s, 'pokemon', { pokemon_id: 0 })).body.basis, 'scanner')
  // The live table goes away (a scanner being migrated): every read now fails at once.
  await s.scanner.query('RENAME TABLE pokemon TO pokemon_away')
  t.teardown(async () => { await s.scanner.query('RENAME TABLE pokemon_away TO pokemon').catch(() => {}) })
  const failures = () => s.logs.filter((l) => l.msg === 'live pokemon read failed').length
  const waitFor = async (check: () => boolean) => { for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 25)) }

  s.clock.advance(2 * 60_000)
  t.equal((await estimate(s, 'pokemon', { pokemon_id: 0 })).body.recent, expected(list, { pokemon_id: 0 }, 3600 - 120), 'two minutes on: the kept read answers, over the moved window')
  await waitFor(() => failures() === 1)
  t.equal(failures(), 1, 'the read behind it failed, and said so once')
  t.match(s.logs.find((l) => l.msg === 'live pokemon read failed'), { reason: 'ER_NO_SUCH_TABLE' })
  t.equal((await estimate(s, 'pokemon', { pokemon_id: 0, max_cp: 8000 })).body.basis, 'scanner', 'the next caller is still answered from the kept read')
  await waitFor(() => failures() === 2)
  t.equal(failures(), 2, 'and its own read was tried again: a failure is not kept')

  s.clock.advance(5 * 60_000)
  const late = await estimate(s, 'pokemon', { pokemon_id: 0, max_cp: 7000 })
  t.match(late.body, { basis: 'unavailable', recent: null }, 'past five minutes the kept read is not used: unavailable, not an error')
  t.equal(late.status, 200)
  await s.scanner.query('RENAME TABLE pokemon_away TO pokemon')
  t.equal((await estimate(s, 'pokemon', { pokemon_id: 0, max_cp: 6000 })).body.basis, 'scanner', 'the table back: the next caller reads it')
})

t.test('a scanner that is down or slow: unavailable within the time limit', async (t) => {
  // What a request costs besides the scanner (engine, fences), measured on this machine right before.
  const overhead = async (s: Setup) => {
    await estimate(s, 'pokemon', { pokemon_id: 1 })
    const started = Date.now()
    await estimate(s, 'nest', { pokemon_id: 1 })
    return Date.now() - started
  }
  const down = await setup(t, { SCANNER_DB_PORT: '9', SCANNER_DB_HOST: '127.0.0.1', ESTIMATE_TIMEOUT_MS: '400' })
  let base = await overhead(down)
  let started = Date.now()
  const answer = await estimate(down, 'pokemon', { pokemon_id: 25 })
  t.match(answer.body, { basis: 'unavailable', recent: null })
  t.ok(Date.now() - started < base + 400 + 1000, `answered in ${Date.now() - started} ms (other work ${base} ms, limit 400 ms)`)

  const slow = await setup(t, { ESTIMATE_TIMEOUT_MS: '300' })
  base = await overhead(slow)
  const locker = await rootConnection()
  await locker.query(`USE \`${await golbatDatabase()}\``)
  await locker.query('LOCK TABLES pokemon WRITE')
  t.teardown(async () => { await locker.query('UNLOCK TABLES').catch(() => {}); await locker.end() })
  t.equal((await estimate(slow, 'pokemon', { pokemon_id: 25 })).body.basis, 'scanner', 'within the minute the kept read answers, the locked table unread')
  slow.clock.advance(2 * 60_000)
  started = Date.now()
  t.equal((await estimate(slow, 'pokemon', { pokemon_id: 26 })).body.basis, 'scanner', 'minutes later: the last read answers while a new one waits for the table')
  t.ok(Date.now() - started < base + 1000, `at once: ${Date.now() - started} ms (other work ${base} ms)`)
  slow.clock.advance(5 * 60_000)
  started = Date.now()
  const waited = await estimate(slow, 'pokemon', { pokemon_id: 27 })
  t.match(waited.body, { basis: 'unavailable' }, 'a read older than five minutes is not used: unavailable')
  t.ok(Date.now() - started < base + 300 + 1000, `answered in ${Date.now() - started} ms while the table is locked (other work ${base} ms, limit 300 ms)`)
  await locker.query('UNLOCK TABLES')
  let basis = 'unavailable'
  for (let tries = 0; tries < 100 && basis !== 'scanner'; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    basis = (await estimate(slow, 'pokemon', { pokemon_id: 27 })).body.basis
  }
  t.equal(basis, 'scanner', 'an unavailable answer is not kept: once the table is free, the read lands and answers')
})
