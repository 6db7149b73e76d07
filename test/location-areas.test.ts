import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, bearer, seedHuman, type BuildOptions, type Test, type TestApp } from './helper.js'
import { insertProfile, type SeedHuman } from './fakes/engine-db.js'
import { siteSettings } from '../db/schema/service.js'

const USER = '444444444444444444'
const FENCES = [
  { name: 'Town', path: [[51, 7], [51, 7.2], [51.2, 7.2], [51.2, 7]] as Array<[number, number]> },
  { name: 'Village', group: 'South', description: 'Down south', path: [[48, 9], [48, 9.5], [49, 9.5], [49, 9]] as Array<[number, number]> },
  { name: 'Hidden', userSelectable: false, path: [[40, 1], [40, 2], [41, 2], [41, 1]] as Array<[number, number]> }
]

interface Setup extends TestApp {
  headers: { authorization: string }
  sql: <T = Array<Record<string, any>>>(query: string, values?: unknown[]) => Promise<T>
}

async function setup (t: Test, options: BuildOptions & { seed?: Partial<SeedHuman> } = {}): Promise<Setup> {
  const testApp = await build(t, options)
  testApp.engine.set({ fences: FENCES })
  await seedHuman(testApp, { id: USER, area: ['town'], latitude: 51.1, longitude: 7.1, ...options.seed })
  const sql = <T>(query: string, values: unknown[] = []) => testApp.app.engineDb.pool.query(query, values) as Promise<T>
  return Object.assign(testApp, { headers: bearer(testApp.app, { userId: USER }), sql })
}

const human = async (s: Setup) => (await s.sql('SELECT * FROM humans WHERE id = ?', [USER]))[0] as Record<string, any>
const profile = async (s: Setup, profileNo: number) => (await s.sql('SELECT * FROM profiles WHERE id = ? AND profile_no = ?', [USER, profileNo]))[0] as Record<string, any>
const close = (a: unknown, b: number) => Math.abs(Number(a) - b) < 1e-5

async function setSetting (app: FastifyInstance, key: string, value: string): Promise<void> {
  await app.db.db.insert(siteSettings).values({ key, value }).onDuplicateKeyUpdate({ set: { value } })
  app.siteSettings.evict(key)
}

t.test('location: the active profile\'s pin, written to the human and the profile', async (t) => {
  const s = await setup(t)
  const { app, headers, engine } = s
  await insertProfile(app.engineDb.pool, { id: USER, profileNo: 2, name: 'Away', latitude: 48.5, longitude: 9.25 })

  const read = await app.inject({ method: 'GET', url: '/api/location', headers })
  t.equal(read.statusCode, 200)
  t.ok(close(read.json().latitude, 51.1) && close(read.json().longitude, 7.1), 'profile 1\'s pin')

  t.equal((await app.inject({ method: 'PUT', url: '/api/profiles/switch/2', headers })).statusCode, 200)
  const written = await app.inject({ method: 'PUT', url: '/api/location', headers, payload: { latitude: 52.52, longitude: 13.405 } })
  t.equal(written.statusCode, 200)
  t.same(written.json(), { latitude: 52.52, longitude: 13.405 })
  t.ok(engine.requests.some((r) => r.path === `/api/humans/${USER}/setLocation/52.52/13.405`), 'through the engine')
  t.ok(close((await human(s)).latitude, 52.52), 'humans row')
  t.ok(close((await profile(s, 2)).latitude, 52.52), 'and the active profile row')
  t.ok(close((await profile(s, 1)).latitude, 51.1), 'the other profile keeps its pin')
  const again = await app.inject({ method: 'GET', url: '/api/location', headers })
  t.ok(close(again.json().latitude, 52.52))

  engine.set({ areaSecurity: true })
  await s.sql('UPDATE humans SET area_restriction = ? WHERE id = ?', ['["town"]', USER])
  const outside = await app.inject({ method: 'PUT', url: '/api/location', headers, payload: { latitude: 10, longitude: 10 } })
  t.equal(outside.statusCode, 403, 'the engine refuses a pin outside the permitted areas')
  t.match(outside.json().error, /not permitted/)
})

t.test('location on PoracleJS for a user without a profile row', async (t) => {
  const s = await setup(t, { engineMode: 'js', seed: { profileName: null, latitude: 50.5, longitude: 6.5 } })
  const read = await s.app.inject({ method: 'GET', url: '/api/location', headers: s.headers })
  t.equal(read.statusCode, 200)
  t.ok(close(read.json().latitude, 50.5), 'the human\'s pin')
})

