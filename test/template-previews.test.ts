import t from 'tap'
import type { LightMyRequestResponse } from 'fastify'
import { bearer, build, seedHuman, type TestApp } from './helper.js'
import { ALARM_TABLES } from './fakes/engine-db.js'

/**
 * POST /api/template-previews/{type}: the engine renders one of its templates for a sample inside the
 * alarm's filters, on the member's platform and in their language (PoracleNG's /api/dts/enrich and
 * /api/dts/render, as the engine fake implements them after alarm-engine.md 1.2). Nothing is delivered.
 */

type Row = Record<string, unknown>

const USER = '300000000000000001'
const TELEGRAM_USER = '300000000000000002'
/** Members of their own, so no test spends another's rate-limit budget. */
const TYPES_USER = '300000000000000003'
const INPUT_USER = '300000000000000004'
const LIMIT_USER = '300000000000000005'
const TEN_MINUTES = 10 * 60_000

const ng = await build(t, { engineMode: 'ng' })
const js = await build(t, { engineMode: 'js' })

async function fresh (testApp: TestApp): Promise<void> {
  testApp.engine.reset()
  testApp.engine.set({ disabledHooks: [] })
  for (const table of ['humans', 'profiles', ...Object.values(ALARM_TABLES)]) await testApp.app.engineDb.pool.query(`DELETE FROM \`${table}\``)
  await testApp.app.db.pool.query('DELETE FROM site_settings')
  testApp.app.siteSettings.evict()
  testApp.clock.advance(TEN_MINUTES)
  await seedHuman(testApp, { id: USER, latitude: 51.1, longitude: 7.1 })
  await seedHuman(testApp, { id: TELEGRAM_USER, type: 'telegram:user', language: 'de' })
  for (const id of [TYPES_USER, INPUT_USER, LIMIT_USER]) await seedHuman(testApp, { id })
}

async function preview (testApp: TestApp, type: string, body: unknown, userId = USER): Promise<LightMyRequestResponse> {
  return await testApp.app.inject({
    method: 'POST',
    url: `/api/template-previews/${type}`,
    headers: { ...bearer(testApp.app, { userId }), 'content-type': 'application/json' },
    payload: JSON.stringify(body)
  })
}

const dtsCalls = (testApp: TestApp) => testApp.engine.requests.filter((r) => r.path.startsWith('/api/dts/'))
const bodyOf = (testApp: TestApp, path: string): Row => (testApp.engine.requests.filter((r) => r.path === path).at(-1)?.body ?? {}) as Row

t.test('the engine renders its default template for a sample inside the alarm\'s filters, on the member\'s platform', async (t) => {
  await fresh(ng)
  const res = await preview(ng, 'pokemon', { alarm: { pokemon_id: 25, min_iv: 90, atk: 15, min_level: 35, max_cp: 1000 } })
  t.equal(res.statusCode, 200)
  t.same(res.json(), {
    template: '1',
    platform: 'discord',
    language: 'en',
    message: { embed: { title: 'Pikachu', description: 'IV 100% CP 1000 L35', color: 3447003 } }
  })
  const enrich = bodyOf(ng, '/api/dts/enrich')
  t.match(enrich, { type: 'pokemon', language: 'en', platform: 'discord' }, 'the sample is enriched as a pokémon webhook')
  t.match(enrich.webhook, { pokemon_id: 25, individual_attack: 15 }, 'with values inside the filters')
  t.match(bodyOf(ng, '/api/dts/render'), { type: 'monster', id: '1', platform: 'discord', language: 'en' }, 'and rendered as a monster template')
  t.same(ng.engine.testAlerts, [], 'nothing is delivered')
})

t.test('a Telegram member sees the Telegram template in their language; a chosen template is used', async (t) => {
  await fresh(ng)
  const telegram = await preview(ng, 'raid', { alarm: { pokemon_id: 150, level: 5 } }, TELEGRAM_USER)
  t.equal(telegram.statusCode, 200)
  t.same(telegram.json(), { template: '1', platform: 'telegram', language: 'de', message: { content: 'Mewtwo: Level 5 raid at Test Gym' } })
  t.match(bodyOf(ng, '/api/dts/render'), { type: 'raid', platform: 'telegram', language: 'de' })

  ng.engine.dtsTemplates.push({ id: 'compact', type: 'monster', platform: 'discord', language: 'en', template: { content: '{{name}} {{iv}}%' } })
  const chosen = await preview(ng, 'pokemon', { alarm: { pokemon_id: 1, max_iv: 50 }, template: 'compact' })
  t.equal(chosen.statusCode, 200)
  t.match(chosen.json(), { template: 'compact', message: { content: /^Bulbasaur (\d+(\.\d)?)%$/ } })
  const iv = Number(/(\d+(\.\d)?)%$/.exec((chosen.json() as { message: { content: string } }).message.content)?.[1])
  t.ok(iv <= 50, `the sample's IV (${iv}) is inside max_iv 50`)

  const fromAlarm = await preview(ng, 'pokemon', { alarm: { pokemon_id: 1, template: 'compact' } })
  t.match(fromAlarm.json(), { template: 'compact' }, 'the alarm\'s own template when none is chosen')
})

