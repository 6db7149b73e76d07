import t from 'tap'
import type { Connection } from 'mariadb'
import { build, bearer, JWT_SECRET, rootConnection, seedHuman, type Test, type TestApp } from './helper.js'
import { scannerDatabase } from './fakes/scanner-db.js'
import { s2CellIdSigned } from '../lib/s2.js'

const USER = '999999999999999999'
const NOW_S = Date.parse('2026-11-26T12:00:00Z') / 1000

interface Setup extends TestApp { headers: { authorization: string }, scanner: Connection }

const GYMS: Array<[string, string, number, number, number | null]> = [
  ['g1', '100% Park', 51.1, 7.1, 1],
  ['g2', 'Under_score Fountain', 51.05, 7.05, 2],
  ['g3', 'Rxs Cafe', 10, 10, 0],
  ['g4', 'Back\\slash Statue', 48.5, 9.2, null],
  ['g5', 'Wow!Gym', 0, 0, 3],
  ['g6', 'Plain Park', 51.15, 7.15, 1]
]

async function setup (t: Test, env: Record<string, string> = {}): Promise<Setup> {
  const database = await scannerDatabase()
  const scanner = await rootConnection()
  await scanner.query(`USE \`${database}\``)
  t.teardown(() => scanner.end())
  for (const table of ['gym', 'pokestop', 'station', 'weather']) await scanner.query(`DELETE FROM ${table}`)
  for (const [id, name, lat, lon, team] of GYMS) {
    await scanner.query('INSERT INTO gym (id, name, url, lat, lon, team_id) VALUES (?, ?, ?, ?, ?, ?)', [id, name, `https://img.example/${id}.png`, lat, lon, team])
  }
  const s = await build(t, {
    env: { SCANNER_DB_HOST: '127.0.0.1', SCANNER_DB_USER: 'root', SCANNER_DB_NAME: database, ...env }
  })
  // A gym's area is the engine's fence containing it (here from its own geofence file, no Koji).
  s.engine.set({
    fences: [
      { name: 'Town', path: [[51, 7], [51, 7.2], [51.2, 7.2], [51.2, 7]] },
      { name: 'Village', path: [[48, 9], [48, 9.5], [49, 9.5], [49, 9]] }
    ]
  })
  await seedHuman(s, { id: USER, latitude: 51.1, longitude: 7.1 })
  return Object.assign(s, { headers: bearer(s.app, { userId: USER }), scanner })
}

const search = async (s: Setup, term: string, limit?: number) => {
  const res = await s.app.inject({ method: 'GET', url: '/api/scanner/gyms', headers: s.headers, query: { search: term, ...(limit !== undefined ? { limit: String(limit) } : {}) } })
  return { status: res.statusCode, names: res.statusCode === 200 ? res.json().map((g: { name: string }) => g.name) as string[] : [], body: res.json() }
}

t.test('gym search: substring match, ordered by name, with the admin area', async (t) => {
  const s = await setup(t)
  const park = await search(s, 'park')
  t.same(park.names, ['100% Park', 'Plain Park'], 'substring, case-insensitive, by name')
  t.same(park.body[0], { id: 'g1', name: '100% Park', url: 'https://img.example/g1.png', lat: 51.1, lon: 7.1, teamId: 1, area: 'Town' })
  t.same((await search(s, 'statue')).body[0]?.area, 'Village')
  t.same((await search(s, 'rxs')).body[0]?.area, null, 'outside every fence')
  t.same((await search(s, 'a', 5)).status, 400, 'at least 2 characters')
  t.same((await search(s, 'x'.repeat(101))).status, 400)
  t.same((await search(s, 'ar', 0)).status, 400, 'limit at least 1')
  const many = await search(s, 'ar', 1000)
  t.equal(many.status, 200, 'a large limit is capped, not refused')
  await s.scanner.query('INSERT INTO gym (id, name, lat, lon) SELECT CONCAT(\'bulk\', seq), CONCAT(\'Bulk Park \', seq), 0, 0 FROM seq_1_to_80')
  t.equal((await search(s, 'bulk', 1000)).names.length, 50, 'capped at 50')
  t.equal((await search(s, 'bulk')).names.length, 20, 'default limit 20')
  t.equal((await s.app.inject({ method: 'GET', url: '/api/scanner/gyms', query: { search: 'park' } })).statusCode, 401)
})

t.test('gym search: LIKE wildcards in the input match literally', async (t) => {
  const s = await setup(t)
  t.same((await search(s, '0%')).names, ['100% Park'], '% is a percent sign')
  t.same((await search(s, '%%')).names, [], 'not "anything"')
  t.same((await search(s, 'r_s')).names, ['Under_score Fountain'], '_ is an underscore, not any character (Rxs Cafe does not match)')
  t.same((await search(s, '__')).names, [])
  t.same((await search(s, 'k\\s')).names, ['Back\\slash Statue'], 'a backslash is a backslash')
  t.same((await search(s, '\\%')).names, [])
  t.same((await search(s, 'w!g')).names, ['Wow!Gym'], 'the escape character itself')
  t.same((await search(s, "' OR 1=1 --")).names, [], 'and values are parameters')
})

