import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, bearer, seedHuman, type BuildOptions, type Test, type TestApp } from './helper.js'
import { insertAlarm, insertProfile } from './fakes/engine-db.js'
import { siteSettings } from '../db/schema/service.js'

const USER = '222222222222222222'
const ORIGINAL_EXP_MINUTES = 30

interface Setup extends TestApp {
  headers: { authorization: string }
  sql: <T = Array<Record<string, any>>>(query: string, values?: unknown[]) => Promise<T>
}

async function setup (t: Test, options: BuildOptions & { seed?: Parameters<typeof seedHuman>[1] } = {}): Promise<Setup> {
  const testApp = await build(t, options)
  await seedHuman(testApp, options.seed ?? { id: USER, area: ['town'], latitude: 51.1, longitude: 7.1 })
  const sql = <T>(query: string, values: unknown[] = []) => testApp.app.engineDb.pool.query(query, values) as Promise<T>
  return Object.assign(testApp, { headers: bearer(testApp.app, { userId: USER }, ORIGINAL_EXP_MINUTES), sql })
}

const profileRows = (s: Setup) => s.sql('SELECT profile_no, name, area, latitude, longitude, active_hours FROM profiles WHERE id = ? ORDER BY profile_no', [USER])
const human = async (s: Setup) => (await s.sql('SELECT * FROM humans WHERE id = ?', [USER]))[0] as Record<string, any>
const decode = (app: FastifyInstance, token: string) => app.jwt.decode<{ exp: number, profileNo: string }>(token) as { exp: number, profileNo: string }
const writes = (s: Setup) => s.engine.requests.filter((r) => r.method !== 'GET' || r.path === '/api/reload')

async function setSetting (app: FastifyInstance, key: string, value: string): Promise<void> {
  await app.db.db.insert(siteSettings).values({ key, value }).onDuplicateKeyUpdate({ set: { value } })
  app.siteSettings.evict(key)
}

t.test('profile CRUD through the engine (PoracleNG)', async (t) => {
  const s = await setup(t)
  const { app, headers } = s

  const list = await app.inject({ method: 'GET', url: '/api/profiles', headers })
  t.equal(list.statusCode, 200)
  t.same(list.json(), [{ id: USER, profileNo: 1, name: 'Default', area: '["town"]', latitude: list.json()[0].latitude, longitude: list.json()[0].longitude, active: true, activeHours: '[]' }])
  t.ok(Math.abs(list.json()[0].latitude - 51.1) < 1e-5, 'the engine\'s float noise is passed through')

  const work = await app.inject({ method: 'POST', url: '/api/profiles', headers, payload: { name: 'Work', activeHours: [{ day: 1, hours: 8, mins: 0 }] } })
  t.equal(work.statusCode, 201)
  t.match(work.json(), { profileNo: 2, name: 'Work', area: '["town"]', active: false })
  t.same(JSON.parse(work.json().activeHours), [{ day: 1, hours: 8, mins: 0 }], 'active hours went through the engine')

  const evening = await app.inject({ method: 'POST', url: '/api/profiles', headers, payload: { name: 'Evening', activeHours: '[{"day":"2","hours":"18","mins":"30"}]' } })
  t.equal(evening.statusCode, 201, 'active hours as JSON text with numeric strings')
  t.same(JSON.parse(evening.json().activeHours), [{ day: 2, hours: 18, mins: 30 }], 'sent to the engine as numbers')
  t.equal(evening.json().profileNo, 3, 'the number the engine chose, found by comparing the lists')

  const renamed = await app.inject({ method: 'PUT', url: '/api/profiles/2', headers, payload: { name: 'Office' } })
  t.equal(renamed.statusCode, 200)
  t.equal(renamed.json().name, 'Office')
  t.equal((await profileRows(s))[1]?.name, 'Office', 'written to profiles.name')
  t.same(s.engine.reloads, ['reload'], 'and the engine was told to reload')

  const hours = await app.inject({ method: 'PUT', url: '/api/profiles/2', headers, payload: { activeHours: null } })
  t.equal(hours.statusCode, 200)
  t.same(JSON.parse(hours.json().activeHours), [], 'null clears the schedule')
  t.same(s.engine.reloads, ['reload'], 'no reload without a rename')
  t.ok(s.engine.requests.some((r) => r.path === `/api/profiles/${USER}/update`), 'active hours through the engine\'s update')

  t.equal((await app.inject({ method: 'DELETE', url: '/api/profiles/3', headers })).statusCode, 204)
  t.same((await profileRows(s)).map((r) => r.profile_no), [1, 2])

  for (const [method, url] of [['PUT', '/api/profiles/9'], ['DELETE', '/api/profiles/9'], ['PUT', '/api/profiles/switch/9']] as const) {
    const res = await app.inject({ method, url, headers, ...(method === 'PUT' && !url.includes('switch') ? { payload: { name: 'x' } } : {}) })
    t.equal(res.statusCode, 404, `${method} ${url}`)
    t.match(res.json(), { error: /not found/i })
  }

  t.equal((await app.inject({ method: 'DELETE', url: '/api/profiles/1', headers })).statusCode, 204)
  const last = await app.inject({ method: 'DELETE', url: '/api/profiles/2', headers })
  t.equal(last.statusCode, 409, 'the last profile stays')
  t.same((await profileRows(s)).map((r) => r.profile_no), [2])
  t.equal((await human(s)).current_profile_no, 2, 'PoracleNG moved the user off the deleted active profile itself')
})