t.test('every previewable type renders with the engine\'s template type for it', async (t) => {
  await fresh(ng)
  const cases: Array<[string, Row, string]> = [
    ['pokemon', { pokemon_id: 4 }, 'monster'],
    ['raid', { level: 5 }, 'raid'],
    ['egg', { level: 3 }, 'egg'],
    ['quest', { reward_type: 3, reward: 1000 }, 'quest'],
    ['invasion', { grunt_type: 'fire' }, 'invasion'],
    ['lure', { lure_id: 504 }, 'lure'],
    ['gym', { team: 2 }, 'gym']
  ]
  for (const [type, alarm, templateType] of cases) {
    const res = await preview(ng, type, { alarm }, TYPES_USER)
    t.equal(res.statusCode, 200, type)
    t.match(bodyOf(ng, '/api/dts/enrich'), { type }, `${type}: enriched as ${type}`)
    t.match(bodyOf(ng, '/api/dts/render'), { type: templateType }, `${type}: rendered as ${templateType}`)
  }
})

t.test('one rendering is reused for a minute', async (t) => {
  await fresh(ng)
  const body = { alarm: { pokemon_id: 7 } }
  t.equal((await preview(ng, 'pokemon', body)).statusCode, 200)
  t.equal((await preview(ng, 'pokemon', body)).statusCode, 200)
  t.equal(dtsCalls(ng).length, 2, 'one enrich and one render for two identical previews')
  ng.clock.advance(61_000)
  t.equal((await preview(ng, 'pokemon', body)).statusCode, 200)
  t.equal(dtsCalls(ng).length, 4, 'rendered again after a minute')
})

t.test('bad input is a 400 that reaches no engine; unknown and unrenderable types are 404s', async (t) => {
  await fresh(ng)
  const bad: Array<[string, unknown]> = [
    ['pokemon', { alarm: { pokemon_id: 25, min_iv: 200 } }],
    ['pokemon', { alarm: { unknown_field: 1 } }],
    ['pokemon', { template: '' }],
    ['pokemon', { template: 'x'.repeat(65) }],
    ['pokemon', { extra: true }],
    ['raid', { alarm: { level: 'five' } }],
    ['pokemon', []]
  ]
  for (const [type, body] of bad) {
    const res = await preview(ng, type, body, INPUT_USER)
    t.equal(res.statusCode, 400, JSON.stringify(body))
    t.type((res.json() as { error: unknown }).error, 'string')
  }
  for (const type of ['nest', 'fort', 'maxbattle', 'nothing']) t.equal((await preview(ng, type, {}, INPUT_USER)).statusCode, 404, type)
  t.same(dtsCalls(ng), [], 'the engine was never asked')
  const anonymous = await ng.app.inject({ method: 'POST', url: '/api/template-previews/pokemon', headers: { 'content-type': 'application/json' }, payload: '{}' })
  t.equal(anonymous.statusCode, 401)
})

t.test('a template the engine does not have is a 404 naming it; a failed render is a 502 that leaks nothing', async (t) => {
  await fresh(ng)
  const missing = await preview(ng, 'pokemon', { template: 'nope' })
  t.equal(missing.statusCode, 404)
  t.same(missing.json(), { error: 'The alarm engine has no template "nope" for pokemon alerts on discord.' })

  ng.engine.dtsTemplates.push({ id: 'broken', type: 'monster', platform: 'discord', language: 'en', template: '{"content": {{name}}' })
  const broken = await preview(ng, 'pokemon', { template: 'broken' })
  t.equal(broken.statusCode, 502)
  t.notMatch(broken.body, /valid JSON|rendered template/, 'the engine\'s words stay in the log')

  ng.engine.failWith({ drop: true, path: /^\/api\/dts\// })
  t.equal((await preview(ng, 'pokemon', { template: 'other' })).statusCode, 503, 'engine unreachable')
})

t.test('the type\'s switch closes its previews; PoracleJS has no template API (501)', async (t) => {
  await fresh(ng)
  const admin = bearer(ng.app, { userId: TELEGRAM_USER, isAdmin: true })
  await ng.app.inject({ method: 'PUT', url: '/api/settings/disable_mons', headers: admin, payload: { value: 'true' } })
  const closed = await preview(ng, 'pokemon', {})
  t.equal(closed.statusCode, 403)
  t.match(closed.json(), { disableKey: 'disable_mons' })
  t.equal((await preview(ng, 'raid', {})).statusCode, 200, 'other types stay open')

  await fresh(js)
  const res = await preview(js, 'pokemon', {})
  t.equal(res.statusCode, 501)
  t.match(res.json(), { error: /PoracleJS/ })
})

t.test('30 previews a minute per member', async (t) => {
  await fresh(ng)
  const statuses: number[] = []
  for (let i = 0; i < 31; i++) statuses.push((await preview(ng, 'pokemon', { alarm: { pokemon_id: 25 } }, LIMIT_USER)).statusCode)
  t.same(statuses, [...Array<number>(30).fill(200), 429], 'the 31st is refused')
  t.equal((await preview(ng, 'pokemon', { alarm: { pokemon_id: 1 } }, TYPES_USER)).statusCode, 200, 'another member keeps their own budget')
})
