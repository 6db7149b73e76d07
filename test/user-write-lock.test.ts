import t, { type Test } from 'tap'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import mariadb from 'mariadb'
import { bearer, build, buildInstance, seedHuman, ROOT, type TestApp } from './helper.js'
import { ALARM_TABLES, insertAlarm, type EngineAlarmType } from './fakes/engine-db.js'
import { ERRORS } from '../plugins/edge/errors.js'
import { IN_PROGRESS, createUserWriteLock, lockName } from '../plugins/data/user-write-lock.js'

type Row = Record<string, unknown>
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

const USER = '300000000000000001'
const OTHER = '300000000000000002'
/** Each race runs this many times per engine generation: a lost race shows up in some rounds only. */
const ROUNDS = 3
/** Engine latency during the races, so that one request's steps interleave with another's. */
const ENGINE_LATENCY_MS = 5

const ng = await build(t, { engineMode: 'ng' })
const js = await build(t, { engineMode: 'js' })

async function fresh (testApp: TestApp): Promise<void> {
  testApp.engine.reset()
  for (const table of ['humans', 'profiles', ...Object.values(ALARM_TABLES)]) await testApp.app.engineDb.pool.query(`DELETE FROM \`${table}\``)
  for (const id of [USER, OTHER]) await seedHuman(testApp, { id, latitude: 51.1, longitude: 7.1 })
  testApp.engine.delay(ENGINE_LATENCY_MS)
}

async function call (app: FastifyInstance, method: Method, url: string, payload?: unknown, userId = USER): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = bearer(app, { userId })
  if (payload !== undefined) headers['content-type'] = 'application/json'
  return app.inject({ method, url, headers, ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}) })
}

async function rows (testApp: TestApp, type: EngineAlarmType, id = USER): Promise<Row[]> {
  return testApp.app.engineDb.pool.query(`SELECT * FROM \`${ALARM_TABLES[type]}\` WHERE id = ? ORDER BY uid`, [id])
}

/** Every alarm body the engine was sent for `type`, in the order it received them. */
function written (testApp: TestApp, type: EngineAlarmType): Row[] {
  return testApp.engine.requests
    .filter((r) => r.method === 'POST' && r.path === `/api/tracking/${type}/${USER}`)
    .flatMap((r) => (Array.isArray(r.body) ? r.body : [r.body]) as Row[])
}

/** Statuses a race may end in: done, or refused cleanly (gone already, or still busy). */
function noFailures (t: Test, responses: LightMyRequestResponse[], allowed: number[]): void {
  const statuses = responses.map((r) => r.statusCode)
  t.ok(statuses.every((s) => allowed.includes(s)), `statuses ${statuses.join(',')} are all among ${allowed.join(',')}`)
  for (const r of responses) if (r.statusCode === 409) t.equal(r.json().error, IN_PROGRESS, 'a refusal names the change in progress')
}

const key = (row: Row, fields: string[]) => JSON.stringify(fields.map((f) => row[f]))
function noDuplicates (t: Test, list: Row[], fields: string[]): void {
  t.equal(new Set(list.map((r) => key(r, fields))).size, list.length, `no two rows share ${fields.join(', ')}`)
}

const QUEST_REWARDS = [1, 4, 7, 25]
async function seedQuests (testApp: TestApp): Promise<void> {
  for (const reward of QUEST_REWARDS) await insertAlarm(testApp.app.engineDb.pool, 'quest', { id: USER, reward_type: 7, reward, distance: 0 })
}

