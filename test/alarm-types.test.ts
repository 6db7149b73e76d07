import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import t from 'tap'
import { bearer, build, seedHuman, type TestApp } from './helper.js'
import type { AlarmTypeDescriptor } from '../schemas/alarm-types.js'

const USER = '100000000000000001'
const ADMIN = '100000000000000002'
const EVERY_TYPE = ['pokemon', 'raid', 'egg', 'quest', 'invasion', 'lure', 'nest', 'gym', 'fort', 'maxbattle']

async function alarmTypes (testApp: TestApp): Promise<AlarmTypeDescriptor[]> {
  const res = await testApp.app.inject({ method: 'GET', url: '/api/alarm-types', headers: bearer(testApp.app, { userId: USER }) })
  t.equal(res.statusCode, 200)
  return res.json()
}
const typesOf = (list: AlarmTypeDescriptor[]) => list.map((d) => d.type)
/** The types members can use, and why each other one is not. */
const offered = (list: AlarmTypeDescriptor[]) => list.filter((d) => d.available).map((d) => d.type)
const reasons = (list: AlarmTypeDescriptor[]) => Object.fromEntries(list.filter((d) => !d.available).map((d) => [d.type, d.reason]))
const fieldOf = (d: AlarmTypeDescriptor | undefined, name: string) => d?.fields.find((f) => f.name === name)

t.test('needs a signed-in user', async (t) => {
  const testApp = await build(t)
  t.equal((await testApp.app.inject({ method: 'GET', url: '/api/alarm-types' })).statusCode, 401)
})

t.test('PoracleNG: all ten types in display order, each field described for a form', async (t) => {
  const testApp = await build(t)
  const list = await alarmTypes(testApp)
  t.same(typesOf(list), EVERY_TYPE)

  const pokemon = list[0]
  t.match(pokemon, { type: 'pokemon', path: '/api/monsters', labelKey: 'alarms.types.pokemon', disableKey: 'disable_mons', dashboardKey: 'monsters', cleaningName: 'monsters', testAlert: true })
  t.match(fieldOf(pokemon, 'pokemon_id'), { kind: 'integer', min: 0, max: 100_000, step: 1, required: true, labelKey: 'alarms.fields.pokemon_id', helpKey: 'alarms.help.pokemon.pokemon_id' })
  t.match(fieldOf(pokemon, 'min_iv'), { kind: 'integer', min: -1, max: 100, unit: '%', default: -1, required: false })
  t.match(fieldOf(pokemon, 'max_iv'), { default: 100 }, 'the spec\'s frontend default')
  t.match(fieldOf(pokemon, 'form'), { kind: 'integer', min: 0, max: 2_147_483_647 }, 'bounded by the engine\'s int column')
  t.match(fieldOf(pokemon, 'distance'), { kind: 'integer', unit: 'm', max: 40_000_000 })
  t.match(fieldOf(pokemon, 'pvp_ranking_league'), { kind: 'enum', values: [0, 500, 1500, 2500] })
  t.match(fieldOf(pokemon, 'clean'), { kind: 'integer', min: 0, max: 7 })
  t.match(fieldOf(pokemon, 'override_areas'), { kind: 'list', maxItems: 32 })

  const raid = list.find((d) => d.type === 'raid')
  t.match(fieldOf(raid, 'team'), { default: 4 })
  t.match(fieldOf(raid, 'exclusive'), { kind: 'boolean' })
  const fort = list.find((d) => d.type === 'fort')
  t.match(fort, { cleaningName: null, testAlert: false, path: '/api/fort-changes' })
  t.match(fieldOf(fort, 'fort_type'), { kind: 'enum', values: ['pokestop', 'gym', 'everything'], default: 'everything' })
  t.notOk(fieldOf(fort, 'clean'), 'fort changes have no clean column')
  t.match(list.find((d) => d.type === 'nest'), { testAlert: false }, 'the engine cannot send nest samples')
  t.match(fieldOf(list.find((d) => d.type === 'quest'), 'reward_type'), { required: true })

  for (const descriptor of list) {
    for (const field of descriptor.fields) {
      if (field.kind === 'integer') t.ok(Number.isInteger(field.min) && Number.isInteger(field.max), `${descriptor.type}.${field.name} has both bounds`)
    }
  }
})

t.test('each path serves its type and each dashboard key is a dashboard count', async (t) => {
  const testApp = await build(t)
  await seedHuman(testApp, { id: USER, name: 'user' })
  const headers = bearer(testApp.app, { userId: USER })
  const list = await alarmTypes(testApp)
  const dashboard = (await testApp.app.inject({ method: 'GET', url: '/api/dashboard', headers })).json()
  t.same(Object.keys(dashboard).sort(), list.map((d) => d.dashboardKey).sort())
  for (const descriptor of list) {
    t.equal((await testApp.app.inject({ method: 'GET', url: descriptor.path, headers })).statusCode, 200, descriptor.path)
  }
})

