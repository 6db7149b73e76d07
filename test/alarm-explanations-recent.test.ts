import t from 'tap'
import type { Connection } from 'mariadb'
import { build, bearer, rootConnection, seedHuman, type Test, type TestApp } from './helper.js'
import { golbatDatabase } from './fakes/golbat-db.js'
import { startFaultPeer } from './fakes/fault-peer.js'

/**
 * GET /api/alarm-explanations/recent and the explanation of a listed event by its id: the events the
 * scanner (a database with Golbat's schema) saw in the last hour in the member's areas or within the
 * largest distance of their alarms, newest first, paged, without a position; the id explains only for
 * the member it was listed for. Bad input is a 400, a scanner that cannot be read a 503, no scanner a
 * 501, an engine that fails its own fault status; the admin twin lists a member's events, audited.
 */

const USER = '111111111111111111'
const OTHER = '222222222222222222'
const ADMIN = '999999999999999999'
const CENTRE: Array<[number, number]> = [[51, 7], [51, 7.2], [51.2, 7.2], [51.2, 7]]
const NORTH: Array<[number, number]> = [[52, 7], [52, 7.2], [52.2, 7.2], [52.2, 7]]
const NOW_S = Date.parse('2026-11-26T12:00:00Z') / 1000
/** The member's pin: outside both fences; their distance alarm reaches 2 km around it. */
const PIN = { latitude: 50.5, longitude: 7.1 }

interface Spawn { id: string, lat: number, lon: number, pokemonId: number, iv?: [number, number, number], firstSeen: number }

/** Distinct positions, so that a coordinate in an answer would be found by its digits. */
const SPAWNS: Spawn[] = [
  { id: 'centre-new', lat: 51.123457, lon: 7.111113, pokemonId: 25, iv: [15, 15, 13], firstSeen: NOW_S - 60 },
  { id: 'centre-tie-a', lat: 51.134568, lon: 7.122224, pokemonId: 147, iv: [15, 15, 15], firstSeen: NOW_S - 600 },
  { id: 'centre-tie-b', lat: 51.145679, lon: 7.133335, pokemonId: 147, iv: [1, 2, 3], firstSeen: NOW_S - 600 },
  { id: 'near-pin', lat: 50.505791, lon: 7.104446, pokemonId: 1, iv: [15, 15, 15], firstSeen: NOW_S - 900 },
  { id: 'centre-unseen', lat: 51.156781, lon: 7.144447, pokemonId: 25, firstSeen: NOW_S - 1200 },
  { id: 'north', lat: 52.167892, lon: 7.155558, pokemonId: 25, iv: [15, 15, 15], firstSeen: NOW_S - 120 },
  { id: 'far-from-pin', lat: 50.612343, lon: 7.166669, pokemonId: 1, iv: [15, 15, 15], firstSeen: NOW_S - 180 },
  { id: 'centre-old', lat: 51.178904, lon: 7.177771, pokemonId: 25, iv: [15, 15, 15], firstSeen: NOW_S - 4000 }
]
/** The member's list, newest first (the tie of one second by latitude). */
const LISTED = ['centre-new', 'centre-tie-a', 'centre-tie-b', 'near-pin', 'centre-unseen']

interface Setup extends TestApp { scanner: Connection, member: { authorization: string }, other: { authorization: string }, admin: { authorization: string } }

async function insertSpawns (scanner: Connection, spawns: Spawn[]): Promise<void> {
  for (const m of spawns) {
    const [atk, def, sta] = m.iv ?? [null, null, null]
    await scanner.query(`INSERT INTO pokemon (id, lat, lon, pokemon_id, form, atk_iv, def_iv, sta_iv, iv, cp, level, gender, first_seen_timestamp, expire_timestamp, expire_timestamp_verified, updated)
      VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, 1, ?, ?, 1, ?)`, [m.id, m.lat, m.lon, m.pokemonId, atk, def, sta, m.iv === undefined ? null : Math.round(((m.iv[0] + m.iv[1] + m.iv[2]) * 10000) / 45) / 100,
      m.iv === undefined ? null : 1200, m.iv === undefined ? null : 30, m.firstSeen, m.firstSeen + 1800, m.firstSeen])
  }
}