t.test('one gym: found with its area, 404 when absent', async (t) => {
  const s = await setup(t)
  const one = await s.app.inject({ method: 'GET', url: '/api/scanner/gyms/g6', headers: s.headers })
  t.equal(one.statusCode, 200)
  t.match(one.json(), { id: 'g6', name: 'Plain Park', area: 'Town', teamId: 1 })
  t.equal((await s.app.inject({ method: 'GET', url: '/api/scanner/gyms/nope', headers: s.headers })).statusCode, 404)
  t.equal((await s.app.inject({ method: 'GET', url: `/api/scanner/gyms/${'x'.repeat(129)}`, headers: s.headers })).statusCode, 400)
})

t.test('raids, quests and max-battle pokemon', async (t) => {
  const s = await setup(t)
  await s.scanner.query('UPDATE gym SET raid_level = 5, raid_pokemon_id = 150, raid_pokemon_form = 0, raid_end_timestamp = ? WHERE id = ?', [NOW_S + 600, 'g1'])
  await s.scanner.query('UPDATE gym SET raid_level = 1, raid_pokemon_id = 1, raid_end_timestamp = ? WHERE id = ?', [NOW_S - 1, 'g2'])
  const raids = await s.app.inject({ method: 'GET', url: '/api/scanner/raids', headers: s.headers })
  t.same(raids.json(), [{ gymId: 'g1', name: '100% Park', lat: 51.1, lon: 7.1, level: 5, pokemonId: 150, form: 0, endTime: NOW_S + 600 }], 'only raids that have not ended')
  await s.scanner.query('INSERT INTO pokestop (id, name, lat, lon, quest_type, quest_reward_type, quest_item_id, quest_pokemon_id) VALUES (?, ?, 1, 2, 4, 2, 701, NULL), (?, ?, 3, 4, 7, 7, NULL, 25), (?, ?, 5, 6, NULL, NULL, NULL, NULL)', ['s1', 'Item stop', 's2', 'Mon stop', 's3', 'No quest'])
  const quests = await s.app.inject({ method: 'GET', url: '/api/scanner/quests', headers: s.headers })
  t.same(quests.json().map((q: { pokestopId: string, rewardId: number }) => [q.pokestopId, q.rewardId]).sort(), [['s1', 701], ['s2', 25]], 'item id for item rewards, else the pokemon')
  await s.scanner.query('INSERT INTO station (id, battle_pokemon_id) VALUES (\'a\', 144), (\'b\', 0), (\'c\', NULL), (\'d\', 3), (\'e\', 144)')
  t.same((await s.app.inject({ method: 'GET', url: '/api/scanner/max-battle-pokemon', headers: s.headers })).json(), [3, 144])
})

t.test('weather: the S2 level-10 cell of the pin, and of named points', async (t) => {
  const s = await setup(t)
  t.equal((await s.app.inject({ method: 'GET', url: '/api/location/weather', headers: s.headers })).statusCode, 204, 'no reading for the cell')
  const cell = s2CellIdSigned(51.1, 7.1, 10)
  await s.scanner.query('INSERT INTO weather (id, level, latitude, longitude, gameplay_condition, severity, warn_weather, updated) VALUES (?, 10, 51.1, 7.1, 2, 1, 1, ?)', [cell, NOW_S])
  // A neighbouring cell, so a lookup by a rounded id would find the wrong row.
  await s.scanner.query('INSERT INTO weather (id, level, latitude, longitude, gameplay_condition, updated) VALUES (?, 10, 0, 0, 5, ?)', [cell + 2n ** 40n, NOW_S])
  const here = await s.app.inject({ method: 'GET', url: '/api/location/weather', headers: s.headers })
  t.equal(here.statusCode, 200)
  t.same(here.json(), { condition: 2, conditionName: 'Rainy', icon: 'rainy', boostedTypes: ['Water', 'Electric', 'Bug'], boostedTypeIds: [11, 13, 7], hasWarning: true, severity: 1, updatedAt: '2026-11-26T12:00:00.000Z' })
  const nyc = s2CellIdSigned(40.7128, -74.006, 10)
  t.ok(nyc < 0n, 'a face-4 cell is stored negative')
  await s.scanner.query('INSERT INTO weather (id, level, latitude, longitude, gameplay_condition, updated) VALUES (?, 10, 40.7, -74, 6, ?)', [nyc, NOW_S])
  const areas = await s.app.inject({ method: 'POST', url: '/api/location/weather/areas', headers: s.headers, payload: { locations: [{ name: 'home', lat: 51.1, lon: 7.1 }, { name: 'nyc', lat: 40.7128, lon: -74.006 }, { name: 'sea', lat: 0, lon: -30 }] } })
  t.same(areas.json().map((a: { name: string, weather: { conditionName: string } }) => [a.name, a.weather.conditionName]), [['home', 'Rainy'], ['nyc', 'Snow']])
  t.equal((await s.app.inject({ method: 'POST', url: '/api/location/weather/areas', headers: s.headers, payload: { locations: [{ name: 'x', lat: 91, lon: 0 }] } })).statusCode, 400)
})