t.test('types the site or the engine switches off are listed as unavailable, with the reason', async (t) => {
  const testApp = await build(t)
  const admin = bearer(testApp.app, { userId: ADMIN, isAdmin: true })
  const set = async (key: string, value: string) =>
    t.equal((await testApp.app.inject({ method: 'PUT', url: `/api/settings/${key}`, headers: admin, payload: { value } })).statusCode, 200)

  t.same(reasons(await alarmTypes(testApp)), {}, 'every type available')
  await set('disable_raids', 'true')
  const switchedOff = await alarmTypes(testApp)
  t.same(typesOf(switchedOff), EVERY_TYPE, 'all ten are still described')
  t.same(offered(switchedOff), EVERY_TYPE.filter((type) => type !== 'raid' && type !== 'egg'), 'eggs share the raid switch')
  t.same(reasons(switchedOff), { raid: 'site', egg: 'site' })
  t.ok(switchedOff.every((d) => d.available === (d.reason === null)))
  await set('disable_raids', 'false')

  testApp.engine.set({ disabledHooks: ['pokemon'], disableFortUpdate: true })
  testApp.clock.advance(5 * 60_000)
  t.same(reasons(await alarmTypes(testApp)), { pokemon: 'engine', fort: 'engine' })
  await set('disable_mons', 'true')
  t.same(reasons(await alarmTypes(testApp)), { pokemon: 'site', fort: 'engine' }, 'the site\'s own switch is named first')
})

t.test('PoracleJS: the types only PoracleNG has are unavailable for the engine generation', async (t) => {
  const testApp = await build(t, { engineMode: 'js' })
  const list = await alarmTypes(testApp)
  t.same(offered(list), EVERY_TYPE.filter((type) => type !== 'fort' && type !== 'maxbattle'))
  t.same(reasons(list), { fort: 'generation', maxbattle: 'generation' })
})

t.test('an engine that cannot be reached: every type the site allows is offered, with a warning', async (t) => {
  const testApp = await build(t)
  testApp.engine.failWith({ status: 500 })
  t.same(offered(await alarmTypes(testApp)), EVERY_TYPE)
  t.ok(testApp.logs.some((l) => l.level === 40 && /generation/.test(String(l.msg))))
})

t.test('the same bytes until a switch changes: ETag, 304, and compressed once', async (t) => {
  const testApp = await build(t)
  const headers = bearer(testApp.app, { userId: USER })
  const admin = bearer(testApp.app, { userId: ADMIN, isAdmin: true })
  const get = (extra: Record<string, string> = {}) => testApp.app.inject({ method: 'GET', url: '/api/alarm-types', headers: { ...headers, ...extra } })

  const first = await get()
  const etag = first.headers.etag as string
  t.match(etag, /^"[\w-]{27}"$/)
  t.equal(first.headers['cache-control'], 'private, no-cache', 'revalidated on every use')
  t.match(first.headers['content-type'], /^application\/json/)
  t.equal((await get()).headers.etag, etag, 'unchanged data, the same tag')

  const unchanged = await get({ 'if-none-match': etag })
  t.equal(unchanged.statusCode, 304)
  t.equal(unchanged.body, '', 'no body')
  t.equal((await get({ 'if-none-match': `"other", W/${etag}` })).statusCode, 304, 'a list with the weak form of the tag matches')
  t.equal((await get({ 'if-none-match': '"other"' })).statusCode, 200)

  const br = await get({ 'accept-encoding': 'gzip, br' })
  t.equal(br.headers['content-encoding'], 'br')
  t.ok(br.rawPayload.length < first.rawPayload.length / 5, `brotli ${br.rawPayload.length} of ${first.rawPayload.length} bytes`)
  t.same(JSON.parse(brotliDecompressSync(br.rawPayload).toString()), first.json(), 'the same answer')
  const gz = await get({ 'accept-encoding': 'gzip' })
  t.equal(gz.headers['content-encoding'], 'gzip')
  t.same(JSON.parse(gunzipSync(gz.rawPayload).toString()), first.json())
  const plain = await get({ 'accept-encoding': 'identity' })
  t.notOk(plain.headers['content-encoding'], 'no encoding for a client that takes none')
  t.same(plain.json(), first.json())

  t.equal((await testApp.app.inject({ method: 'PUT', url: '/api/settings/disable_lures', headers: admin, payload: { value: 'true' } })).statusCode, 200)
  const changed = await get({ 'if-none-match': etag })
  t.equal(changed.statusCode, 200, 'a switch changed: the held copy is stale')
  t.not(changed.headers.etag, etag)
  t.same(reasons(changed.json()), { lure: 'site' })
})

t.test('documented in the OpenAPI document', async (t) => {
  const testApp = await build(t)
  const doc = (await testApp.app.inject({ method: 'GET', url: '/api/openapi.json' })).json()
  const get = doc.paths['/api/alarm-types']?.get
  t.ok(get, 'the route is listed')
  t.same(get.tags, ['alarm-types'])
  t.ok(get.responses['200'].content['application/json'].schema.items.properties.fields, 'the descriptor schema is included')
})
