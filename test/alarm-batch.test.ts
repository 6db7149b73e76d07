import t from 'tap'
import type { LightMyRequestResponse } from 'fastify'
import { bearer, build, seedHuman, type TestApp } from './helper.js'
import { ALARM_TABLES, insertAlarm, type EngineAlarmType } from './fakes/engine-db.js'

type Row = Record<string, unknown>

const USER = '200000000000000011'
const TEN_MINUTES = 10 * 60_000

const ng = await build(t, { engineMode: 'ng' })
const js = await build(t, { engineMode: 'js' })
const APPS: Array<[string, TestApp]> = [['PoracleNG', ng], ['PoracleJS', js]]

async function fresh (testApp: TestApp): Promise<void> {
  testApp.engine.reset()
  testApp.engine.set({ disabledHooks: [] })
  for (const table of ['humans', 'profiles', ...Object.values(ALARM_TABLES)]) await testApp.app.engineDb.pool.query(`DELETE FROM \`${table}\``)
  testApp.clock.advance(TEN_MINUTES)
  await seedHuman(testApp, { id: USER, latitude: 51.1, longitude: 7.1 })
}

async function call (testApp: TestApp, method: 'POST' | 'PATCH' | 'GET', url: string, payload?: unknown): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = bearer(testApp.app, { userId: USER })
  if (payload !== undefined) headers['content-type'] = 'application/json'
  return testApp.app.inject({ method, url, headers, ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}) })
}

const writes = (testApp: TestApp) => testApp.engine.requests.filter((r) => r.path.startsWith('/api/tracking/') && r.method !== 'GET')

async function rows (testApp: TestApp, type: EngineAlarmType): Promise<Row[]> {
  return testApp.app.engineDb.pool.query(`SELECT * FROM \`${ALARM_TABLES[type]}\` WHERE id = ? ORDER BY uid`, [USER])
}

for (const [name, testApp] of APPS) {
  t.test(`${name}: one batch creates, reports duplicates and refuses bad items, in one engine write`, async (t) => {
    await fresh(testApp)
    await insertAlarm(testApp.app.engineDb.pool, 'pokemon', { id: USER, pokemon_id: 150, min_iv: 90 })
    testApp.engine.requests.length = 0
    const res = await call(testApp, 'POST', '/api/monsters/batch', {
      alarms: [
        { pokemon_id: 25, min_iv: 90 },
        { pokemon_id: 150, min_iv: 90 },
        { pokemon_id: 26, min_iv: 95, max_iv: 80 },
        { POKEMON_ID: 27, min_iv: 90 },
        { pokemon_id: 25, min_iv: 90 }
      ]
    })
    t.equal(res.statusCode, 200, res.body)
    const body = res.json() as { created: number, duplicates: number, refused: number, results: Row[] }
    t.match(body, { created: 2, duplicates: 2, refused: 1 })
    t.same(body.results.map((r) => r.status), ['created', 'duplicate', 'refused', 'created', 'duplicate'])
    t.match(body.results[2], { reason: /max_iv|min_iv/, details: [{ field: '/min_iv' }] })
    t.equal((body.results[0]?.alarm as Row).pokemon_id, 25)
    t.equal((body.results[4]?.alarm as Row).uid, (body.results[0]?.alarm as Row).uid, 'an item repeated in the batch names the one row')
    t.equal(writes(testApp).length, 1, 'one engine write')
    t.same((await rows(testApp, 'pokemon')).map((r) => r.pokemon_id).sort(), [150, 25, 27])
  })

  t.test(`${name}: fifty pokemon alarms are one engine call`, async (t) => {
    await fresh(testApp)
    testApp.engine.requests.length = 0
    const alarms = Array.from({ length: 50 }, (_, i) => ({ pokemon_id: i + 1, min_iv: 90, distance: 500 }))
    const res = await call(testApp, 'POST', '/api/monsters/batch', { alarms })
    t.equal(res.statusCode, 200)
    t.equal((res.json() as Row).created, 50)
    t.equal(writes(testApp).length, 1)
    t.equal((await rows(testApp, 'pokemon')).length, 50)
  })

  t.test(`${name}: an item that would overwrite another alarm is refused, the rest created`, async (t) => {
    await fresh(testApp)
    await insertAlarm(testApp.app.engineDb.pool, 'raid', { id: USER, pokemon_id: 9000, level: 5, team: 4, clean: 0 })
    const res = await call(testApp, 'POST', '/api/raids/batch', { alarms: [{ level: 5, clean: 1 }, { level: 3 }] })
    t.equal(res.statusCode, 200, res.body)
    const results = (res.json() as { results: Row[] }).results
    t.match(results, [{ status: 'refused', reason: /overwrite/ }, { status: 'created' }])
    t.same((await rows(testApp, 'raid')).map((r) => [r.level, r.clean]), [[5, 0], [3, 0]])
  })

  t.test(`${name}: bulk update patches many alarms in one engine write and keeps every other field`, async (t) => {
    await fresh(testApp)
    const pool = testApp.app.engineDb.pool
    const a = await insertAlarm(pool, 'pokemon', { id: USER, pokemon_id: 25, min_iv: 80, max_cp: 2000, template: 'big', distance: 300 })
    const b = await insertAlarm(pool, 'pokemon', { id: USER, pokemon_id: 26, min_level: 20, gender: 2 })
    const other = await insertAlarm(pool, 'pokemon', { id: USER, pokemon_id: 27 })
    testApp.engine.requests.length = 0
    const res = await call(testApp, 'PATCH', '/api/monsters', { uids: [a, b], patch: { min_iv: 95, clean: 1 } })
    t.equal(res.statusCode, 200, res.body)
    t.match(res.json(), { updated: 2, unchanged: 0, refused: 0 })
    t.equal(writes(testApp).length, 1, 'one engine write')
    const stored = await rows(testApp, 'pokemon')
    t.match(stored.find((r) => r.pokemon_id === 25), { min_iv: 95, clean: 1, max_cp: 2000, template: 'big', distance: 300 })
    t.match(stored.find((r) => r.pokemon_id === 26), { min_iv: 95, clean: 1, min_level: 20, gender: 2 })
    t.match(stored.find((r) => r.uid === other), { min_iv: -1, clean: 0 }, 'an alarm outside the selection is untouched')

    const again = await call(testApp, 'PATCH', '/api/monsters', { uids: [a], patch: { min_iv: 95 } })
    t.match(again.json(), { updated: 0, unchanged: 1 })
  })

  t.test(`${name}: bulk update of raids follows their new uids and refuses the change that would collide`, async (t) => {
    await fresh(testApp)
    const pool = testApp.app.engineDb.pool
    const five = await insertAlarm(pool, 'raid', { id: USER, pokemon_id: 9000, level: 5, team: 4, distance: 100 })
    const three = await insertAlarm(pool, 'raid', { id: USER, pokemon_id: 9000, level: 3, team: 4, distance: 200 })
    const res = await call(testApp, 'PATCH', '/api/raids', { uids: [five, three, 999999], patch: { distance: 1000, template: '2' } })
    t.equal(res.statusCode, 200, res.body)
    const results = (res.json() as { results: Row[] }).results
    t.match(results, [{ uid: five, status: 'updated' }, { uid: three, status: 'updated' }, { uid: 999999, status: 'refused', reason: 'Alarm not found.' }])
    const stored = await rows(testApp, 'raid')
    t.same(stored.map((r) => [r.level, r.distance, String(r.template)]).sort(), [[3, 1000, '2'], [5, 1000, '2']])
    t.same(results.slice(0, 2).map((r) => (r.alarm as Row).uid).sort(), stored.map((r) => r.uid).sort(), 'answers carry the uids now stored')

    const levels = await call(testApp, 'PATCH', '/api/raids', { uids: stored.map((r) => r.uid), patch: { level: 5 } })
    t.match((levels.json() as { results: Row[] }).results.map((r) => r.status).sort(), ['refused', 'unchanged'])
  })
}