async function setup (t: Test, env: Record<string, string> = {}): Promise<Setup> {
  const database = await golbatDatabase()
  const scanner = await rootConnection()
  await scanner.query(`USE \`${database}\``)
  t.teardown(() => scanner.end())
  for (const table of ['pokemon', 'gym', 'pokestop', 'incident']) await scanner.query(`DELETE FROM ${table}`)
  await insertSpawns(scanner, SPAWNS)
  const s = await build(t, { env: { PORACLE_ADMIN_IDS: ADMIN, SCANNER_DB_HOST: '127.0.0.1', SCANNER_DB_USER: 'root', SCANNER_DB_NAME: database, ...env } })
  s.engine.set({ fences: [{ name: 'Centre', path: CENTRE }, { name: 'North', path: NORTH }] })
  await seedHuman(s, { id: USER, area: ['centre'], ...PIN })
  await seedHuman(s, { id: OTHER, area: ['north'], latitude: 52.1, longitude: 7.1 })
  await seedHuman(s, { id: ADMIN, area: [] })
  const member = bearer(s.app, { userId: USER })
  for (const alarm of [{ pokemon_id: 25, min_iv: 90 }, { pokemon_id: 0, min_iv: 100, distance: 2000 }, { pokemon_id: 0, min_iv: 100, distance: 500, min_cp: 1 }]) {
    const res = await s.app.inject({ method: 'POST', url: '/api/monsters', headers: member, payload: alarm })
    if (res.statusCode !== 201) throw new Error(`create: ${res.statusCode} ${res.body}`)
  }
  return Object.assign(s, { scanner, member, other: bearer(s.app, { userId: OTHER }), admin: bearer(s.app, { userId: ADMIN, isAdmin: true }) })
}

interface Listed { id: string, type: string, seenAt: number, area: string | null, pokemonId: number, iv?: number | null, [k: string]: unknown }
interface Page { windowSeconds: number, events: Listed[], nextCursor: string | null }

const list = async (s: Setup, query: string, headers = s.member, url = '/api/alarm-explanations/recent') => {
  const res = await s.app.inject({ url: `${url}?${query}`, headers })
  return { status: res.statusCode, body: res.json() as Page, text: res.body }
}
/** The spawn a listed pokemon is, by its species and time (the list has no position to tell them apart). */
const spawnOf = (e: Listed) => SPAWNS.filter((m) => m.pokemonId === e.pokemonId && m.firstSeen === e.seenAt)

t.test('the member\'s places only, newest first, with the area and no position', async (t) => {
  const s = await setup(t)
  const { status, body, text } = await list(s, 'type=pokemon')
  t.equal(status, 200, text)
  t.equal(body.windowSeconds, 3600)
  t.same(body.events.map((e) => [e.pokemonId, e.seenAt, e.area]), [
    [25, NOW_S - 60, 'Centre'], [147, NOW_S - 600, 'Centre'], [147, NOW_S - 600, 'Centre'], [1, NOW_S - 900, null], [25, NOW_S - 1200, 'Centre']
  ], 'the centre\'s (their area) and the one 600 m from the pin (their 2 km alarm); not the north, 12 km away, or over an hour old')
  t.same(body.events.slice(1, 3).map((e) => e.iv), [100, 13.33], 'a tie of one second in a stable order')
  t.equal(body.events[4]?.iv, null, 'not encountered: no IV')
  t.equal(body.nextCursor, null)
  for (const m of SPAWNS) {
    t.notOk(text.includes(String(m.lat).slice(0, 6)) || text.includes(String(m.lon).slice(0, 5)), `no digits of ${m.id}'s position in the answer`)
  }
  t.notOk(/"(lat|lon|latitude|longitude)"/.test(text), 'no position field')
  const others = await list(s, 'type=pokemon', s.other)
  t.same(others.body.events.map((e) => e.seenAt), [NOW_S - 120], 'another member sees their own areas\' events')
  const dratini = await list(s, 'type=pokemon&pokemonId=147')
  t.same(dratini.body.events.map((e) => e.pokemonId), [147, 147], 'one species')
})

