import t from 'tap'
import { bearer, build, seedHuman, type TestApp } from './helper.js'
import { FEATURE_DISABLED_MESSAGE } from '../plugins/edge/errors.js'
import { siteSettings } from '../db/schema/service.js'

const USER = '100000000000000001'
const ADMIN = '100000000000000002'
const FIVE_MINUTES = 5 * 60_000

async function upstream (testApp: TestApp): Promise<{ status: number, body: unknown }> {
  const res = await testApp.app.inject({ method: 'GET', url: '/api/settings/upstream-disabled', headers: bearer(testApp.app, { userId: USER }) })
  return { status: res.statusCode, body: res.json() }
}

const configReads = (testApp: TestApp) => testApp.engine.requests.filter((r) => r.path === '/api/config/poracleWeb').length

t.test('upstream-disabled needs a signed-in user', async (t) => {
  const testApp = await build(t)
  const res = await testApp.app.inject({ method: 'GET', url: '/api/settings/upstream-disabled' })
  t.equal(res.statusCode, 401)
  t.equal(configReads(testApp), 0, 'the engine is not asked for anonymous callers')
})

t.test('maps the engine\'s disabled hooks to sorted site keys and re-reads them after five minutes', async (t) => {
  const testApp = await build(t)
  t.same(await upstream(testApp), { status: 200, body: [] })

  testApp.engine.set({ disabledHooks: ['weather', 'pokemon', 'pokestop', 'maxbattle', 'egg', 'raid'], disableFortUpdate: true })
  t.same((await upstream(testApp)).body, [], 'still the cached answer')
  testApp.clock.advance(FIVE_MINUTES - 1)
  t.same((await upstream(testApp)).body, [], 'cached until five minutes have passed')
  testApp.clock.advance(1)
  t.same((await upstream(testApp)).body, ['disable_fort_changes', 'disable_maxbattles', 'disable_mons', 'disable_raids'],
    'pokestop and weather map to nothing; raid and egg share one key; fort updates come from the config values')
  t.equal(configReads(testApp), 2)

  testApp.engine.set({ disabledHooks: ['quest', 'invasion', 'lure', 'nest', 'gym'], disableFortUpdate: false })
  testApp.clock.advance(FIVE_MINUTES)
  t.same((await upstream(testApp)).body, ['disable_gyms', 'disable_invasions', 'disable_lures', 'disable_nests', 'disable_quests'])
})

t.test('PoracleJS: hooks are read, fort updates are unknown (no config values route)', async (t) => {
  const testApp = await build(t, { engineMode: 'js' })
  testApp.engine.set({ disabledHooks: ['pokemon', 'invasion'], disableFortUpdate: true })
  t.same(await upstream(testApp), { status: 200, body: ['disable_invasions', 'disable_mons'] })
})

t.test('an engine outage fails open, is logged, and is not cached', async (t) => {
  const testApp = await build(t)
  testApp.engine.set({ disabledHooks: ['pokemon'] })
  testApp.engine.failWith({ path: '/api/config/poracleWeb', times: 1 })
  t.same(await upstream(testApp), { status: 200, body: [] }, 'nothing is disabled while the engine cannot say')
  t.ok(testApp.logs.some((l) => l.level === 40 && /disabled alarm types/.test(String(l.msg))), 'a warning is logged')
  t.same((await upstream(testApp)).body, ['disable_mons'], 'the next request asks again')

  testApp.clock.advance(FIVE_MINUTES)
  testApp.engine.failWith({ body: 'not json at all', contentType: 'text/plain', status: 200, path: '/api/config/poracleWeb', times: 1 })
  t.same((await upstream(testApp)).body, [], 'a garbage answer fails open too')
})

t.test('a hanging engine fails open within the engine timeout', async (t) => {
  const testApp = await build(t, { env: { ENGINE_TIMEOUT_MS: '300' } })
  testApp.engine.hang()
  const started = Date.now()
  t.same(await upstream(testApp), { status: 200, body: [] })
  t.ok(Date.now() - started < 2000)
})

t.test('concurrent requests share one engine read', async (t) => {
  const testApp = await build(t)
  testApp.engine.delay(100)
  const answers = await Promise.all(Array.from({ length: 6 }, async () => testApp.app.featureGates.upstreamDisabled()))
  t.same(answers, Array.from({ length: 6 }, () => []))
  t.equal(configReads(testApp), 1)
})

t.test('ensure: the site switch is on only for exactly "true"; admins are not exempt', async (t) => {
  const testApp = await build(t)
  await seedHuman(testApp, { id: USER })
  await seedHuman(testApp, { id: ADMIN })
  const admin = bearer(testApp.app, { userId: ADMIN, isAdmin: true })
  const set = async (value: string) => {
    const res = await testApp.app.inject({ method: 'PUT', url: '/api/settings/disable_mons', headers: admin, payload: { value, category: 'features', valueType: 'boolean' } })
    t.equal(res.statusCode, 200)
  }
  const gates = testApp.app.featureGates

  // The API refuses such values; a row migrated from an older site can still hold one.
  for (const value of ['TRUE', '1', 'yes']) {
    const refused = await testApp.app.inject({ method: 'PUT', url: '/api/settings/disable_mons', headers: admin, payload: { value } })
    t.equal(refused.statusCode, 400, `"${value}" is refused through the API`)
    await testApp.app.db.db.insert(siteSettings).values({ key: 'disable_mons', value }).onDuplicateKeyUpdate({ set: { value } })
    testApp.app.siteSettings.evict('disable_mons')
    t.equal(await gates.isDisabled('disable_mons'), false, `a stored "${value}" does not disable`)
  }
  await set('false')
  t.equal(await gates.isDisabled('disable_mons'), false)
  await set('true')
  t.equal(await gates.isDisabled('disable_mons'), true)
  await t.rejects(gates.ensure('disable_mons'), { statusCode: 403, message: FEATURE_DISABLED_MESSAGE, extra: { disableKey: 'disable_mons' } })
  await t.resolves(gates.ensure('disable_raids'))

  for (const headers of [admin, bearer(testApp.app, { userId: USER })]) {
    const res = await testApp.app.inject({ method: 'GET', url: '/api/monsters', headers })
    t.equal(res.statusCode, 403)
    t.same(res.json(), { error: FEATURE_DISABLED_MESSAGE, disableKey: 'disable_mons' })
  }
})

t.test('ensure: the engine side disables too, and gate() is a route hook', async (t) => {
  const testApp = await build(t, {
    routes: (app) => {
      app.get('/gated', { preHandler: app.featureGates.gate('disable_lures') }, async () => ({ ok: true }))
    }
  })
  t.equal((await testApp.app.inject({ method: 'GET', url: '/gated' })).statusCode, 200)
  testApp.engine.set({ disabledHooks: ['lure'] })
  testApp.clock.advance(FIVE_MINUTES)
  const res = await testApp.app.inject({ method: 'GET', url: '/gated' })
  t.equal(res.statusCode, 403)
  t.same(res.json(), { error: FEATURE_DISABLED_MESSAGE, disableKey: 'disable_lures' })
})
