import { createHook } from 'node:async_hooks'
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import Fastify from 'fastify'
import mariadb from 'mariadb'
import t, { type Test } from 'tap'
import configPlugin, { loadConfig } from '../plugins/base/config.js'
import clockPlugin, { ManualClock } from '../plugins/base/clock.js'
import enginePlugin, { createEngineClient, EngineError, type EngineClient, type EngineErrorKind } from '../plugins/data/engine.js'
import { startAlarmEngineFake, type AlarmEngineFake, type EngineGeneration } from './fakes/alarm-engine.js'
import { ALARM_TABLES, createEngineSchema, insertAlarm, insertHuman, insertProfile } from './fakes/engine-db.js'
import { JWT_SECRET } from './helper.js'
import { freePort } from './ports.js'

const ROOT = { host: '127.0.0.1', port: 3306, user: 'root', password: '' }
const SECRET = 'engine-test-secret-value'
const WEBHOOK = 'https://discord.com/api/webhooks/123456/abc-DEF_ghi'
const USER = '111111111111111111'
const TOWN: Array<[number, number]> = [[51.0, 7.0], [51.0, 7.2], [51.2, 7.2], [51.2, 7.0]]

const database = `aw_engine_${randomBytes(4).toString('hex')}`
const root = await mariadb.createConnection({ ...ROOT, bigIntAsNumber: true, insertIdAsNumber: true, dateStrings: true })
await root.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`)
await root.query(`USE \`${database}\``)
await createEngineSchema(root)
t.teardown(async () => {
  await root.query(`DROP DATABASE IF EXISTS \`${database}\``)
  await root.end()
})

t.beforeEach(async () => {
  for (const table of ['humans', 'profiles', 'summary_schedules', 'weather', ...Object.values(ALARM_TABLES)]) await root.query(`DELETE FROM \`${table}\``)
})

interface Setup {
  fake: AlarmEngineFake
  engine: EngineClient
  logs: Array<{ level: string, args: unknown[] }>
}

async function setup (t: Test, opts: { mode?: EngineGeneration, secret?: string, timeoutMs?: number } = {}): Promise<Setup> {
  const fake = await startAlarmEngineFake({ database, secret: SECRET, mode: opts.mode ?? 'ng' })
  t.teardown(() => fake.close())
  const logs: Setup['logs'] = []
  const engine = createEngineClient({
    baseUrl: fake.url,
    secret: opts.secret ?? SECRET,
    timeoutMs: opts.timeoutMs ?? 5000,
    log: {
      warn: (...args: unknown[]) => { logs.push({ level: 'warn', args }) },
      error: (...args: unknown[]) => { logs.push({ level: 'error', args }) }
    }
  })
  t.teardown(() => engine.close())
  return { fake, engine, logs }
}

/** Asserts that `promise` rejects with an EngineError of that kind and HTTP status. */
async function rejectsWith (t: Test, promise: Promise<unknown>, kind: EngineErrorKind, statusCode: number): Promise<EngineError> {
  try {
    await promise
  } catch (err) {
    t.ok(err instanceof EngineError, 'an EngineError')
    const error = err as EngineError
    t.equal(error.kind, kind, `kind ${kind}`)
    t.equal(error.statusCode, statusCode, `status ${statusCode}`)
    return error
  }
  t.fail(`expected a ${kind} EngineError`)
  throw new Error('unreachable')
}

/** A request straight to the fake, bypassing the client, to see the engine's own answers. */
async function raw (fake: AlarmEngineFake, method: string, path: string, body?: unknown): Promise<{ status: number, body: any }> {
  const init: RequestInit = { method, headers: body === undefined ? { 'x-poracle-secret': SECRET } : { 'x-poracle-secret': SECRET, 'content-type': 'application/json' } }
  if (body !== undefined) init.body = JSON.stringify(body)
  const res = await fetch(fake.url + path, init)
  const text = await res.text()
  let parsed: unknown = text
  try { parsed = JSON.parse(text) } catch {}
  return { status: res.status, body: parsed }
}

const apiRequests = (fake: AlarmEngineFake) => fake.requests.filter((r) => r.path.startsWith('/api/'))