t.test('switching re-issues the token with the original expiry', async (t) => {
  const s = await setup(t)
  const { app, headers, clock } = s
  await insertProfile(app.engineDb.pool, { id: USER, profileNo: 2, name: 'Away', area: ['village'], latitude: 48.5, longitude: 9.25 })
  const original = decode(app, headers.authorization.slice('Bearer '.length))
  clock.advance(10 * 60_000)

  const res = await app.inject({ method: 'PUT', url: '/api/profiles/switch/2', headers })
  t.equal(res.statusCode, 200)
  t.match(res.json().profile, { profileNo: 2, name: 'Away', active: true })
  const token = decode(app, res.json().token)
  t.equal(token.profileNo, '2', 'the new profile number is in the token')
  t.equal(token.exp, original.exp, 'the expiry did not move')
  const row = await human(s)
  t.equal(row.current_profile_no, 2)
  t.equal(row.area, '["village"]', 'the engine copied the profile\'s areas into the human')

  const me = await app.inject({ method: 'GET', url: '/api/profiles', headers: { authorization: `Bearer ${res.json().token}` } })
  t.same(me.json().map((p: { active: boolean }) => p.active), [false, true], 'the new token works and the list shows the switch')
})

t.test('PoracleJS: a profile-less user, active hours, and deleting the active profile', async (t) => {
  const s = await setup(t, { engineMode: 'js', seed: { id: USER, area: ['town'], latitude: 51.1, longitude: 7.1, profileName: null } })
  const { app, headers } = s
  await insertAlarm(app.engineDb.pool, 'pokemon', { id: USER, pokemon_id: 25 })

  const list = await app.inject({ method: 'GET', url: '/api/profiles', headers })
  t.same(list.json().map((p: { profileNo: number, name: string, active: boolean }) => [p.profileNo, p.name, p.active]), [[1, 'Default', true]], 'a synthetic entry for the implicit profile')

  const created = await app.inject({ method: 'POST', url: '/api/profiles', headers, payload: { name: 'Work', activeHours: [{ day: 3, hours: 7, mins: 15 }] } })
  t.equal(created.statusCode, 201)
  t.equal(created.json().profileNo, 2, 'the implicit profile got its row first and kept number 1')
  t.same((await profileRows(s)).map((r) => [r.profile_no, r.name]), [[1, 'Default'], [2, 'Work']])
  t.same(JSON.parse(created.json().activeHours), [{ day: 3, hours: 7, mins: 15 }], 'set through update, as PoracleJS ignores them on add')

  t.equal((await app.inject({ method: 'PUT', url: '/api/profiles/switch/2', headers })).statusCode, 200)
  t.equal((await human(s)).current_profile_no, 2)
  t.equal((await app.inject({ method: 'DELETE', url: '/api/profiles/2', headers })).statusCode, 204)
  t.equal((await human(s)).current_profile_no, 1, 'switched to a profile that exists after PoracleJS left it on the deleted one')
  const remaining = await app.inject({ method: 'GET', url: '/api/profiles', headers })
  t.same(remaining.json().map((p: { profileNo: number, active: boolean }) => [p.profileNo, p.active]), [[1, true]])
})