t.test('bad batches and patches are a 400 that reaches no engine', async (t) => {
  await fresh(ng)
  ng.engine.requests.length = 0
  const cases: Array<['POST' | 'PATCH', string, unknown]> = [
    ['POST', '/api/monsters/batch', { alarms: [] }],
    ['POST', '/api/monsters/batch', { alarms: [{ min_iv: 90 }] }],
    ['POST', '/api/monsters/batch', { alarms: [{ pokemon_id: 1, nope: 1 }] }],
    ['POST', '/api/monsters/batch', { alarms: [{ pokemon_id: 1, Pokemon_Id: 2 }] }],
    ['POST', '/api/monsters/batch', [{ pokemon_id: 1 }]],
    ['PATCH', '/api/monsters', { uids: [], patch: {} }],
    ['PATCH', '/api/monsters', { uids: [1, 1], patch: {} }],
    ['PATCH', '/api/monsters', { uids: [1], patch: { min_iv: 200 } }],
    ['PATCH', '/api/monsters', { uids: [1], patch: { nope: 1 } }],
    ['PATCH', '/api/monsters', { uids: [1] }]
  ]
  for (const [method, url, body] of cases) {
    const res = await call(ng, method, url, body)
    t.equal(res.statusCode, 400, `${method} ${url} ${JSON.stringify(body)}`)
  }
  t.same(writes(ng), [])
})

t.test('the alarm types carry every min/max pair with its span; the server refuses each pair inverted', async (t) => {
  await fresh(ng)
  const types = (await call(ng, 'GET', '/api/alarm-types')).json() as Array<{ type: string, ranges: Row[] }>
  const pokemon = types.find((d) => d.type === 'pokemon') as { ranges: Row[] }
  t.same(pokemon.ranges.map((r) => r.low), ['min_iv', 'min_level', 'min_cp', 'atk', 'def', 'sta', 'size', 'rarity', 'pvp_ranking_best'])
  t.match(pokemon.ranges[0], { high: 'max_iv', min: -1, max: 100, section: 'primary', unit: '%' })
  t.same(types.find((d) => d.type === 'raid')?.ranges, [])
  for (const range of pokemon.ranges) {
    const res = await call(ng, 'POST', '/api/monsters', { pokemon_id: 1, [range.low as string]: 3, [range.high as string]: 2 })
    t.equal(res.statusCode, 400, `${String(range.low)} above ${String(range.high)}`)
  }
})