t.test('client: secret header and percent-encoded webhook ids on every call', async (t) => {
  const { fake, engine } = await setup(t)
  await insertHuman(root, { id: WEBHOOK, type: 'webhook', name: 'hook' })
  const written = await engine.tracking.create('pokemon', WEBHOOK, { pokemon_id: 25, min_iv: 90 }, { silent: true })
  const rows = await engine.tracking.get('pokemon', WEBHOOK)
  const human = await engine.humans.one(WEBHOOK)

  t.equal(written.generation, 'ng')
  t.equal(rows.length, 1)
  t.equal(rows[0]?.pokemon_id, 25)
  t.equal(rows[0]?.min_iv, 90)
  t.equal(human.id, WEBHOOK)
  const encoded = encodeURIComponent(WEBHOOK)
  t.same(apiRequests(fake).map((r) => r.path), [
    `/api/tracking/pokemon/${encoded}`,
    `/api/tracking/pokemon/${encoded}`,
    `/api/humans/one/${encoded}`
  ])
  t.ok(encoded.includes('%2F'), 'slashes travel as %2F')
  t.equal(fake.requests[0]?.params.id, WEBHOOK, 'the engine decodes the id')
  for (const request of fake.requests) t.equal(request.headers['x-poracle-secret'], SECRET)
  t.equal(fake.requests[0]?.query.silent, 'true')

  fake.failWith({ status: 500, times: 1 })
  const error = await rejectsWith(t, engine.humans.one(WEBHOOK), 'failed', 502)
  t.equal(error.details.path, '/api/humans/one/{webhook}', 'the webhook token stays out of logs and error details')
})

t.test('client: uid 0, uid null and profile_no never reach the engine; a real uid does', async (t) => {
  const { fake, engine } = await setup(t)
  await insertHuman(root, { id: USER })
  await insertProfile(root, { id: USER, profileNo: 3 })
  const created = await engine.tracking.create('pokemon', USER, [
    { pokemon_id: 25, uid: 0, profile_no: 3 },
    { pokemon_id: 4, uid: null, profile_no: 1 }
  ], { silent: true })
  t.same(fake.requests.at(-1)?.body, [{ pokemon_id: 25 }, { pokemon_id: 4 }])
  t.ok(created.generation === 'ng' && created.insert === 2 && created.newUids?.length === 2, 'both inserted')
  const rows = await engine.tracking.get('pokemon', USER)
  t.same(rows.map((r) => r.profile_no), [1, 1], 'both on the active profile, not profile 3')

  const uid = rows[0]?.uid as number
  const updated = await engine.tracking.create('pokemon', USER, { uid, pokemon_id: 25, min_iv: 50, max_iv: 90 }, { silent: true })
  t.same(fake.requests.at(-1)?.body, { uid, pokemon_id: 25, min_iv: 50, max_iv: 90 })
  t.same(updated, { generation: 'ng', message: '', newUids: [uid], alreadyPresent: 0, updates: 1, insert: 0 })
  const after = await engine.tracking.get('pokemon', USER)
  t.equal(after.find((r) => r.uid === uid)?.max_iv, 90, 'updated in place')
})

t.test('client: unwraps humans and maps 404 (user gone)', async (t) => {
  const { engine } = await setup(t)
  await insertHuman(root, { id: USER, name: 'Ash', area: ['Town'], latitude: 51.1, longitude: 7.1 })
  const human = await engine.humans.one(USER)
  t.equal(human.name, 'Ash')
  t.equal(human.current_profile_no, 1)
  t.equal(human.area, '["town"]')
  const error = await rejectsWith(t, engine.humans.one('nobody'), 'not_found', 404)
  t.equal(error.message, 'User not found')
  await rejectsWith(t, engine.tracking.get('raid', 'nobody'), 'not_found', 404)
  await rejectsWith(t, engine.tracking.create('raid', 'nobody', { level: 5 }, { silent: true }), 'not_found', 404)
})

t.test('client: 400 carries the engine message; 409; 403', async (t) => {
  const { fake, engine } = await setup(t)
  await insertHuman(root, { id: USER, areaRestriction: ['town'] })
  const bad = await rejectsWith(t, engine.tracking.create('quest', USER, { reward_type: 99 }, { silent: true }), 'bad_request', 400)
  t.equal(bad.message, 'Invalid reward_type')
  t.equal(bad.expose, true)
  await rejectsWith(t, engine.tracking.create('lure', USER, { lure_id: 999 }, { silent: true }), 'bad_request', 400)
  await rejectsWith(t, engine.humans.create({ id: USER, name: 'again' }), 'conflict', 409)

  fake.set({ areaSecurity: true, fences: [{ name: 'Town', path: TOWN }] })
  await rejectsWith(t, engine.humans.setLocation(USER, 40, 2), 'forbidden', 403)
  await engine.humans.setLocation(USER, 51.1, 7.1)
  t.equal(await engine.humans.checkLocation(USER, 40, 2), false)
  t.equal(await engine.humans.checkLocation(USER, 51.1, 7.1), true)
})