t.test('paging: the pages put together are the list, across a tie of one second', async (t) => {
  const s = await setup(t)
  const seen: number[] = []
  const ivs: unknown[] = []
  let cursor: string | null = null
  let pages = 0
  do {
    const { status, body }: { status: number, body: Page } = await list(s, `type=pokemon&limit=2${cursor === null ? '' : `&cursor=${cursor}`}`)
    t.equal(status, 200)
    t.ok(body.events.length <= 2)
    seen.push(...body.events.map((e) => e.seenAt))
    ivs.push(...body.events.map((e) => e.iv))
    cursor = body.nextCursor
    pages++
  } while (cursor !== null && pages < 10)
  t.equal(pages, 3)
  t.same(seen, LISTED.map((id) => SPAWNS.find((m) => m.id === id)?.firstSeen))
  t.same(ivs, [95.56, 100, 13.33, 100, null], 'each event once, the tie split over two pages')
  // A new spawn arrives: the next page still goes on where the first one ended.
  const first = await list(s, 'type=pokemon&limit=2')
  await insertSpawns(s.scanner, [{ id: 'centre-newest', lat: 51.1, lon: 7.1, pokemonId: 4, iv: [1, 1, 1], firstSeen: NOW_S - 10 }])
  s.clock.advance(61_000)
  const next = await list(s, `type=pokemon&limit=2&cursor=${String(first.body.nextCursor)}`)
  t.same(next.body.events.map((e) => e.iv), [13.33, 100])
})

t.test('an event explained by its id, for the member it was listed for only', async (t) => {
  const s = await setup(t)
  const { body } = await list(s, 'type=pokemon')
  const pikachu = body.events[0] as Listed
  const explain = async (payload: object, headers = s.member, url = '/api/alarm-explanations') => {
    const res = await s.app.inject({ method: 'POST', url, headers, payload })
    return { status: res.statusCode, body: res.json() }
  }
  const byId = await explain({ eventId: pikachu.id })
  t.equal(byId.status, 200)
  t.equal(byId.body.alerted, true, 'the 95.56 % Pikachu in the centre')
  t.same(byId.body.profiles, [{ profileNo: 1, name: 'Default' }], 'the profiles, to name them')
  t.same(byId.body.alarms.map((a: { alarm: { pokemon_id: number, min_iv: number, distance: number } }) => [a.alarm.pokemon_id, a.alarm.min_iv, a.alarm.distance]),
    [[25, 90, 0], [0, 100, 2000], [0, 100, 500]], 'each alarm as stored, to name it')
  const m = spawnOf(pikachu)[0] as Spawn
  const event = { type: 'pokemon', message: { pokemon_id: 25, form: 0, latitude: m.lat, longitude: m.lon, disappear_time: m.firstSeen + 1800, individual_attack: 15, individual_defense: 15, individual_stamina: 13, cp: 1200, pokemon_level: 30, gender: 1 } }
  t.same(byId.body, (await explain({ event, at: m.firstSeen })).body, 'the same answer as the event itself, at the time it was seen')
  const hundo = await explain({ eventId: (body.events[3] as Listed).id })
  t.same(hundo.body.alarms.map((a: { matches: boolean, failed: Array<{ filter: string }> }) => [a.matches, a.failed.map((f) => f.filter)]),
    [[false, ['pokemon_id', 'area']], [true, []], [false, ['distance']]], 'the bulbasaur by the pin: the 2 km alarm, not the 500 m one')

  t.equal((await explain({ eventId: pikachu.id }, s.other)).status, 404, 'another member\'s event id is not found')
  const tampered = `${pikachu.id.slice(0, 30)}${pikachu.id[30] === 'A' ? 'B' : 'A'}${pikachu.id.slice(31)}`
  t.equal((await explain({ eventId: tampered })).status, 404, 'an altered id is not found')
  t.equal((await explain({ eventId: 'A'.repeat(60) })).status, 404, 'an id of nothing is not found')
  const both = await explain({ eventId: pikachu.id, event })
  t.equal(both.status, 400)
  t.match(JSON.stringify(both.body), /eventId/)
  t.equal((await explain({})).status, 400, 'neither event nor id')
  t.equal((await explain({ eventId: 'not an id!' })).status, 400, 'not the id\'s alphabet')
})

t.test('bad input: a 400 naming the parameter, never a 500', async (t) => {
  const s = await setup(t)
  for (const [query, field] of [['type=weather', 'type'], ['', 'type'], ['type=pokemon&limit=0', 'limit'], ['type=pokemon&limit=101', 'limit'], ['type=pokemon&cursor=abc', 'cursor'],
    ['type=pokemon&cursor=1.2.3', 'cursor'], ['type=pokemon&pokemonId=-1', 'pokemonId'], ['type=pokemon&pokemonId=99999', 'pokemonId'], ['type=pokemon&extra=1', 'extra']]) {
    const res = await list(s, query as string)
    t.equal(res.status, 400, `${query as string}: ${res.text}`)
    t.match(res.text, field as string, `names ${field as string}`)
  }
  t.equal((await s.app.inject({ url: '/api/alarm-explanations/recent?type=pokemon' })).statusCode, 401, 'signed out')
})