t.test('an unreachable scanner database: the spec\'s fallbacks, no 500', async (t) => {
  const s = await setup(t, { SCANNER_DB_PORT: '9' })
  // Each read waits out the scanner pool's acquire timeout (3 s): they are asked side by side.
  const get = async (url: string) => await s.app.inject({ method: 'GET', url, headers: s.headers })
  const [gyms, gym, raids, quests, maxBattles, weather] = await Promise.all([
    search(s, 'park'), get('/api/scanner/gyms/g1'), get('/api/scanner/raids'), get('/api/scanner/quests'), get('/api/scanner/max-battle-pokemon'), get('/api/location/weather')
  ])
  t.same(gyms, { status: 200, names: [], body: [] }, 'gym search: empty array')
  t.equal(gym.statusCode, 404, 'one gym: 404')
  t.same(raids.json(), [])
  t.same(quests.json(), [])
  t.same(maxBattles.json(), [])
  t.equal(weather.statusCode, 204)
  t.ok(s.logs.some((l) => /scanner database read failed/.test(String(l.msg))), 'logged')
  t.equal((await s.app.inject({ method: 'GET', url: '/api/config', headers: s.headers })).json().gymPicker, true, 'still configured')
})

t.test('no scanner database: fallbacks and the gym picker off', async (t) => {
  const s = await build(t)
  await seedHuman(s, { id: USER, latitude: 51.1, longitude: 7.1 })
  const headers = bearer(s.app, { userId: USER })
  t.same((await s.app.inject({ method: 'GET', url: '/api/scanner/gyms', headers, query: { search: 'park' } })).json(), [])
  t.equal((await s.app.inject({ method: 'GET', url: '/api/scanner/gyms/g1', headers })).statusCode, 404)
  t.equal((await s.app.inject({ method: 'GET', url: '/api/scanner/quests', headers })).statusCode, 404)
  t.same((await s.app.inject({ method: 'GET', url: '/api/scanner/max-battle-pokemon', headers })).json(), [])
  t.equal((await s.app.inject({ method: 'GET', url: '/api/location/weather', headers })).statusCode, 204)
  t.same((await s.app.inject({ method: 'POST', url: '/api/location/weather/areas', headers, payload: { locations: [{ name: 'a', lat: 1, lon: 1 }] } })).json(), [])
  t.equal((await s.app.inject({ method: 'GET', url: '/api/config', headers })).json().gymPicker, false)
})

t.test('SCANNER_DB_CONNECTION: URL or key=value form, password never echoed', async (t) => {
  const { scannerConnection } = await import('../plugins/data/scanner-db.js')
  const { loadConfig } = await import('../plugins/base/config.js')
  const base = { JWT_SECRET, NODE_ENV: 'development' }
  t.same(scannerConnection(loadConfig({ ...base, SCANNER_DB_CONNECTION: 'mysql://golbat:p%40ss@db.local:3307/scan' })), { host: 'db.local', port: 3307, user: 'golbat', password: 'p@ss', database: 'scan' })
  t.same(scannerConnection(loadConfig({ ...base, ConnectionStrings__ScannerDb: 'Server=db;Port=3308;Database=golbat;User=me;Password=a=b' })), { host: 'db', port: 3308, user: 'me', password: 'a=b', database: 'golbat' })
  t.same(scannerConnection(loadConfig({ ...base, SCANNER_DB_HOST: 'h', SCANNER_DB_PASSWORD: 'pw' })), { host: 'h', port: 3306, user: 'root', password: 'pw', database: 'golbat' })
  t.equal(scannerConnection(loadConfig(base)), null)
  t.throws(() => scannerConnection(loadConfig({ ...base, SCANNER_DB_CONNECTION: 'Database=x;Password=secret123' })), { message: /SCANNER_DB_CONNECTION must be/ })
  try {
    scannerConnection(loadConfig({ ...base, SCANNER_DB_CONNECTION: 'Database=x;Password=secret123' }))
  } catch (err) {
    t.notMatch((err as Error).message, /secret123/)
  }
})