t.test('client: summaries, and their 503 as a temporary fault', async (t) => {
  const { fake, engine } = await setup(t)
  await insertHuman(root, { id: USER })
  t.equal(await engine.summaries.get(USER, 'quest'), null, 'no schedule is null, not an error')
  await engine.summaries.set(USER, 'quest', [{ day: 1, hours: 9, mins: 0 }])
  t.same(await engine.summaries.get(USER, 'quest'), { id: USER, alert_type: 'quest', active_hours: [{ day: 1, hours: 9, mins: 0 }] })
  t.same((await engine.summaries.list(USER)).map((s) => s.alert_type), ['quest'])
  await engine.summaries.trigger(USER, 'quest')
  await engine.summaries.delete(USER, 'quest')
  await engine.summaries.delete(USER, 'quest')
  t.same(await engine.summaries.list(USER), [])
  await rejectsWith(t, engine.summaries.set(USER, 'raid', []), 'bad_request', 400)

  fake.set({ summaryFeature: false })
  const error = await rejectsWith(t, engine.summaries.list(USER), 'unavailable', 503)
  t.equal(error.expose, true)
  t.notMatch(error.message, /summary feature is disabled/, 'no upstream detail in the message')
})

t.test('client: timeout, unreachable, dropped connection, garbage', async (t) => {
  const { fake, engine, logs } = await setup(t, { timeoutMs: 300 })
  await insertHuman(root, { id: USER })

  fake.hang()
  const started = Date.now()
  const timeout = await rejectsWith(t, engine.humans.one(USER), 'timeout', 504)
  t.ok(Date.now() - started < 3000, 'gave up near the timeout')
  t.match(timeout.message, /timed out/)
  t.equal(timeout.expose, true)
  fake.reset()

  fake.failWith({ drop: true, times: 1 })
  await rejectsWith(t, engine.humans.one(USER), 'unreachable', 503)
  t.equal((await engine.humans.one(USER)).id, USER, 'answers again after the failure')

  fake.failWith({ status: 200, body: '<html>proxy error</html>', contentType: 'text/html', times: 1 })
  const garbage = await rejectsWith(t, engine.humans.one(USER), 'invalid_response', 502)
  t.equal(garbage.expose, false)

  fake.failWith({ status: 502, body: 'Bad Gateway', contentType: 'text/plain', times: 1 })
  await rejectsWith(t, engine.humans.one(USER), 'failed', 502)

  fake.delay(100)
  t.equal((await engine.humans.one(USER)).id, USER, 'slow but within the timeout')

  const port = await freePort()
  const nowhere = createEngineClient({ baseUrl: `http://127.0.0.1:${port}`, secret: SECRET, timeoutMs: 1000, log: { warn: () => {}, error: () => {} } })
  const unreachable = await rejectsWith(t, nowhere.tracking.get('pokemon', USER), 'unreachable', 503)
  t.equal(unreachable.message, 'The alarm engine is unreachable.')
  t.equal(unreachable.expose, true)

  const unset = createEngineClient({ baseUrl: '', secret: SECRET, timeoutMs: 1000, log: { warn: () => {}, error: () => {} } })
  await rejectsWith(t, unset.health(), 'unreachable', 503)
  t.notOk(JSON.stringify(logs).includes(SECRET), 'the secret is never logged')
})

t.test('client: a finished call leaves no timer pending (the timeout of each call is cleared, not left to fire)', async (t) => {
  const { engine } = await setup(t, { timeoutMs: 60_000 })
  await insertHuman(root, { id: USER })
  await engine.humans.one(USER)
  const pending = new Set<number>()
  const timers = createHook({
    init: (id, type) => { if (type === 'Timeout') pending.add(id) },
    destroy: (id) => { pending.delete(id) }
  }).enable()
  const CALLS = 40
  for (let i = 0; i < CALLS; i++) await engine.humans.one(USER)
  // Timers cleared during the calls are destroyed on a later turn of the event loop.
  await new Promise((resolve) => setImmediate(resolve))
  await new Promise((resolve) => setTimeout(resolve, 50))
  timers.disable()
  // A few belong to the keep-alive sockets of both ends, however many calls ran; one per call would be CALLS more.
  t.ok(pending.size < CALLS / 4, `${pending.size} timers still pending after ${CALLS} finished calls`)
})

t.test('client: while the engine is known down, calls fail at once with 503; one trial call closes it again', async (t) => {
  const fake = await startAlarmEngineFake({ database, secret: SECRET })
  t.teardown(() => fake.close())
  const clock = new ManualClock()
  const engine = createEngineClient({ baseUrl: fake.url, secret: SECRET, timeoutMs: 300, breakerOpenMs: 5000, clock, log: { warn: () => {}, error: () => {} } })
  t.teardown(() => engine.close())
  await insertHuman(root, { id: USER })

  fake.hang()
  await rejectsWith(t, engine.humans.one(USER), 'timeout', 504)
  const calls = fake.requests.length
  const started = Date.now()
  const down = await rejectsWith(t, engine.humans.one(USER), 'down', 503)
  t.ok(Date.now() - started < 100, 'failed fast')
  t.equal(down.expose, true)
  t.match(down.message, /not answering/)
  t.equal(fake.requests.length, calls, 'no call went out')

  fake.reset()
  clock.advance(4999)
  await rejectsWith(t, engine.tracking.get('pokemon', USER), 'down', 503)
  clock.advance(1)
  const trial = engine.humans.one(USER)
  await rejectsWith(t, engine.humans.one(USER), 'down', 503)
  t.equal((await trial).id, USER, 'the trial call goes out and is answered')
  t.equal((await engine.humans.one(USER)).id, USER, 'closed again')

  fake.hang()
  await rejectsWith(t, engine.humans.one(USER, { timeoutMs: 100 }), 'timeout', 504)
  fake.reset()
  t.equal((await engine.humans.one(USER)).id, USER, 'a call that gave up on its own shorter budget does not open it')

  fake.failWith({ status: 500, body: '{"status":"error","message":"boom"}', contentType: 'application/json', times: 2 })
  await rejectsWith(t, engine.humans.one(USER), 'failed', 502)
  await rejectsWith(t, engine.humans.one(USER), 'failed', 502)
  t.equal((await engine.humans.one(USER)).id, USER, 'an engine that answers with errors is not down')
})