for (const [label, testApp] of [['PoracleNG', ng], ['PoracleJS', js]] as const) {
  const { app } = testApp

  t.test(`${label}: two distance PUTs at once leave every quest once, at the distance written last`, async (t) => {
    for (let round = 0; round < ROUNDS; round++) {
      await fresh(testApp)
      await seedQuests(testApp)
      const distances = [1000, 2000]
      const responses = await Promise.all(distances.map((distance) => call(app, 'PUT', '/api/quests/distance', distance)))
      noFailures(t, responses, [200, 409])
      const after = await rows(testApp, 'quest')
      t.equal(after.length, QUEST_REWARDS.length, 'one row per quest')
      noDuplicates(t, after, ['reward_type', 'reward'])
      const last = written(testApp, 'quest').at(-1)
      t.ok(distances.some((d, i) => d === last?.distance && responses[i]?.statusCode === 200), 'the last write is an accepted request\'s')
      t.same(new Set(after.map((r) => r.distance)), new Set([last?.distance]), 'every quest has the last accepted distance')
    }
  })

  t.test(`${label}: five distance PUTs and five creates at once`, async (t) => {
    for (let round = 0; round < ROUNDS; round++) {
      await fresh(testApp)
      await seedQuests(testApp)
      const distances = [100, 200, 300, 400, 500]
      const newRewards = [101, 102, 103, 104, 105]
      const responses = await Promise.all([
        ...distances.map((distance) => call(app, 'PUT', '/api/quests/distance', distance)),
        ...newRewards.map((reward) => call(app, 'POST', '/api/quests', { reward_type: 7, reward }))
      ])
      noFailures(t, responses, [200, 201, 409])
      const created = responses.slice(distances.length).filter((r) => r.statusCode === 201).map((r) => Number(r.json().reward))
      const after = await rows(testApp, 'quest')
      t.equal(after.length, QUEST_REWARDS.length + created.length, 'the seeded quests and each created one, once')
      noDuplicates(t, after, ['reward_type', 'reward'])
      t.same(after.map((r) => Number(r.reward)).filter((r) => r > 100).sort(), created.sort(), 'exactly the answered creates are stored')
      const lastDistance = written(testApp, 'quest').map((b) => b.distance).filter((d) => distances.includes(Number(d))).at(-1)
      const lastIndex = distances.indexOf(Number(lastDistance))
      t.equal(responses[lastIndex]?.statusCode, 200, 'the distance written last belongs to an accepted PUT')
      for (const row of after) {
        if (QUEST_REWARDS.includes(Number(row.reward))) t.equal(row.distance, lastDistance, 'a seeded quest has the last accepted distance')
        else t.ok(row.distance === 0 || row.distance === lastDistance, 'a created quest has its own or the later distance')
      }
    }
  })

  t.test(`${label}: ten PUTs of one egg at once leave one egg, as the last accepted PUT answered`, async (t) => {
    for (let round = 0; round < ROUNDS; round++) {
      await fresh(testApp)
      const uid = await insertAlarm(testApp.app.engineDb.pool, 'egg', { id: USER, level: 5, distance: 0 })
      const distances = Array.from({ length: 10 }, (_, i) => (i + 1) * 100)
      const responses = await Promise.all(distances.map((distance) => call(app, 'PUT', `/api/eggs/${uid}`, { distance })))
      // After the first edit PoracleNG may give the egg a new uid: later PUTs of the old one find nothing.
      noFailures(t, responses, [200, 404, 409])
      const after = await rows(testApp, 'egg')
      t.equal(after.length, 1, 'one egg')
      const lastDistance = written(testApp, 'egg').at(-1)?.distance
      const lastAnswer = responses.find((r, i) => r.statusCode === 200 && distances[i] === lastDistance)
      t.ok(lastAnswer, 'the last write is an accepted PUT')
      t.match(after[0], { uid: lastAnswer?.json().uid, distance: lastAnswer?.json().distance, level: 5 }, 'the egg is what that PUT answered')
    }
  })

  t.test(`${label}: creates during a profile copy land in the active profile, not the copy`, async (t) => {
    for (let round = 0; round < ROUNDS; round++) {
      await fresh(testApp)
      await seedQuests(testApp)
      const copying = call(app, 'POST', '/api/profile-overview/duplicate/1', { name: `Copy ${round}` })
      // Start the creates once the copy is under way (its profile is being added).
      while (!testApp.engine.requests.some((r) => r.path === `/api/profiles/${USER}/add`)) await new Promise((resolve) => setTimeout(resolve, 1))
      const newRewards = [201, 202, 203, 204, 205]
      const responses = await Promise.all([copying, ...newRewards.map((reward) => call(app, 'POST', '/api/quests', { reward_type: 7, reward }))])
      noFailures(t, responses, [201, 409])
      t.equal(responses[0]?.statusCode, 201, 'the copy is made')
      const copyNo = Number(responses[0]?.json().newProfileNo)
      const created = responses.slice(1).filter((r) => r.statusCode === 201).map((r) => Number(r.json().reward))
      const after = await rows(testApp, 'quest')
      const inProfile = (no: number) => after.filter((r) => Number(r.profile_no) === no).map((r) => Number(r.reward)).sort((a, b) => a - b)
      t.same(inProfile(copyNo), [...QUEST_REWARDS].sort((a, b) => a - b), 'the copy holds the source\'s quests only')
      t.same(inProfile(1), [...QUEST_REWARDS, ...created].sort((a, b) => a - b), 'the active profile holds its quests and every created one')
      const [human] = await testApp.app.engineDb.pool.query('SELECT current_profile_no FROM humans WHERE id = ?', [USER]) as Row[]
      t.equal(Number(human?.current_profile_no), 1, 'the user is back on the active profile')
    }
  })

  t.test(`${label}: five profile creates at once each get a profile of their own`, async (t) => {
    for (let round = 0; round < ROUNDS; round++) {
      await fresh(testApp)
      const names = ['Home', 'Work', 'Gym', 'Park', 'Night']
      const responses = await Promise.all(names.map((name) => call(app, 'POST', '/api/profiles', { name })))
      noFailures(t, responses, [201, 409])
      const made = responses.filter((r) => r.statusCode === 201).map((r) => r.json() as { profileNo: number, name: string })
      const stored = await testApp.app.engineDb.pool.query('SELECT profile_no, name FROM profiles WHERE id = ? ORDER BY profile_no', [USER]) as Row[]
      t.equal(stored.length, 1 + made.length, 'the first profile and one per accepted create')
      noDuplicates(t, stored, ['profile_no'])
      for (const profile of made) t.ok(stored.some((r) => Number(r.profile_no) === profile.profileNo && r.name === profile.name), `${profile.name} is stored under the number it was answered with`)
      t.equal(new Set(made.map((p) => p.profileNo)).size, made.length, 'no two creates were answered with the same number')
    }
  })

  t.test(`${label}: a second instance on the same database waits for the first's change`, async (t) => {
    await fresh(testApp)
    await seedQuests(testApp)
    const second = await buildInstance(t, testApp)
    const responses = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => call(i % 2 === 0 ? app : second, 'PUT', '/api/quests/distance', i * 1000)))
    noFailures(t, responses, [200, 409])
    const after = await rows(testApp, 'quest')
    t.equal(after.length, QUEST_REWARDS.length, 'one row per quest')
    noDuplicates(t, after, ['reward_type', 'reward'])
    t.same(new Set(after.map((r) => r.distance)), new Set([written(testApp, 'quest').at(-1)?.distance]), 'every quest has the distance written last')
  })
}