t.test('a rename is undone when the engine cannot reload or the schedule write fails', async (t) => {
  const s = await setup(t)
  const { app, headers, engine } = s

  engine.failWith({ path: '/api/reload' })
  const noReload = await app.inject({ method: 'PUT', url: '/api/profiles/1', headers, payload: { name: 'Renamed' } })
  t.equal(noReload.statusCode, 502)
  t.equal((await profileRows(s))[0]?.name, 'Default', 'the direct write was taken back')
  engine.reset()

  engine.failWith({ path: `/api/profiles/${USER}/update`, times: 1 })
  const noHours = await app.inject({ method: 'PUT', url: '/api/profiles/1', headers, payload: { name: 'Renamed', activeHours: [{ day: 1, hours: 1, mins: 1 }] } })
  t.equal(noHours.statusCode, 502)
  t.equal((await profileRows(s))[0]?.name, 'Default', 'the rename was taken back when the second step failed')
  t.same(engine.reloads, ['reload', 'reload'], 'reloaded after the write and after the undo')
})

t.test('duplicate through the engine\'s copy call', async (t) => {
  const s = await setup(t)
  const { app, headers, engine } = s
  engine.set({ fences: [{ name: 'Town', path: [[51, 7], [51, 7.2], [51.2, 7.2], [51.2, 7]] }, { name: 'Village', path: [[48, 9], [48, 9.5], [49, 9.5], [49, 9]] }] })
  await insertAlarm(app.engineDb.pool, 'pokemon', { id: USER, pokemon_id: 25 })
  await insertAlarm(app.engineDb.pool, 'raid', { id: USER, level: 5 })
  await insertProfile(app.engineDb.pool, { id: USER, profileNo: 2, name: 'Away', area: ['village'], latitude: 48.5, longitude: 9.25, activeHours: [{ day: 6, hours: 10, mins: 0 }] })
  await insertAlarm(app.engineDb.pool, 'egg', { id: USER, level: 3, profile_no: 2 })

  const copy = await app.inject({ method: 'POST', url: '/api/profiles/duplicate', headers, payload: { fromProfileNo: 1, name: 'Copy' } })
  t.equal(copy.statusCode, 201)
  t.match(copy.json(), { profileNo: 3, name: 'Copy', area: '["town"]', active: false })
  const counts = async (profileNo: number) => (await s.sql<Array<{ n: number }>>('SELECT (SELECT COUNT(*) FROM monsters WHERE id = ? AND profile_no = ?) + (SELECT COUNT(*) FROM raid WHERE id = ? AND profile_no = ?) + (SELECT COUNT(*) FROM egg WHERE id = ? AND profile_no = ?) AS n', [USER, profileNo, USER, profileNo, USER, profileNo]))[0]?.n
  t.equal(await counts(3), 2, 'the alarms were copied')
  t.equal(await counts(1), 2, 'the source kept its alarms')

  const away = await app.inject({ method: 'POST', url: '/api/profiles/duplicate', headers, payload: { fromProfileNo: 2, name: 'Away again' } })
  t.equal(away.statusCode, 201)
  t.match(away.json(), { profileNo: 4, area: '["village"]', active: false })
  t.ok(Math.abs(away.json().latitude - 48.5) < 1e-5, 'the source\'s location, not the active one\'s')
  t.same(JSON.parse(away.json().activeHours), [{ day: 6, hours: 10, mins: 0 }], 'and its schedule')
  t.equal(await counts(4), 1)
  const after = await human(s)
  t.equal(after.current_profile_no, 1, 'switched back to the active profile')
  t.equal(after.area, '["town"]', 'whose areas are untouched')

  engine.failWith({ path: `/api/profiles/${USER}/copy/1/5`, times: 1 })
  const failed = await app.inject({ method: 'POST', url: '/api/profiles/duplicate', headers, payload: { fromProfileNo: 1, name: 'Broken' } })
  t.equal(failed.statusCode, 502)
  t.same((await profileRows(s)).map((r) => r.profile_no), [1, 2, 3, 4], 'the new profile was deleted again')

  engine.failWith({ path: `/api/humans/${USER}/setLocation/48.5/9.25`, times: 1 })
  const late = await app.inject({ method: 'POST', url: '/api/profiles/duplicate', headers, payload: { fromProfileNo: 2, name: 'Broken' } })
  t.equal(late.statusCode, 502)
  t.same((await profileRows(s)).map((r) => r.profile_no), [1, 2, 3, 4], 'a failure after the switch also removes the profile')
  t.equal((await human(s)).current_profile_no, 1, 'and switches back')

  const missing = await app.inject({ method: 'POST', url: '/api/profiles/duplicate', headers, payload: { fromProfileNo: 9, name: 'Nope' } })
  t.equal(missing.statusCode, 404)
})