t.test('client: a wrong secret is a bad gateway (502), logged without the secret', async (t) => {
  for (const mode of ['ng', 'js'] as const) {
    const { fake, engine, logs } = await setup(t, { mode, secret: 'not-the-secret' })
    await insertHuman(root, { id: `${mode}-user` })
    const error = await rejectsWith(t, engine.humans.one(`${mode}-user`), 'auth', 502)
    t.equal(error.expose, false)
    t.equal(fake.requests.at(-1)?.headers['x-poracle-secret'], 'not-the-secret')
    t.ok(logs.some((l) => l.level === 'error'), `${mode}: logged`)
    t.notOk(JSON.stringify(logs).includes('not-the-secret'), `${mode}: the secret is not in the log`)
  }
})

t.test('client: generation is detected once from /health', async (t) => {
  const ng = await setup(t)
  t.same(await ng.engine.health(), { generation: 'ng', version: null, capabilities: null })
  await insertHuman(root, { id: USER })
  await ng.engine.config.values()
  await ng.engine.summaries.list(USER)
  await ng.engine.reload()
  t.equal(ng.fake.requests.filter((r) => r.path === '/health').length, 1, 'one probe')
  t.same(ng.fake.reloads, ['reload'])

  const js = await setup(t, { mode: 'js' })
  t.equal(await js.engine.generation(), 'js')
  t.equal(await js.engine.generation(), 'js')
  await js.engine.reload()
  t.equal(js.fake.requests.filter((r) => r.path === '/health').length, 1, 'one probe')
  t.same(js.fake.reloads, ['pokemon/refresh'], 'PoracleJS reloads through the pokemon refresh route')
})

t.test('client on PoracleJS: NG-only routes are 501 without a call', async (t) => {
  const { fake, engine } = await setup(t, { mode: 'js' })
  await insertHuman(root, { id: USER })
  await engine.generation()
  fake.reset()
  const calls: Array<[string, Promise<unknown>]> = [
    ['humans.create', engine.humans.create({ id: 'x', name: 'x' })],
    ['humans.adminDisabled', engine.humans.adminDisabled(USER, true)],
    ['config.values', engine.config.values()],
    ['summaries.list', engine.summaries.list(USER)],
    ['summaries.set', engine.summaries.set(USER, 'quest', [])],
    ['test', engine.test({ type: 'pokemon', webhook: {}, target: { id: USER } })],
    ['tracking.get fort', engine.tracking.get('fort', USER)],
    ['tracking.create maxbattle', engine.tracking.create('maxbattle', USER, {}, { silent: true })]
  ]
  for (const [name, promise] of calls) {
    const error = await rejectsWith(t, promise, 'unsupported', 501)
    t.match(error.message, /PoracleJS/, `${name} names the engine`)
  }
  t.same(fake.requests, [], 'nothing reached the engine')
})

t.test('client on PoracleJS: errors inside HTTP 200, answer shapes', async (t) => {
  const { fake, engine } = await setup(t, { mode: 'js' })
  await insertHuman(root, { id: USER, profileName: null })
  await rejectsWith(t, engine.humans.one('nobody'), 'not_found', 404)
  t.equal(fake.requests.at(-1)?.path, '/api/humans/one/nobody')
  await rejectsWith(t, engine.tracking.get('pokemon', 'nobody'), 'not_found', 404)
  await rejectsWith(t, engine.tracking.get('raid', 'nobody'), 'not_found', 404)
  await rejectsWith(t, engine.humans.switchProfile(USER, 4), 'not_found', 404)

  const created = await engine.tracking.create('raid', USER, { pokemon_id: 9000, level: 5, clean: 0 }, { silent: true })
  t.equal(created.generation, 'js')
  t.match(created.message, /^New: /)
  t.same(fake.messages.map((m) => m.target), [USER], 'PoracleJS cannot be silenced')
  await rejectsWith(t, engine.tracking.create('raid', USER, { pokemon_id: 9000, level: 5 }, { silent: true }), 'failed', 502)
  const rejected = await rejectsWith(t, engine.tracking.create('lure', USER, { distance: 5 }, { silent: true }), 'bad_request', 400)
  t.equal(rejected.message, 'lure_id is required')
  await rejectsWith(t, engine.tracking.get('raid', USER, { profileNo: 2 }), 'unsupported', 501)
  t.equal((await engine.tracking.get('raid', USER, { profileNo: 1 })).length, 1)

  const all = await engine.tracking.all(USER)
  t.equal(all.human.id, USER)
  t.same(all.alarms.fort, [], 'types PoracleJS lacks are empty')
  t.equal(all.alarms.raid.length, 1)
  t.same(await engine.profiles.list(USER), [], 'bot-registered PoracleJS users have no profile rows')

  const config = await engine.config.poracleWeb()
  t.equal(config.defaultTemplateName, '1', 'the number 1 becomes "1"')
  t.equal(config.raw.defaultTemplateName, 1)
  t.equal(config.version, '4.8.3')
})