t.test('raids, quests, invasions and lures from the fort tables', async (t) => {
  const s = await setup(t)
  await s.scanner.query(`INSERT INTO gym (id, name, lat, lon, updated, first_seen_timestamp, team_id, raid_level, raid_pokemon_id, raid_pokemon_form, raid_spawn_timestamp, raid_battle_timestamp, raid_end_timestamp)
    VALUES ('g1', 'Fountain', 51.1, 7.1, ?, ?, 1, 5, 150, 0, ?, ?, ?), ('g2', 'Statue', 51.15, 7.15, ?, ?, 2, 3, 0, 0, ?, ?, ?), ('g3', 'Far gym', 52.1, 7.1, ?, ?, 1, 5, 150, 0, ?, ?, ?),
    ('g4', 'Old gym', 51.1, 7.15, ?, ?, 1, 5, 150, 0, ?, ?, ?)`, [NOW_S, NOW_S, NOW_S - 3000, NOW_S - 900, NOW_S + 1800, NOW_S, NOW_S, NOW_S - 300, NOW_S + 3300, NOW_S + 6000,
    NOW_S, NOW_S, NOW_S - 3000, NOW_S - 900, NOW_S + 1800, NOW_S, NOW_S, NOW_S - 9000, NOW_S - 7000, NOW_S - 4000])
  const raids = await list(s, 'type=raid')
  t.same(raids.body.events.map((e) => [e.place, e.pokemonId, e.raidLevel, e.seenAt, e.area]), [['Statue', 0, 3, NOW_S - 300, 'Centre'], ['Fountain', 150, 5, NOW_S - 900, 'Centre']],
    'the egg by when it appeared, the raid by when it hatched; not the north\'s, nor one ended over an hour ago')
  await s.app.inject({ method: 'POST', url: '/api/raids', headers: s.member, payload: { pokemon_id: 150 } })
  const mewtwo = await s.app.inject({ method: 'POST', url: '/api/alarm-explanations', headers: s.member, payload: { eventId: (raids.body.events[1] as Listed).id } })
  t.same([mewtwo.statusCode, mewtwo.json().alerted], [200, true])

  await s.scanner.query(`INSERT INTO pokestop (id, name, lat, lon, updated, first_seen_timestamp, quest_type, quest_timestamp, quest_reward_type, quest_pokemon_id, quest_reward_amount, quest_expiry, lure_id, lure_expire_timestamp)
    VALUES ('s1', 'Bench', 51.1, 7.1, ?, ?, 1, ?, 7, 327, 1, ?, 501, ?), ('s2', 'Sign', 52.1, 7.1, ?, ?, 1, ?, 7, 327, 1, ?, 0, NULL)`,
  [NOW_S, NOW_S, NOW_S - 20_000, NOW_S + 40_000, NOW_S + 600, NOW_S, NOW_S, NOW_S - 20_000, NOW_S + 40_000])
  await s.scanner.query('INSERT INTO incident (id, pokestop_id, start, expiration, display_type, style, `character`, updated) VALUES (\'i1\', \'s1\', ?, ?, 1, 0, 4, ?)', [NOW_S - 100, NOW_S + 1500, NOW_S])
  const quests = await list(s, 'type=quest')
  t.same(quests.body.events.map((e) => [e.place, e.rewards]), [['Bench', [{ type: 7, itemId: 0, pokemonId: 327, form: 0, amount: 1 }]]], 'today\'s quest of a stop in the centre')
  const invasions = await list(s, 'type=invasion')
  t.same(invasions.body.events.map((e) => [e.place, e.gruntType, e.seenAt]), [['Bench', 4, NOW_S - 100]])
  const lures = await list(s, 'type=lure')
  t.same(lures.body.events.map((e) => [e.place, e.lureId, e.seenAt]), [['Bench', 501, NOW_S + 600 - 1800]], 'a lure from its end, 30 minutes before')
  for (const listed of [quests, invasions, lures]) {
    const res = await s.app.inject({ method: 'POST', url: '/api/alarm-explanations', headers: s.member, payload: { eventId: (listed.body.events[0] as Listed).id } })
    t.equal(res.statusCode, 200, `${(listed.body.events[0] as Listed).type} explained by its id: ${res.body.slice(0, 200)}`)
  }
})