t.test('gates: the profiles switch, and alarm types met by a duplicate', async (t) => {
  const s = await setup(t)
  const { app, headers, engine } = s
  await insertAlarm(app.engineDb.pool, 'raid', { id: USER, level: 5 })

  engine.set({ disabledHooks: ['raid'] })
  const engineSide = await app.inject({ method: 'POST', url: '/api/profiles/duplicate', headers, payload: { fromProfileNo: 1, name: 'Copy' } })
  t.equal(engineSide.statusCode, 403)
  t.same(engineSide.json(), { error: 'This feature is disabled by the administrator.', disableKey: 'disable_raids' })
  t.equal((await profileRows(s)).length, 1, 'nothing was created')

  await setSetting(app, 'disable_profiles', 'true')
  const routes = [
    ['GET', '/api/profiles'], ['POST', '/api/profiles', { name: 'x' }], ['PUT', '/api/profiles/1', { name: 'x' }], ['DELETE', '/api/profiles/1'],
    ['PUT', '/api/profiles/switch/1'], ['POST', '/api/profiles/duplicate', { fromProfileNo: 1, name: 'x' }],
    ['GET', '/api/profile-overview'], ['GET', '/api/profile-overview/export/1'], ['POST', '/api/profile-overview/duplicate/1', { name: 'x' }],
    ['POST', '/api/profile-overview/import', { profileName: 'x', alarms: {} }]
  ] as const
  for (const [method, url, payload] of routes) {
    const res = await app.inject({ method, url, headers, ...(payload ? { payload } : {}) })
    t.equal(res.statusCode, 403, `${method} ${url}`)
    t.equal(res.json().disableKey, 'disable_profiles')
  }
})

t.test('bad input is a 400 with details and reaches no engine', async (t) => {
  const s = await setup(t)
  const { app, headers, engine } = s
  engine.reset()
  const cases: Array<[string, string, unknown?]> = [
    ['POST', '/api/profiles', { name: '' }],
    ['POST', '/api/profiles', { name: '   ' }],
    ['POST', '/api/profiles', { name: 'x'.repeat(256) }],
    ['POST', '/api/profiles', { name: 'ok', colour: 'red' }],
    ['POST', '/api/profiles', { name: 5 }],
    ['POST', '/api/profiles', { name: 'ok', activeHours: [{ day: 8, hours: 1, mins: 0 }] }],
    ['POST', '/api/profiles', { name: 'ok', activeHours: [{ day: 1, hours: 1 }] }],
    ['POST', '/api/profiles', { name: 'ok', activeHours: Array.from({ length: 29 }, () => ({ day: 1, hours: 1, mins: 1 })) }],
    ['POST', '/api/profiles', { name: 'ok', activeHours: 'not json' }],
    ['POST', '/api/profiles', { name: 'ok', activeHours: '[{"day":1,"hours":24,"mins":0}]' }],
    ['POST', '/api/profiles', { name: 'ok', activeHours: '{"day":1}' }],
    ['PUT', '/api/profiles/abc', { name: 'x' }],
    ['PUT', '/api/profiles/0', { name: 'x' }],
    ['PUT', '/api/profiles/1', {}],
    ['PUT', '/api/profiles/1', { activeHours: '[{"day":"x","hours":1,"mins":1}]' }],
    ['PUT', '/api/profiles/switch/x'],
    ['DELETE', '/api/profiles/-1'],
    ['DELETE', '/api/profiles/99999999999'],
    ['POST', '/api/profiles/duplicate', { fromProfileNo: '1', name: 'x' }],
    ['POST', '/api/profiles/duplicate', { name: 'x' }]
  ]
  for (const [method, url, payload] of cases) {
    const res = await app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload: payload as object } : {}) })
    t.equal(res.statusCode, 400, `${method} ${url} ${JSON.stringify(payload)?.slice(0, 60)}`)
    t.ok(Array.isArray(res.json().details) && res.json().details.length > 0, 'with details')
  }
  t.same(engine.requests, [], 'the engine heard nothing')
})