t.test('plugin: decorates fastify.engine from the configuration', async (t) => {
  const fake = await startAlarmEngineFake({ database, secret: SECRET })
  t.teardown(() => fake.close())
  const app = Fastify()
  t.teardown(() => app.close())
  const config = loadConfig({ NODE_ENV: 'development', JWT_SECRET, PORACLE_API_ADDRESS: `${fake.url}/`, PORACLE_API_SECRET: SECRET, ENGINE_TIMEOUT_MS: '2000' })
  await app.register(configPlugin, { config })
  await app.register(clockPlugin)
  await app.register(enginePlugin)
  await app.ready()
  await insertHuman(root, { id: USER })
  t.equal((await app.engine.humans.one(USER)).id, USER)
  t.equal(fake.requests.at(-1)?.headers['x-poracle-secret'], SECRET)
  t.equal(fake.requests.at(-1)?.path, `/api/humans/one/${USER}`, 'a trailing slash in the address is dropped')
})

t.test('client: an answer without the expected parts is invalid', async (t) => {
  const { fake, engine } = await setup(t)
  fake.failWith({ status: 200, body: '{"status":"ok"}', times: 1 })
  await rejectsWith(t, engine.humans.one(USER), 'invalid_response', 502)
  fake.failWith({ status: 200, body: '[1,2]', times: 1 })
  await rejectsWith(t, engine.config.poracleWeb(), 'invalid_response', 502)
  fake.failWith({ status: 200, body: '{"status":"ok"}', times: 1 })
  t.same(await engine.tracking.get('raid', USER), [], 'a missing list is empty')
})

t.test('client: a route the engine lacks is 501', async (t) => {
  const { fake, engine } = await setup(t)
  await engine.generation()
  fake.failWith({ status: 404, body: '404 page not found', contentType: 'text/plain', path: '/api/config/values' })
  const error = await rejectsWith(t, engine.config.values(), 'unsupported', 501)
  t.match(error.message, /PoracleNG/)
})

t.test('client: humans, areas, profiles', async (t) => {
  const { fake, engine } = await setup(t)
  fake.set({
    fences: [
      { name: 'Town', path: TOWN, group: 'North' },
      { name: 'Hidden', path: TOWN, userSelectable: false },
      { name: 'Village', path: [[50, 6], [50, 6.1], [50.1, 6.1]] }
    ],
    admins: { discord: ['999'], telegram: [] }
  })
  const created = await engine.humans.create({ id: USER, name: 'Ash', area: ['town'], community: ['North'] })
  t.equal(created.area, '["town"]', 'area sent as the JSON string NG binds')
  t.equal(typeof (fake.requests.at(-1)?.body as Record<string, unknown>).area, 'string')
  t.same((await engine.humans.areas(USER)).map((a) => a.name), ['Town', 'Hidden', 'Village'])
  t.same(await engine.humans.setAreas(USER, ['TOWN', 'hidden', 'nowhere', 'village', 'town']), ['town', 'village'], 'unknown and hidden dropped')
  await engine.humans.stop(USER)
  t.equal((await engine.humans.one(USER)).enabled, 0)
  await engine.humans.start(USER)
  await engine.humans.adminDisabled(USER, true)
  const human = await engine.humans.one(USER)
  t.equal(human.enabled, 1)
  t.equal(human.admin_disable, 1)

  await engine.humans.setLocation(USER, 51.1, 7.1)
  await engine.profiles.add(USER, { name: 'Night', active_hours: [{ day: 1, hours: 22, mins: 0 }] })
  const profiles = await engine.profiles.list(USER)
  t.same(profiles.map((p) => [p.profile_no, p.name, p.area]), [[1, 'Default', '["town","village"]'], [2, 'Night', '["town","village"]']])
  t.equal(profiles[1]?.active_hours, '[{"day":1,"hours":22,"mins":0}]')
  await engine.profiles.update(USER, { profile_no: 2, active_hours: [{ day: 2, hours: 6, mins: 30 }] })
  t.equal((await engine.profiles.list(USER))[1]?.active_hours, '[{"day":2,"hours":6,"mins":30}]')

  await engine.tracking.create('raid', USER, { level: [1, 5] }, { silent: true })
  await engine.profiles.copy(USER, 1, 2)
  t.equal((await engine.tracking.get('raid', USER, { profileNo: 2 })).length, 2, 'copied to profile 2')
  await engine.humans.switchProfile(USER, 2)
  t.equal((await engine.humans.one(USER)).current_profile_no, 2)
  await engine.humans.setAreas(USER, ['village'])
  await engine.profiles.delete(USER, 2)
  const after = await engine.humans.one(USER)
  t.equal(after.current_profile_no, 1, 'PoracleNG switches away from a deleted active profile')
  t.equal(after.area, '["town","village"]', 'and copies that profile\'s areas back')
  t.same((await engine.tracking.allProfiles(USER)).alarms.raid.map((r) => r.profile_no), [1, 1])
  t.same(await engine.humans.administrationRoles(USER), {})
  fake.setAdministrationRoles(USER, { discord: { channels: ['42'], webhooks: [], users: false } })
  t.same(await engine.humans.administrationRoles(USER), { discord: { channels: ['42'], webhooks: [], users: false } })
})