t.test('saved places are not offered; the language is', async (t) => {
  const s = await setup(t)
  const { app, headers, engine } = s
  for (const [method, url, payload] of [['GET', '/api/location/places'], ['POST', '/api/location/places', { label: 'Home', latitude: 1, longitude: 2 }], ['DELETE', '/api/location/places/Home']] as const) {
    const res = await app.inject({ method, url, headers, ...(payload ? { payload } : {}) })
    t.equal(res.statusCode, 501, `${method} ${url}`)
    t.match(res.json().error, /Saved places are not supported/)
  }

  t.same((await app.inject({ method: 'GET', url: '/api/location/language', headers })).json(), { language: null })
  const set = await app.inject({ method: 'PUT', url: '/api/location/language', headers, payload: { language: 'pt-br' } })
  t.equal(set.statusCode, 200)
  t.same(set.json(), { language: 'pt-br' })
  t.equal((await human(s)).language, 'pt-br', 'humans.language written directly')
  t.same(engine.reloads, ['reload'], 'then the engine reloaded')
  t.same((await app.inject({ method: 'GET', url: '/api/location/language', headers })).json(), { language: 'pt-br' })

  engine.failWith({ path: '/api/reload', times: 1 })
  const failed = await app.inject({ method: 'PUT', url: '/api/location/language', headers, payload: { language: 'de' } })
  t.equal(failed.statusCode, 502, 'the engine\'s 500 on the reload is a bad gateway')
  t.same(failed.json(), { error: 'The alarm engine sent an answer this service cannot use. Please try again later.' })
  t.equal((await human(s)).language, 'pt-br', 'taken back when the engine could not reload')

  await s.sql('DELETE FROM humans')
  const gone = await app.inject({ method: 'PUT', url: '/api/location/language', headers, payload: { language: 'de' } })
  t.equal(gone.statusCode, 404, 'an unknown user')
})

t.test('areas: lower-cased, written to the human and the active profile, read back', async (t) => {
  const s = await setup(t)
  const { app, headers, engine } = s
  await insertProfile(app.engineDb.pool, { id: USER, profileNo: 2, name: 'Away', area: ['village'] })

  t.same((await app.inject({ method: 'GET', url: '/api/areas', headers })).json(), ['town'])
  const available = await app.inject({ method: 'GET', url: '/api/areas/available', headers })
  t.same(available.json(), [
    { name: 'Town', group: '', description: '', userSelectable: true },
    { name: 'Village', group: 'South', description: 'Down south', userSelectable: true },
    { name: 'Hidden', group: '', description: '', userSelectable: false }
  ])

  const put = await app.inject({ method: 'PUT', url: '/api/areas', headers, payload: { areas: ['Village', ' TOWN ', 'Nowhere', 'village', 'Hidden'] } })
  t.equal(put.statusCode, 200)
  t.same(put.json(), ['village', 'town'], 'what the engine kept: unknown and not selectable names are dropped')
  const sent = engine.requests.find((r) => r.path === `/api/humans/${USER}/setAreas`)
  t.same(sent?.body, ['village', 'town', 'nowhere', 'hidden'], 'sent lower-cased and de-duplicated')
  t.equal((await human(s)).area, '["village","town"]', 'humans.area')
  t.equal((await profile(s, 1)).area, '["village","town"]', 'and the active profile\'s area')
  t.equal((await profile(s, 2)).area, '["village"]', 'not the other profile')

  t.equal((await app.inject({ method: 'PUT', url: '/api/profiles/switch/2', headers })).statusCode, 200)
  t.same((await app.inject({ method: 'GET', url: '/api/areas', headers })).json(), ['village'], 'the selection follows the active profile')
  t.same((await app.inject({ method: 'PUT', url: '/api/areas', headers, payload: { areas: [] } })).json(), [])
  t.same([(await human(s)).area, (await profile(s, 2)).area, (await profile(s, 1)).area], ['[]', '[]', '["village","town"]'])
})

t.test('gates: areas writes and the location, not the language', async (t) => {
  const s = await setup(t)
  const { app, headers } = s
  await setSetting(app, 'disable_areas', 'true')
  await setSetting(app, 'disable_location', 'true')
  const put = await app.inject({ method: 'PUT', url: '/api/areas', headers, payload: { areas: ['town'] } })
  t.equal(put.statusCode, 403)
  t.same(put.json(), { error: 'This feature is disabled by the administrator.', disableKey: 'disable_areas' })
  t.equal((await app.inject({ method: 'GET', url: '/api/areas', headers })).statusCode, 200, 'reads stay open')
  t.equal((await app.inject({ method: 'GET', url: '/api/areas/available', headers })).statusCode, 200)
  for (const [method, url, payload] of [['GET', '/api/location'], ['PUT', '/api/location', { latitude: 1, longitude: 1 }], ['GET', '/api/location/places'], ['POST', '/api/location/places', { label: 'x', latitude: 1, longitude: 1 }], ['DELETE', '/api/location/places/x']] as const) {
    const res = await app.inject({ method, url, headers, ...(payload ? { payload } : {}) })
    t.equal(res.statusCode, 403, `${method} ${url}`)
    t.equal(res.json().disableKey, 'disable_location')
  }
  t.equal((await app.inject({ method: 'GET', url: '/api/location/language', headers })).statusCode, 200, 'the language is not a location')
  t.equal((await app.inject({ method: 'PUT', url: '/api/location/language', headers, payload: { language: 'de' } })).statusCode, 200)
})

