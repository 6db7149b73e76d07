import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, bearer, seedHuman, type BuildOptions, type Test, type TestApp } from './helper.js'
import { ALARM_TABLES, insertAlarm, insertProfile, type EngineAlarmType } from './fakes/engine-db.js'
import { siteSettings } from '../db/schema/service.js'
import { toTransferAlarm } from '../schemas/profiles.js'

const USER = '333333333333333333'
const FENCES = [
  { name: 'Town', path: [[51, 7], [51, 7.2], [51.2, 7.2], [51.2, 7]] as Array<[number, number]> },
  { name: 'Village', path: [[48, 9], [48, 9.5], [49, 9.5], [49, 9]] as Array<[number, number]> }
]

interface Setup extends TestApp {
  headers: { authorization: string }
  sql: <T = Array<Record<string, any>>>(query: string, values?: unknown[]) => Promise<T>
}

async function setup (t: Test, options: BuildOptions = {}): Promise<Setup> {
  const testApp = await build(t, options)
  testApp.engine.set({ fences: FENCES })
  await seedHuman(testApp, { id: USER, area: ['town'], latitude: 51.1, longitude: 7.1 })
  const sql = <T>(query: string, values: unknown[] = []) => testApp.app.engineDb.pool.query(query, values) as Promise<T>
  return Object.assign(testApp, { headers: bearer(testApp.app, { userId: USER }, 30), sql })
}

/** One alarm of every type PoracleNG has, in profile `profileNo`. */
async function seedEveryType (app: FastifyInstance, profileNo: number, types: EngineAlarmType[] = Object.keys(ALARM_TABLES) as EngineAlarmType[]): Promise<void> {
  const rows: Record<EngineAlarmType, Record<string, unknown>> = {
    pokemon: { pokemon_id: 25, min_iv: 90, clean: 1, override_areas: '["town"]' },
    raid: { level: 5, team: 2 },
    egg: { level: 3, gym_id: 'gym-1' },
    quest: { reward_type: 3, reward: 1000 },
    invasion: { grunt_type: 'fire', gender: 2 },
    lure: { lure_id: 501 },
    nest: { pokemon_id: 1, min_spawn_avg: 5 },
    gym: { team: 1, slot_changes: 1, template: '2' },
    fort: { fort_type: 'pokestop', change_types: '["name","location"]', include_empty: 1, template: '1' },
    maxbattle: { level: 3, gmax: 1, template: '1' }
  }
  for (const type of types) await insertAlarm(app.engineDb.pool, type, { id: USER, profile_no: profileNo, ...rows[type] })
}

/** The alarms of a profile in the transfer format, per type. */
async function alarmsOf (s: Setup, profileNo: number, types: EngineAlarmType[] = Object.keys(ALARM_TABLES) as EngineAlarmType[]): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {}
  for (const type of types) {
    const rows = await s.sql(`SELECT * FROM \`${ALARM_TABLES[type]}\` WHERE id = ? AND profile_no = ? ORDER BY uid`, [USER, profileNo])
    out[type] = rows.map((row) => toTransferAlarm(type, row))
  }
  return out
}

const profileNumbers = async (s: Setup) => (await s.sql('SELECT profile_no FROM profiles WHERE id = ? ORDER BY profile_no', [USER])).map((r) => r.profile_no)
const human = async (s: Setup) => (await s.sql('SELECT * FROM humans WHERE id = ?', [USER]))[0] as Record<string, any>
const alarmCount = async (s: Setup) => {
  let n = 0
  for (const table of Object.values(ALARM_TABLES)) n += Number((await s.sql<Array<{ n: number }>>(`SELECT COUNT(*) AS n FROM \`${table}\` WHERE id = ?`, [USER]))[0]?.n)
  return n
}
const decode = (app: FastifyInstance, token: string) => app.jwt.decode<{ exp: number, profileNo: string }>(token) as { exp: number, profileNo: string }

t.test('the overview passes the engine\'s view of every profile through', async (t) => {
  const s = await setup(t)
  await insertProfile(s.app.engineDb.pool, { id: USER, profileNo: 2, name: 'Away' })
  await seedEveryType(s.app, 1, ['pokemon', 'raid'])
  await seedEveryType(s.app, 2, ['egg'])
  const res = await s.app.inject({ method: 'GET', url: '/api/profile-overview', headers: s.headers })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.same(body.profile.map((p: { profile_no: number }) => p.profile_no), [1, 2])
  t.equal(body.human.id, USER)
  t.match(body.pokemon, [{ pokemon_id: 25, profile_no: 1, description: /Pikachu/ }])
  t.match(body.egg, [{ level: 3, profile_no: 2 }])
  t.same([body.fort, body.maxbattle], [[], []])
})