t.test('client: config, geofences, masterdata, test alerts', async (t) => {
  const { fake, engine } = await setup(t)
  fake.set({ admins: { discord: ['1'], telegram: ['2'] }, disabledHooks: ['Raid', 'nest'], defaultTemplateName: 3, maxDistance: 5000, locale: 'de', questSummaryEnabled: false, disableFortUpdate: true })
  const config = await engine.config.poracleWeb()
  t.same(config.admins, { discord: ['1'], telegram: ['2'] })
  t.same(config.disabledHooks, ['raid', 'nest'])
  t.equal(config.defaultTemplateName, '3')
  t.equal(config.raw.defaultTemplateName, '3', 'NG answers a string')
  t.equal(config.maxDistance, 5000)
  t.equal(config.locale, 'de')
  const values = await engine.config.values()
  t.equal(values.tracking?.quest_summary_enabled, false)
  t.equal(values.general?.disable_fort_update, true)
  t.same(Object.keys(await engine.config.values('tracking')), ['tracking'])

  fake.set({ fences: [{ name: 'Town', path: TOWN }] })
  const fences = await engine.geofence.all()
  t.match(fences[0], { name: 'Town', userSelectable: true, displayInMatches: true, group: '' })
  await engine.geofence.reload()
  await rejectsWith(t, engine.geofence.areaMap('Town'), 'unavailable', 503)
  fake.set({ staticMaps: true })
  t.match(await engine.geofence.areaMap('Town'), /^http:\/\/127\.0\.0\.1:\d+\/staticmap\//)
  await rejectsWith(t, engine.geofence.areaMap('Nowhere'), 'not_found', 404)

  t.ok((await engine.masterdata.monsters('de'))['25_0'], 'monsters sample')
  t.ok(Object.keys(await engine.masterdata.grunts()).length > 0, 'grunts sample')
  t.ok((await engine.config.templates()).discord, 'templates')

  await engine.test({ type: 'pokemon', webhook: { pokemon_id: 25 }, target: { id: USER, name: 'Ash' } })
  t.same(fake.testAlerts, [{ type: 'pokemon', webhook: { pokemon_id: 25 }, target: { id: USER, name: 'Ash' } }])
})

t.test('fake: geofence reload downloads a Koji-style feed with the bearer token', async (t) => {
  const feed = createServer((req, res) => {
    t.equal(req.headers.authorization, 'Bearer feed-token')
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ status: 'ok', data: { type: 'FeatureCollection', features: [{ type: 'Feature', properties: { name: 'Park' }, geometry: { type: 'Polygon', coordinates: [[[7, 51], [7.1, 51], [7.1, 51.1], [7, 51]]] } }] } }))
  })
  await new Promise<void>((resolve) => feed.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => feed.close(() => resolve())))
  const { fake, engine } = await setup(t)
  fake.set({ geofenceUrl: `http://127.0.0.1:${(feed.address() as AddressInfo).port}/api/geofence-feed`, geofenceBearerToken: 'feed-token' })
  await engine.geofence.reload()
  const fences = await engine.geofence.all()
  t.equal(fences[0]?.name, 'Park')
  t.same(fences[0]?.path, [[51, 7], [51, 7.1], [51.1, 7.1], [51, 7]], 'GeoJSON [lon,lat] swapped to [lat,lon]')
})