t.test('engine down or talking garbage', async (t) => {
  const s = await setup(t, { env: { ENGINE_TIMEOUT_MS: '300' } })
  const { app, headers, engine } = s

  engine.failWith({ status: 200, body: '<html>proxy error</html>', contentType: 'text/html' })
  const garbage = await app.inject({ method: 'GET', url: '/api/profiles', headers })
  t.equal(garbage.statusCode, 502)
  t.same(garbage.json(), { error: 'The alarm engine sent an answer this service cannot use. Please try again later.' }, 'nothing of the answer leaks')
  engine.reset()

  engine.hang()
  const hung = await app.inject({ method: 'POST', url: '/api/profiles', headers, payload: { name: 'Work' } })
  t.equal(hung.statusCode, 504)
  t.match(hung.json().error, /timed out/)
  t.same(writes(s), [], 'nothing was written meanwhile')
  engine.reset()
  t.same((await profileRows(s)).map((r) => r.profile_no), [1])
})

t.test('profile names are unique per user: create, duplicate, copy with alarms and rename answer 409 and change nothing', async (t) => {
  const s = await setup(t)
  const { app, headers } = s
  await insertProfile(app.engineDb.pool, { id: USER, profileNo: 2, name: 'Home (copy)', area: ['town'], latitude: 51.1, longitude: 7.1 })
  const before = await profileRows(s)
  const requestsBefore = writes(s).length

  const attempts = [
    ['POST', '/api/profiles', { name: 'home (COPY)' }],
    ['POST', '/api/profiles/duplicate', { fromProfileNo: 1, name: 'Home (copy)' }],
    ['POST', '/api/profile-overview/duplicate/1', { name: ' Home (copy) ' }],
    ['PUT', '/api/profiles/1', { name: 'Home (copy)' }]
  ] as const
  for (const [method, url, payload] of attempts) {
    const res = await app.inject({ method, url, headers, payload })
    t.equal(res.statusCode, 409, `${method} ${url}`)
    t.match(res.json(), { error: /already have a profile named "Home \(copy\)"/, reason: 'profile_name_taken', details: [{ field: '/name' }] })
  }
  t.same(await profileRows(s), before, 'no profile was added or renamed')
  t.equal(writes(s).length, requestsBefore, 'and the engine was not asked to write')

  const same = await app.inject({ method: 'PUT', url: '/api/profiles/2', headers, payload: { name: 'Home (Copy)' } })
  t.equal(same.statusCode, 200, 'a profile may change the case of its own name')
  t.equal((await profileRows(s))[1]?.name, 'Home (Copy)')
  const other = await app.inject({ method: 'POST', url: '/api/profiles/duplicate', headers, payload: { fromProfileNo: 1, name: 'Home (copy) 2' } })
  t.equal(other.statusCode, 201, 'a free name is accepted')
})

t.test('profiles per member are capped (max_profiles_per_user, 10 by default): every way of adding one answers 409 past it', async (t) => {
  const s = await setup(t)
  const { app, headers } = s
  for (let n = 2; n <= 10; n++) await insertProfile(app.engineDb.pool, { id: USER, profileNo: n, name: `P${n}`, area: ['town'], latitude: 51.1, longitude: 7.1 })
  const before = await profileRows(s)
  t.equal(before.length, 10)
  const attempts = [
    ['POST', '/api/profiles', { name: 'Eleventh' }],
    ['POST', '/api/profiles/duplicate', { fromProfileNo: 1, name: 'Eleventh' }],
    ['POST', '/api/profile-overview/duplicate/1', { name: 'Eleventh' }]
  ] as const
  for (const [method, url, payload] of attempts) {
    const res = await app.inject({ method, url, headers, payload })
    t.equal(res.statusCode, 409, `${method} ${url}`)
    t.match(res.json(), { error: /the most this site allows \(10\)/, reason: 'profile_limit_reached', limit: 10 })
  }
  t.same(await profileRows(s), before, 'nothing was created')

  await setSetting(app, 'max_profiles_per_user', '11')
  t.equal((await app.inject({ method: 'POST', url: '/api/profiles', headers, payload: { name: 'Eleventh' } })).statusCode, 201, 'a raised cap makes room')
  t.equal((await app.inject({ method: 'POST', url: '/api/profiles', headers, payload: { name: 'Twelfth' } })).statusCode, 409)

  const admin = bearer(app, { userId: '100000000000000001', isAdmin: true })
  for (const value of ['0', '101', 'ten', '1.5']) {
    const res = await app.inject({ method: 'PUT', url: '/api/settings/max_profiles_per_user', headers: admin, payload: { value } })
    t.equal(res.statusCode, 400, `cap ${value} refused`)
  }
  t.equal((await app.inject({ method: 'PUT', url: '/api/settings/max_profiles_per_user', headers: admin, payload: { value: '20' } })).statusCode, 200, 'a cap of 20 is taken')
})