t.test('duplicate copies alarm by alarm into a new profile and switches back (PoracleNG)', async (t) => {
  const s = await setup(t)
  const { app, headers, clock, engine } = s
  await seedEveryType(app, 1)
  await insertProfile(app.engineDb.pool, { id: USER, profileNo: 2, name: 'Away', area: ['village'], latitude: 48.5, longitude: 9.25, activeHours: [{ day: 7, hours: 9, mins: 0 }] })
  await seedEveryType(app, 2, ['quest', 'lure'])
  const originalExp = decode(app, headers.authorization.slice(7)).exp
  clock.advance(5 * 60_000)
  engine.reset()

  const res = await app.inject({ method: 'POST', url: '/api/profile-overview/duplicate/1', headers, payload: { name: 'Copy' } })
  t.equal(res.statusCode, 201)
  t.match(res.json(), { alarmsCopied: 10, newProfileNo: 3 })
  const token = decode(app, res.json().token)
  t.same([token.exp, token.profileNo], [originalExp, '1'], 'a token for the profile that is active again, with the original expiry')
  t.same(await alarmsOf(s, 3), await alarmsOf(s, 1), 'every alarm of every type arrived unchanged')
  const posts = engine.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/api/tracking/'))
  t.equal(posts.length, 10, 'one create call per alarm')
  t.ok(posts.every((r) => r.query.silent === 'true' && !Array.isArray(r.body) && !('uid' in (r.body as object)) && !('profile_no' in (r.body as object)) && !('id' in (r.body as object))), 'silent, without uid, profile or owner')
  const switches = engine.requests.filter((r) => r.path.includes('/switchProfile/')).map((r) => r.params.profile)
  t.same(switches, ['3', '1'], 'switched to the new profile and back')
  t.equal((await human(s)).current_profile_no, 1)

  const away = await app.inject({ method: 'POST', url: '/api/profile-overview/duplicate/2', headers, payload: { name: 'Away copy' } })
  t.equal(away.statusCode, 201)
  t.match(away.json(), { alarmsCopied: 2, newProfileNo: 4 })
  const [copy] = await s.sql('SELECT * FROM profiles WHERE id = ? AND profile_no = 4', [USER])
  t.equal(copy?.area, '["village"]', 'the source\'s areas')
  t.ok(Math.abs(Number(copy?.latitude) - 48.5) < 1e-5, 'and location')
  t.same(JSON.parse(String(copy?.active_hours)), [{ day: 7, hours: 9, mins: 0 }], 'and schedule')
  const after = await human(s)
  t.same([after.current_profile_no, after.area], [1, '["town"]'], 'the active profile is untouched')
})