t.test('fake NG: diff-based insert, update with a new uid, newUids null', async (t) => {
  const { fake, engine } = await setup(t)
  await insertHuman(root, { id: USER })
  const first = await engine.tracking.create('raid', USER, { level: 5, team: 4, distance: 0 }, { silent: true })
  t.ok(first.generation === 'ng')
  if (first.generation !== 'ng') return
  t.same([first.insert, first.updates, first.alreadyPresent], [1, 0, 0])
  const oldUid = first.newUids?.[0] as number

  const again = await engine.tracking.create('raid', USER, { level: 5 }, { silent: true })
  t.same(again, { generation: 'ng', message: '', newUids: null, alreadyPresent: 1, updates: 0, insert: 0 }, 'nothing written: newUids is null')

  const moved = await engine.tracking.create('raid', USER, { level: 5, distance: 500 }, { silent: true })
  if (moved.generation !== 'ng') return t.fail('ng answer')
  t.same([moved.insert, moved.updates, moved.alreadyPresent], [0, 1, 0], 'one updatable field: an update')
  const newUid = moved.newUids?.[0] as number
  t.not(newUid, oldUid, 're-keyed: the update has a new uid')
  const rows = await engine.tracking.get('raid', USER)
  t.same(rows.map((r) => [r.uid, r.distance]), [[newUid, 500]], 'the old row is gone')

  const two = await engine.tracking.create('raid', USER, { level: 5, distance: 1000, template: '2' }, { silent: true })
  t.ok(two.generation === 'ng' && two.insert === 1 && two.updates === 0, 'two changed fields: a second row')
  t.equal((await engine.tracking.get('raid', USER)).length, 2)

  const teams = await engine.tracking.create('raid', USER, { level: 5, team: 2 }, { silent: true })
  t.ok(teams.generation === 'ng' && teams.insert === 1, 'another team is another match key: insert')

  await engine.tracking.create('maxbattle', USER, { level: 3 }, { silent: true })
  const dup = await engine.tracking.create('maxbattle', USER, { level: 3 }, { silent: true })
  t.ok(dup.generation === 'ng' && dup.insert === 1, 'maxbattle never compares: always inserts')
  t.same(fake.messages, [], 'silent writes send no message')
})

t.test('fake NG: pokemon keeps its uid; uid 0 writes nothing and answers [0]', async (t) => {
  const { fake, engine } = await setup(t)
  await insertHuman(root, { id: USER })
  const created = await engine.tracking.create('pokemon', USER, { pokemon_id: 150, min_iv: 90 }, { silent: false })
  if (created.generation !== 'ng') return t.fail('ng answer')
  const uid = created.newUids?.[0] as number
  t.match(created.message, /^New: Mewtwo/)
  t.same(fake.messages.map((m) => m.target), [USER], 'a non-silent write sends a confirmation')

  const tweaked = await engine.tracking.create('pokemon', USER, { pokemon_id: 150, min_iv: 95 }, { silent: true })
  t.same(tweaked, { generation: 'ng', message: '', newUids: [uid], alreadyPresent: 0, updates: 1, insert: 0 }, 'pokemon updates in place')

  const zero = await raw(fake, 'POST', `/api/tracking/pokemon/${USER}?silent=true`, { pokemon_id: 25, uid: 0 })
  t.same(zero.body, { status: 'ok', message: '', newUids: [0], alreadyPresent: 0, updates: 1, insert: 0 })
  t.same((await engine.tracking.get('pokemon', USER)).map((r) => r.pokemon_id), [150], 'nothing written for uid 0')

  const stranded = await raw(fake, 'POST', `/api/tracking/pokemon/${USER}?silent=true`, { pokemon_id: 1, profile_no: 7 })
  t.equal(stranded.body.insert, 1)
  const [row] = await root.query('SELECT profile_no FROM monsters WHERE pokemon_id = 1') as Array<{ profile_no: number }>
  t.equal(row?.profile_no, 7, 'profile_no in a pokemon body is taken at face value')

  await engine.tracking.deleteByUid('pokemon', USER, uid, { silent: false })
  t.match(fake.messages.at(-1)?.text, /^Removed: Mewtwo/)
  t.same((await raw(fake, 'DELETE', `/api/tracking/pokemon/${USER}/byUid/abc`)).status, 400, 'NG: a uid that is not a number is 400')
})