t.test('the lock is shared by instances: a change held on one is refused by the other after the wait', async (t) => {
  await fresh(ng)
  await seedQuests(ng)
  const second = await buildInstance(t, ng, { USER_WRITE_LOCK_WAIT_MS: 300 })
  await ng.app.userWriteLock.run(USER, async () => {
    ng.engine.requests.length = 0
    const started = performance.now()
    const refused = await call(second, 'PUT', '/api/quests/distance', 1500)
    const waited = performance.now() - started
    t.equal(refused.statusCode, 409)
    t.same(refused.json(), { error: IN_PROGRESS })
    t.ok(waited >= 290 && waited < 3000, `waited about the configured 300 ms (${Math.round(waited)} ms)`)
    t.same(ng.engine.requests.filter((r) => r.method !== 'GET'), [], 'nothing was written')
    const language = await call(second, 'PUT', '/api/location/language', { language: 'de' })
    t.equal(language.statusCode, 409, 'a language change waits for the same lock (its undo must not cross another change)')

    const read = await call(second, 'GET', '/api/quests')
    t.equal(read.statusCode, 200, 'reads do not wait for the lock')
    const otherUser = await call(second, 'PUT', '/api/quests/distance', 1500, OTHER)
    t.equal(otherUser.statusCode, 200, 'another user\'s change does not wait')
  })
  const accepted = await call(second, 'PUT', '/api/quests/distance', 1500)
  t.equal(accepted.statusCode, 200, 'once released, the same change goes through')
  t.same(new Set((await rows(ng, 'quest')).map((r) => r.distance)), new Set([1500]))
})

t.test('run: released however the work ends, nested runs do not wait, other users do not wait', async (t) => {
  const lock = ng.app.userWriteLock
  await t.rejects(lock.run(USER, async () => { throw new Error('work failed') }), { message: 'work failed' })
  t.equal(await lock.run(USER, async () => 'next'), 'next', 'the lock is free again after a throw')

  const order: string[] = []
  await lock.run(USER, async () => {
    order.push('outer')
    await lock.run(USER, async () => { order.push('nested') })
    await lock.run(OTHER, async () => { order.push('other user') })
  })
  t.same(order, ['outer', 'nested', 'other user'])

  const connection = await mariadb.createConnection(ROOT)
  t.teardown(() => connection.end())
  const [free] = await connection.query('SELECT IS_FREE_LOCK(?) AS free', [lockName(ng.config.WEB_DB_NAME, USER)]) as Row[]
  t.equal(Number(free?.free), 1, 'no lock is left behind on the server')
})

t.test('run: waiters on one instance go one at a time, and one that gives up leaves the others in line', async (t) => {
  const pool = mariadb.createPool({ ...ROOT, database: ng.config.WEB_DB_NAME, connectionLimit: 3 })
  t.teardown(() => pool.end())
  const lock = createUserWriteLock(pool, ng.config.WEB_DB_NAME, 1000, ng.app.log)
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
  const events: string[] = []
  let release = () => {}
  const first = lock.run(USER, () => new Promise<void>((resolve) => { events.push('first'); release = resolve }))
  await sleep(20)
  const impatient = lock.run(USER, async () => { events.push('impatient') }).catch((err: unknown) => err)
  await sleep(600)
  const second = lock.run(USER, async () => { events.push('second') })
  t.match(await impatient, { statusCode: 409, message: IN_PROGRESS }, 'the first waiter gives up after its wait')
  t.same(events, ['first'], 'nobody ran while the first held the lock')
  release()
  await Promise.all([first, second])
  t.same(events, ['first', 'second'], 'the later waiter still got its turn')
})

t.test('run: a database that cannot give the lock is a 503 with Retry-After, and the work does not run', async (t) => {
  const pool = mariadb.createPool({ ...ROOT, port: 9, connectionLimit: 1, acquireTimeout: 300, connectTimeout: 200 })
  t.teardown(() => pool.end())
  const lock = createUserWriteLock(pool, 'nowhere', 300, ng.app.log)
  let ran = false
  const error = await lock.run(USER, async () => { ran = true }).catch((err: unknown) => err)
  t.ok(error instanceof ERRORS.Unavailable)
  t.match(error, { statusCode: 503, headers: { 'retry-after': '5' } })
  t.notOk(ran)
})