t.test('a failure half-way deletes the new profile and switches back', async (t) => {
  const s = await setup(t)
  const { app, headers, engine } = s
  await seedEveryType(app, 1, ['pokemon', 'raid', 'egg'])
  const before = await alarmCount(s)

  engine.failWith({ path: `/api/tracking/raid/${USER}`, times: 1 })
  const res = await app.inject({ method: 'POST', url: '/api/profile-overview/duplicate/1', headers, payload: { name: 'Copy' } })
  t.equal(res.statusCode, 502)
  t.same(await profileNumbers(s), [1], 'the new profile is gone')
  t.equal(await alarmCount(s), before, 'with the alarms copied before the failure')
  t.equal((await human(s)).current_profile_no, 1, 'and the user is back on the active profile')
  const order = engine.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path.replace(`/${USER}`, '')}`)
  t.match(order.slice(-2), ['POST /api/humans/switchProfile/1', 'DELETE /api/profiles/byProfileNo/2'], 'undone newest first')

  engine.failWith({ path: `/api/humans/${USER}/switchProfile/1`, times: 1 })
  const lastStep = await app.inject({ method: 'POST', url: '/api/profile-overview/duplicate/1', headers, payload: { name: 'Copy' } })
  t.equal(lastStep.statusCode, 502, 'the switch back is part of the operation too')
  t.same(await profileNumbers(s), [1])
  t.equal((await human(s)).current_profile_no, 1)

  const missing = await app.inject({ method: 'POST', url: '/api/profile-overview/duplicate/7', headers, payload: { name: 'Copy' } })
  t.equal(missing.statusCode, 404)
})

t.test('export and import round trip; names are de-duplicated', async (t) => {
  const s = await setup(t)
  const { app, headers, engine } = s
  await seedEveryType(app, 1)

  const exported = await app.inject({ method: 'GET', url: '/api/profile-overview/export/1', headers })
  t.equal(exported.statusCode, 200)
  const file = exported.json()
  t.match(file, { profileName: 'Default', version: 1 })
  t.same(Object.keys(file.alarms).sort(), Object.keys(ALARM_TABLES).sort())
  t.same(file.alarms.pokemon[0].override_areas, ['town'], 'JSON text columns travel as lists')
  t.same(file.alarms.fort[0].change_types, ['name', 'location'])
  t.notOk('uid' in file.alarms.pokemon[0] || 'id' in file.alarms.pokemon[0] || 'profile_no' in file.alarms.pokemon[0], 'no bookkeeping')

  engine.reset()
  const imported = await app.inject({ method: 'POST', url: '/api/profile-overview/import', headers, payload: file })
  t.equal(imported.statusCode, 201)
  t.match(imported.json(), { alarmsCopied: 10, newProfileNo: 2 })
  const [row] = await s.sql('SELECT name FROM profiles WHERE id = ? AND profile_no = 2', [USER])
  t.equal(row?.name, 'Default (2)', 'the name was taken, so it got a number')
  t.same(await alarmsOf(s, 2), await alarmsOf(s, 1), 'the import recreated every alarm')

  const again = await app.inject({ method: 'POST', url: '/api/profile-overview/import', headers, payload: { ...file, profileName: 'default' } })
  t.equal(again.statusCode, 201)
  t.equal((await s.sql('SELECT name FROM profiles WHERE id = ? AND profile_no = 3', [USER]))[0]?.name, 'default (3)', 'names compare without case')

  const mixedCase = await app.inject({ method: 'POST', url: '/api/profile-overview/import', headers, payload: { profileName: 'Cased', alarms: { Pokemon: [{ Pokemon_ID: 150, MIN_IV: 100 }] } } })
  t.equal(mixedCase.statusCode, 201, 'field names are case-insensitive')
  t.match(await alarmsOf(s, 4, ['pokemon']), { pokemon: [{ pokemon_id: 150, min_iv: 100 }] })

  const [existing] = await s.sql('SELECT uid FROM monsters WHERE id = ? AND profile_no = 1', [USER])
  const echoed = await app.inject({ method: 'POST', url: '/api/profile-overview/import', headers, payload: { profileName: 'Echo', alarms: { pokemon: [{ uid: existing?.uid, id: 'someone', profile_no: 1, pokemon_id: 1 }] } } })
  t.equal(echoed.statusCode, 201)
  t.match(await alarmsOf(s, 5, ['pokemon']), { pokemon: [{ pokemon_id: 1 }] }, 'a uid in the file creates a new alarm')
  t.match(await alarmsOf(s, 1, ['pokemon']), { pokemon: [{ pokemon_id: 25 }] }, 'instead of changing the one it names')
})

t.test('an import is validated as a whole before anything is written', async (t) => {
  const s = await setup(t)
  const { app, headers, engine } = s
  const good = { pokemon: [{ pokemon_id: 25 }], raid: [{ pokemon_id: 9000, level: 5 }] }
  const cases: Array<[string, unknown]> = [
    ['no name', { alarms: good }],
    ['blank name', { profileName: ' ', alarms: good }],
    ['no alarms object', { profileName: 'x' }],
    ['unknown type', { profileName: 'x', alarms: { ...good, weather: [{ condition: 1 }] } }],
    ['required field missing', { profileName: 'x', alarms: { ...good, quest: [{ reward: 1 }] } }],
    ['value out of range', { profileName: 'x', alarms: { pokemon: [{ pokemon_id: 25 }, { pokemon_id: 1, min_iv: 101 }] } }],
    ['number as text', { profileName: 'x', alarms: { pokemon: [{ pokemon_id: '25' }] } }],
    ['unknown field', { profileName: 'x', alarms: { pokemon: [{ pokemon_id: 25, shiny_only: true }] } }],
    ['enum', { profileName: 'x', alarms: { lure: [{ lure_id: 500 }] } }],
    ['field repeated in another case', { profileName: 'x', alarms: { pokemon: [{ pokemon_id: 1, POKEMON_ID: 2 }] } }],
    ['not a list', { profileName: 'x', alarms: { pokemon: { pokemon_id: 1 } } }],
    ['too many', { profileName: 'x', alarms: { pokemon: Array.from({ length: 2001 }, () => ({ pokemon_id: 1 })) } }]
  ]
  engine.reset()
  for (const [what, payload] of cases) {
    const res = await app.inject({ method: 'POST', url: '/api/profile-overview/import', headers, payload: payload as object })
    t.equal(res.statusCode, 400, what)
    t.ok(Array.isArray(res.json().details) && res.json().details.length > 0, `${what}: with details`)
  }
  t.same(engine.requests, [], 'the engine heard nothing')
  t.same(await profileNumbers(s), [1])
  t.equal(await alarmCount(s), 0)

  const badParams = await app.inject({ method: 'GET', url: '/api/profile-overview/export/x', headers })
  t.equal(badParams.statusCode, 400)
  const badName = await app.inject({ method: 'POST', url: '/api/profile-overview/duplicate/1', headers, payload: { name: '' } })
  t.equal(badName.statusCode, 400)
})

t.test('gates and engine generation decide which imports may run', async (t) => {
  t.test('PoracleNG: site and engine switches', async (t) => {
    const s = await setup(t)
    const { app, headers, engine } = s
    await app.db.db.insert(siteSettings).values({ key: 'disable_quests', value: 'true' })
    const site = await app.inject({ method: 'POST', url: '/api/profile-overview/import', headers, payload: { profileName: 'x', alarms: { pokemon: [{ pokemon_id: 1 }], quest: [{ reward_type: 2 }] } } })
    t.equal(site.statusCode, 403)
    t.equal(site.json().disableKey, 'disable_quests')

    engine.set({ disabledHooks: ['lure'] })
    s.clock.advance(5 * 60_000 + 1)
    const upstream = await app.inject({ method: 'POST', url: '/api/profile-overview/import', headers, payload: { profileName: 'x', alarms: { lure: [{ lure_id: 0 }] } } })
    t.equal(upstream.statusCode, 403)
    t.equal(upstream.json().disableKey, 'disable_lures')

    await seedEveryType(app, 1, ['nest'])
    engine.set({ disabledHooks: ['nest'] })
    s.clock.advance(5 * 60_000 + 1)
    const duplicate = await app.inject({ method: 'POST', url: '/api/profile-overview/duplicate/1', headers, payload: { name: 'Copy' } })
    t.equal(duplicate.statusCode, 403)
    t.equal(duplicate.json().disableKey, 'disable_nests')
    t.same(await profileNumbers(s), [1], 'nothing was created')
  })

  t.test('PoracleJS: no fort or max battle alarms; the rest works', async (t) => {
    const s = await setup(t, { engineMode: 'js' })
    const { app, headers } = s
    const fort = await app.inject({ method: 'POST', url: '/api/profile-overview/import', headers, payload: { profileName: 'x', alarms: { pokemon: [{ pokemon_id: 1 }], fort: [{ fort_type: 'gym' }] } } })
    t.equal(fort.statusCode, 501)
    t.match(fort.json().error, /PoracleJS/)
    t.same(await profileNumbers(s), [1])

    await seedEveryType(app, 1, ['pokemon', 'raid', 'quest', 'gym'])
    // PoracleJS has no per-alarm areas.
    await s.sql('UPDATE monsters SET override_areas = NULL')
    const copy = await app.inject({ method: 'POST', url: '/api/profile-overview/duplicate/1', headers, payload: { name: 'Copy' } })
    t.equal(copy.statusCode, 201)
    t.match(copy.json(), { alarmsCopied: 4, newProfileNo: 2 })
    const types: EngineAlarmType[] = ['pokemon', 'raid', 'quest', 'gym']
    t.same(await alarmsOf(s, 2, types), await alarmsOf(s, 1, types), 'PoracleJS got the same alarms')
    t.equal((await human(s)).current_profile_no, 1)

    const exported = (await app.inject({ method: 'GET', url: '/api/profile-overview/export/1', headers })).json()
    const imported = await app.inject({ method: 'POST', url: '/api/profile-overview/import', headers, payload: exported })
    t.equal(imported.statusCode, 201, 'an export of a PoracleJS profile imports there again')
    t.equal(imported.json().alarmsCopied, 4)
  })
})