t.test('fake NG: profile_no query, all with nulls, SQL rows visible, bulk delete, defaults', async (t) => {
  const { fake, engine } = await setup(t)
  await insertHuman(root, { id: USER })
  await insertProfile(root, { id: USER, profileNo: 2 })
  await engine.tracking.create('egg', USER, { level: [1, 3] }, { silent: true, profileNo: 2 })
  t.same(await engine.tracking.get('egg', USER), [], 'not on the active profile')
  const eggs = await engine.tracking.get('egg', USER, { profileNo: 2 })
  t.same(eggs.map((e) => [e.level, e.team, e.profile_no]), [[1, 4, 2], [3, 4, 2]])
  t.ok(eggs.every((e) => typeof e.description === 'string'), 'NG describes every type')

  const plain = await raw(fake, 'GET', `/api/tracking/all/${USER}`)
  t.equal(plain.body.raid, null, 'NG sends null for empty lists without descriptions')
  const all = await engine.tracking.all(USER)
  t.same(all.alarms.raid, [], 'the client turns null into []')

  const uid = await insertAlarm(root, 'invasion', { id: USER, grunt_type: 'fire' })
  const invasions = await engine.tracking.get('invasion', USER)
  t.same(invasions.map((r) => [r.uid, r.grunt_type, r.template]), [[uid, 'fire', '1']], 'a direct SQL row is an engine row')
  await engine.tracking.bulkDelete('egg', USER, eggs.map((e) => e.uid), { silent: true })
  t.same(await engine.tracking.get('egg', USER, { profileNo: 2 }), [])

  const pokemon = await raw(fake, 'POST', `/api/tracking/pokemon/${USER}?silent=1`, { pokemon_id: 4 })
  t.equal(pokemon.body.insert, 1)
  const [stored] = await engine.tracking.get('pokemon', USER)
  t.match(stored, { min_iv: -1, max_iv: 100, max_cp: 9000, max_level: 55, size: -1, max_size: 5, max_weight: 9000000, pvp_ranking_worst: 4096, template: '1' })
  t.equal((await raw(fake, 'POST', `/api/tracking/pokemon/${USER}`, { min_iv: 5 })).status, 400, 'pokemon_id is required')
  t.equal((await raw(fake, 'POST', `/api/tracking/fort/${USER}`, { fort_type: 'castle' })).status, 400)
  t.equal((await raw(fake, 'POST', `/api/tracking/gym/${USER}`, { team: 7 })).status, 400)
  t.equal((await raw(fake, 'POST', '/api/tracking/pokemon/nobody', { pokemon_id: 1 })).status, 404)
  t.equal((await raw(fake, 'GET', '/api/nothing/here')).body, '404 page not found')
  const noSecret = await fetch(`${fake.url}/api/humans/one/${USER}`)
  t.equal(noSecret.status, 401)
})

t.test('fake JS: re-posting keeps the uid, answers without counts, fastify 404 for NG routes', async (t) => {
  const { fake, engine } = await setup(t, { mode: 'js' })
  await insertHuman(root, { id: USER })
  await engine.tracking.create('invasion', USER, { grunt_type: 'fire' }, { silent: true })
  const [before] = await engine.tracking.get('invasion', USER)
  const answer = await raw(fake, 'POST', `/api/tracking/invasion/${USER}`, { grunt_type: 'fire', distance: 200 })
  t.same(Object.keys(answer.body), ['status', 'message'], 'no newUids in PoracleJS')
  t.match(answer.body.message, /^Updated: /)
  const [after] = await engine.tracking.get('invasion', USER)
  t.equal(after?.uid, before?.uid, 'PoracleJS re-inserts an update under the same uid')
  t.equal(after?.distance, 200)
  t.equal(after?.description, undefined, 'PoracleJS describes only pokemon, raid, egg and gym')

  const notFound = await raw(fake, 'POST', '/api/humans', { id: 'x', name: 'x' })
  t.same(notFound, { status: 404, body: { message: 'Route POST:/api/humans not found', error: 'Not Found', statusCode: 404 } })
  t.equal((await raw(fake, 'GET', `/api/tracking/fort/${USER}`)).status, 404)
  const unauthorised = await fetch(`${fake.url}/api/humans/one/${USER}`)
  t.same([unauthorised.status, await unauthorised.json()], [200, { status: 'authError', reason: 'incorrect or missing api secret' }])
  const plainText = await fetch(`${fake.url}/api/humans/${USER}/setAreas`, { method: 'POST', headers: { 'x-poracle-secret': SECRET, 'content-type': 'text/plain' }, body: '[]' })
  t.equal(plainText.status, 415, 'fastify wants application/json')
  t.same((await raw(fake, 'GET', '/health')).body, { webserver: 'happy', query: {}, port: 3030 })
})

t.test('engine-db: NG and JS bookkeeping for the capability probe', async (t) => {
  const [ng] = await root.query('SELECT version, dirty FROM schema_migrations') as Array<{ version: number, dirty: number }>
  t.same(ng, { version: 5, dirty: 0 })
  const name = `aw_engine_js_${randomBytes(3).toString('hex')}`
  await root.query(`CREATE DATABASE \`${name}\``)
  t.teardown(() => root.query(`DROP DATABASE IF EXISTS \`${name}\``))
  const js = await mariadb.createConnection({ ...ROOT, database: name })
  t.teardown(() => js.end())
  await createEngineSchema(js, { generation: 'js' })
  const tables = (await js.query('SHOW TABLES') as Array<Record<string, string>>).map((r) => Object.values(r)[0])
  t.notOk(tables.includes('schema_migrations'))
  const names = (await js.query('SELECT name FROM migrations') as Array<{ name: string }>).map((r) => r.name)
  t.ok(names.includes('v18_fort.js'))
})