t.test('the admin twin: a member\'s list, audited, its ids explained through the admin\'s route', async (t) => {
  const s = await setup(t)
  const url = `/api/admin/users/${USER}/alarm-explanations/recent`
  t.equal((await list(s, 'type=pokemon', s.other, url)).status, 404, 'to a member, another member\'s list does not exist')
  const asAdmin = await list(s, 'type=pokemon', s.admin, url)
  t.equal(asAdmin.status, 200)
  t.same(asAdmin.body.events.map((e) => e.seenAt), (await list(s, 'type=pokemon')).body.events.map((e) => e.seenAt), 'the member\'s own list')
  const id = (asAdmin.body.events[0] as Listed).id
  const explained = await s.app.inject({ method: 'POST', url: `/api/admin/users/${USER}/alarm-explanations`, headers: s.admin, payload: { eventId: id } })
  t.same([explained.statusCode, explained.json().alerted], [200, true])
  t.equal((await s.app.inject({ method: 'POST', url: '/api/alarm-explanations', headers: s.admin, payload: { eventId: id } })).statusCode, 404, 'not about the admin themselves')
  const audit = (await s.app.inject({ url: '/api/admin/audit?action=alarm-explanations.recent', headers: s.admin })).json() as { entries: Array<{ actorId: string, target: string }> }
  t.same(audit.entries.map((e) => [e.actorId, e.target]), [[ADMIN, USER]])
})

t.test('rate-limited per member', async (t) => {
  const s = await setup(t, { EXPLAIN_RATE_MAX: '2' })
  t.same([(await list(s, 'type=pokemon')).status, (await list(s, 'type=pokemon')).status, (await list(s, 'type=pokemon')).status], [200, 200, 429])
  t.equal((await list(s, 'type=pokemon', s.other)).status, 200, 'another member has a window of their own')
})

t.test('no scanner: 501; a scanner that cannot be read: 503 saying so; an engine that fails: its fault status', async (t) => {
  const none = await build(t)
  await seedHuman(none, { id: USER, area: ['centre'] })
  const res = await none.app.inject({ url: '/api/alarm-explanations/recent?type=pokemon', headers: bearer(none.app, { userId: USER }) })
  t.equal(res.statusCode, 501)
  t.match(res.json().error, /no scanner database/)

  const down = await build(t, { env: { SCANNER_DB_HOST: '127.0.0.1', SCANNER_DB_PORT: '9', SCANNER_DB_USER: 'root', SCANNER_DB_NAME: 'nothing_here', ESTIMATE_TIMEOUT_MS: '2000' }, logLevel: 'silent' })
  down.engine.set({ fences: [{ name: 'Centre', path: CENTRE }] })
  await seedHuman(down, { id: USER, area: ['centre'] })
  for (const type of ['pokemon', 'raid']) {
    const answer = await down.app.inject({ url: `/api/alarm-explanations/recent?type=${type}`, headers: bearer(down.app, { userId: USER }) })
    t.equal(answer.statusCode, 503, `${type}: ${answer.body}`)
    t.match(answer.json().error, /scanner's database cannot be read/)
    t.notOk(answer.body.includes('nothing_here') || answer.body.includes('ECONNREFUSED'), 'nothing of the connection in the answer')
  }

  const peer = await startFaultPeer()
  t.teardown(() => peer.close())
  const database = await golbatDatabase()
  const s = await build(t, { env: { PORACLE_API_ADDRESS: peer.url, ENGINE_TIMEOUT_MS: '300', SCANNER_DB_HOST: '127.0.0.1', SCANNER_DB_USER: 'root', SCANNER_DB_NAME: database }, logLevel: 'silent' })
  peer.healthy = s.engine.url
  await seedHuman(s, { id: USER, area: ['centre'] })
  const headers = bearer(s.app, { userId: USER })
  const recent = async () => await s.app.inject({ url: '/api/alarm-explanations/recent?type=pokemon', headers })
  // The engine fake behind the fault peer can take longer than this short ENGINE_TIMEOUT_MS on a busy
  // machine: a timed-out try is repeated, as the engine fault table does.
  let working = await recent()
  for (let tries = 1; tries < 5 && working.statusCode === 504; tries++) working = await recent()
  t.equal(working.statusCode, 200, `the engine working: ${working.body.slice(0, 200)}`)
  for (const [mode, status] of [['stopped', 503], ['garbage', 502], ['hanging', 504]] as const) {
    await peer.setMode(mode)
    // The member read a moment ago is kept a minute: the engine is asked again once that ends.
    s.clock.advance(61_000)
    const answer = await recent()
    t.equal(answer.statusCode, status, `${mode}: ${answer.body.slice(0, 120)}`)
  }
})