t.test('PoracleJS does not enforce selectable areas', async (t) => {
  const s = await setup(t, { engineMode: 'js' })
  const put = await s.app.inject({ method: 'PUT', url: '/api/areas', headers: s.headers, payload: { areas: ['HIDDEN', 'town'] } })
  t.same(put.json(), ['hidden', 'town'], 'the answer is what the engine stored, not what the service assumed')
})

t.test('bad input is a 400 with details and reaches no engine', async (t) => {
  const s = await setup(t)
  const { app, headers, engine } = s
  engine.reset()
  const cases: Array<[string, string, unknown?]> = [
    ['PUT', '/api/location', { latitude: 91, longitude: 0 }],
    ['PUT', '/api/location', { latitude: 0, longitude: -180.5 }],
    ['PUT', '/api/location', { latitude: '52', longitude: 13 }],
    ['PUT', '/api/location', { latitude: 52 }],
    ['PUT', '/api/location', { latitude: 52, longitude: 13, zoom: 4 }],
    ['POST', '/api/location/places', { label: '', latitude: 1, longitude: 1 }],
    ['POST', '/api/location/places', { label: 'x', latitude: 100, longitude: 1 }],
    ['DELETE', '/api/location/places/' + 'x'.repeat(65)],
    ['PUT', '/api/location/language', { language: 'english please' }],
    ['PUT', '/api/location/language', { language: 5 }],
    ['PUT', '/api/location/language', { language: null }],
    ['PUT', '/api/location/language', {}],
    ['PUT', '/api/areas', { areas: 'town' }],
    ['PUT', '/api/areas', { areas: [null] }],
    ['PUT', '/api/areas', { areas: [1] }],
    ['PUT', '/api/areas', { areas: ['x'.repeat(256)] }],
    ['PUT', '/api/areas', {}]
  ]
  for (const [method, url, payload] of cases) {
    const res = await app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) })
    t.equal(res.statusCode, 400, `${method} ${url.slice(0, 40)} ${JSON.stringify(payload)}`)
    t.ok(Array.isArray(res.json().details) && res.json().details.length > 0, 'with details')
  }
  t.same(engine.requests, [], 'the engine heard nothing')
})

t.test('engine down, slow or talking garbage', async (t) => {
  const s = await setup(t, { env: { ENGINE_TIMEOUT_MS: '300' } })
  const { app, headers, engine } = s
  engine.hang()
  const slow = await app.inject({ method: 'GET', url: '/api/location', headers })
  t.equal(slow.statusCode, 504)
  t.same(slow.json(), { error: 'The alarm engine timed out after 300 ms.' })
  engine.reset()

  engine.failWith({ drop: true })
  const dropped = await app.inject({ method: 'GET', url: '/api/areas/available', headers })
  t.equal(dropped.statusCode, 503)
  t.same(dropped.json(), { error: 'The alarm engine is unreachable.' })
  engine.reset()

  engine.failWith({ status: 200, body: '{"areas":', contentType: 'application/json' })
  const garbage = await app.inject({ method: 'PUT', url: '/api/areas', headers, payload: { areas: ['town'] } })
  t.equal(garbage.statusCode, 502)
  t.same(garbage.json(), { error: 'The alarm engine sent an answer this service cannot use. Please try again later.' })
})

t.test('static maps of a pin and of a distance come from the engine; none is a 404', async (t) => {
  const s = await build(t)
  await seedHuman(s, { id: '111111111111111111' })
  const headers = bearer(s.app, { userId: '111111111111111111' })
  const get = (url: string) => s.app.inject({ method: 'GET', url, headers })
  t.equal((await get('/api/location/staticmap?lat=51.1&lon=7.1')).statusCode, 404, 'an engine without a tile server has no map')
  s.engine.set({ staticMaps: true })
  const pin = await get('/api/location/staticmap?lat=51.1&lon=7.1')
  t.equal(pin.statusCode, 200)
  t.match(pin.json(), { url: /\/staticmap\/location-51\.1-7\.1\.png$/ })
  const circle = await get('/api/location/distancemap?lat=51.1&lon=7.1&distance=2000')
  t.match(circle.json(), { url: /\/staticmap\/distance-51\.1-7\.1-2000\.png$/ })
  for (const bad of ['/api/location/staticmap?lat=91&lon=0', '/api/location/staticmap?lat=1', '/api/location/distancemap?lat=1&lon=1&distance=-5', '/api/location/distancemap?lat=1&lon=1&distance=x']) {
    t.equal((await get(bad)).statusCode, 400, bad)
  }
  await s.app.db.db.insert(siteSettings).values({ key: 'disable_location', value: 'true' })
  s.app.siteSettings.evict('disable_location')
  t.equal((await get('/api/location/staticmap?lat=51.1&lon=7.1')).statusCode, 403, 'gated with the location')
})
