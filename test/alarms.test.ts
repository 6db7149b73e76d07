import t, { type Test } from 'tap'
import type { LightMyRequestResponse } from 'fastify'
import { bearer, build, seedHuman, type TestApp } from './helper.js'
import { ALARM_TABLES, insertAlarm, insertProfile, type EngineAlarmType } from './fakes/engine-db.js'
import type { RecordedRequest } from './fakes/alarm-engine.js'
import type { UidChanged } from '../plugins/domain/alarm-events.js'

type Row = Record<string, unknown>
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

const USER = '200000000000000001'
const OTHER = '200000000000000002'
const WEBHOOK = 'https://discord.com/api/webhooks/1/abc'
const TEN_MINUTES = 10 * 60_000
const TOWN: Array<[number, number]> = [[51.0, 7.0], [51.0, 7.2], [51.2, 7.2], [51.2, 7.0]]

interface TypeCase {
  type: EngineAlarmType
  path: string
  disableKey: string
  /** Two different alarms, then a one-field edit of the first. */
  first: Row
  second: Row
  edit: Row
  /** A hook name that switches the type off in the engine's config (fort: the config value). */
  hook: string | null
}

const TYPES: TypeCase[] = [
  { type: 'pokemon', path: '/api/monsters', disableKey: 'disable_mons', first: { pokemon_id: 25, min_iv: 80 }, second: { pokemon_id: 150 }, edit: { clean: 1 }, hook: 'pokemon' },
  { type: 'raid', path: '/api/raids', disableKey: 'disable_raids', first: { level: 5 }, second: { pokemon_id: 150, team: 2 }, edit: { clean: 1 }, hook: 'raid' },
  { type: 'egg', path: '/api/eggs', disableKey: 'disable_raids', first: { level: 5 }, second: { level: 3 }, edit: { clean: 1 }, hook: 'raid' },
  { type: 'quest', path: '/api/quests', disableKey: 'disable_quests', first: { reward_type: 7, reward: 25 }, second: { reward_type: 2, reward: 1 }, edit: { clean: 1 }, hook: 'quest' },
  { type: 'invasion', path: '/api/invasions', disableKey: 'disable_invasions', first: { grunt_type: 'fire' }, second: { grunt_type: 'water', gender: 1 }, edit: { clean: 1 }, hook: 'invasion' },
  { type: 'lure', path: '/api/lures', disableKey: 'disable_lures', first: { lure_id: 501 }, second: { lure_id: 502 }, edit: { clean: 1 }, hook: 'lure' },
  { type: 'nest', path: '/api/nests', disableKey: 'disable_nests', first: { pokemon_id: 1 }, second: { pokemon_id: 4 }, edit: { clean: 1 }, hook: 'nest' },
  { type: 'gym', path: '/api/gyms', disableKey: 'disable_gyms', first: { team: 1 }, second: { team: 2 }, edit: { clean: 1 }, hook: 'gym' },
  { type: 'fort', path: '/api/fort-changes', disableKey: 'disable_fort_changes', first: { fort_type: 'pokestop', change_types: ['name', 'new'] }, second: { fort_type: 'gym' }, edit: { include_empty: 1 }, hook: null },
  { type: 'maxbattle', path: '/api/maxbattles', disableKey: 'disable_maxbattles', first: { level: 5 }, second: { pokemon_id: 150 }, edit: { clean: 1 }, hook: 'maxbattle' }
]
const JS_TYPES = TYPES.filter((c) => c.type !== 'fort' && c.type !== 'maxbattle')
const caseOf = (type: EngineAlarmType) => TYPES.find((c) => c.type === type) as TypeCase

// One app per engine generation for the whole file: building is the slow part, every test starts clean.
const ng = await build(t, { engineMode: 'ng' })
const js = await build(t, { engineMode: 'js' })

/** Empty engine and service tables, default engine settings, caches expired. */
async function fresh (testApp: TestApp, users: Array<{ id: string, type?: string }> = [{ id: USER }, { id: OTHER }]): Promise<void> {
  testApp.engine.reset()
  testApp.engine.set({ disabledHooks: [], disableFortUpdate: false, fences: [{ name: 'Town', path: TOWN }, { name: 'Harbour', path: TOWN }] })
  for (const table of ['humans', 'profiles', ...Object.values(ALARM_TABLES)]) await testApp.app.engineDb.pool.query(`DELETE FROM \`${table}\``)
  await testApp.app.db.pool.query('DELETE FROM site_settings')
  testApp.app.siteSettings.evict()
  testApp.clock.advance(TEN_MINUTES)
  for (const user of users) await seedHuman(testApp, { ...user, latitude: 51.1, longitude: 7.1 })
}

async function call (testApp: TestApp, method: Method, url: string, payload?: unknown, userId = USER): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = bearer(testApp.app, { userId })
  if (payload !== undefined) headers['content-type'] = 'application/json'
  return testApp.app.inject({ method, url, headers, ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}) })
}

const tracking = (testApp: TestApp) => testApp.engine.requests.filter((r) => r.path.startsWith('/api/tracking/'))
const writes = (testApp: TestApp) => tracking(testApp).filter((r) => r.method !== 'GET')

async function rows (testApp: TestApp, type: EngineAlarmType, id = USER): Promise<Row[]> {
  return testApp.app.engineDb.pool.query(`SELECT * FROM \`${ALARM_TABLES[type]}\` WHERE id = ? ORDER BY uid`, [id])
}

function uidEvents (testApp: TestApp, t: Test): UidChanged[] {
  const seen: UidChanged[] = []
  const listener = (event: UidChanged) => { seen.push(event) }
  testApp.app.alarmEvents.on('uidChanged', listener)
  t.teardown(() => testApp.app.alarmEvents.off('uidChanged', listener))
  return seen
}

async function crud (t: Test, testApp: TestApp, c: TypeCase): Promise<void> {
  const base = c.path
  t.same((await call(testApp, 'GET', base)).json(), [], `${c.type}: empty list`)

  const created = await call(testApp, 'POST', base, c.first)
  t.equal(created.statusCode, 201, `${c.type}: created`)
  const first = created.json() as Row
  t.equal(created.headers.location, `${base}/${String(first.uid)}`)
  t.ok(Number(first.uid) > 0)
  t.equal(first.profile_no, 1)
  t.equal(first.id, USER)
  for (const [field, value] of Object.entries(c.first)) t.same(first[field], value, `${c.type}: ${field} stored`)

  t.same((await call(testApp, 'GET', `${base}/${String(first.uid)}`)).json(), first, `${c.type}: read back`)

  const again = await call(testApp, 'POST', base, c.first)
  t.equal(again.statusCode, 200, `${c.type}: already present`)
  t.equal((again.json() as Row).uid, 0)
  t.equal(again.headers.location, undefined)

  const second = await call(testApp, 'POST', base, c.second)
  t.equal(second.statusCode, 201, `${c.type}: second alarm`)

  const all = await call(testApp, 'PUT', `${base}/distance`, 500)
  t.same(all.json(), { updated: 2 }, `${c.type}: distance of all`)
  let list = (await call(testApp, 'GET', base)).json() as Row[]
  t.same(list.map((r) => r.distance), [500, 500])
  t.same((await call(testApp, 'PUT', `${base}/distance`, 500)).json(), { updated: 0 }, `${c.type}: nothing to change`)

  const target = list.find((r) => r.description === undefined || sameFields(r, c.first)) as Row
  const bulk = await call(testApp, 'PUT', `${base}/distance/bulk`, { uids: [target.uid], distance: 1000 })
  t.same(bulk.json(), { updated: 1 }, `${c.type}: bulk distance`)
  list = (await call(testApp, 'GET', base)).json() as Row[]
  t.same(list.map((r) => r.distance).sort(), [1000, 500])
  t.equal(list.length, 2, `${c.type}: no row left behind`)

  const edited = list.find((r) => r.distance === 1000) as Row
  const put = await call(testApp, 'PUT', `${base}/${String(edited.uid)}`, c.edit)
  t.equal(put.statusCode, 200, `${c.type}: updated`)
  const after = put.json() as Row
  for (const [field, value] of Object.entries(c.edit)) t.same(after[field], value)
  t.equal(after.distance, 1000, `${c.type}: other fields kept`)
  t.equal((await rows(testApp, c.type)).length, 2)

  t.equal((await call(testApp, 'DELETE', `${base}/${String(after.uid)}`)).statusCode, 204, `${c.type}: deleted`)
  t.equal((await call(testApp, 'GET', `${base}/${String(after.uid)}`)).statusCode, 404)
  t.same((await call(testApp, 'DELETE', base)).json(), { deleted: 1 }, `${c.type}: delete all`)
  t.same((await call(testApp, 'GET', base)).json(), [])

  for (const r of writes(testApp)) t.equal(r.query.silent, 'true', `${c.type}: ${r.method} ${r.path} is silent`)
}

function sameFields (row: Row, fields: Row): boolean {
  return Object.entries(fields).every(([k, v]) => JSON.stringify(row[k]) === JSON.stringify(v))
}

t.test('PoracleNG: every type, create, read, update, delete, distance and bulk distance', async (t) => {
  for (const c of TYPES) {
    await fresh(ng)
    await crud(t, ng, c)
  }
})

t.test('PoracleJS: every type it has; fort changes and max battles answer 501 naming the engine', async (t) => {
  for (const c of JS_TYPES) {
    await fresh(js)
    await crud(t, js, c)
  }
  await fresh(js)
  for (const c of TYPES.filter((x) => !JS_TYPES.includes(x))) {
    for (const [method, url, body] of routesOf(c, 1)) {
      const res = await call(js, method, url, body)
      t.equal(res.statusCode, 501, `${method} ${url}`)
      t.match(res.json(), { error: /PoracleJS/ })
    }
  }
  t.same(writes(js), [], 'nothing was written')
})

/** Every alarm route of a type with a valid request. */
function routesOf (c: TypeCase, uid: number): Array<[Method, string, unknown]> {
  return [
    ['GET', c.path, undefined],
    ['GET', `${c.path}/${uid}`, undefined],
    ['POST', c.path, c.first],
    ['PUT', `${c.path}/${uid}`, c.edit],
    ['PUT', `${c.path}/distance`, 100],
    ['PUT', `${c.path}/distance/bulk`, { uids: [uid], distance: 100 }],
    ['DELETE', `${c.path}/${uid}`, undefined],
    ['DELETE', c.path, undefined]
  ]
}

t.test('bad input on every route is a 400 with details and never reaches the engine', async (t) => {
  await fresh(ng)
  const uid = await insertAlarm(ng.app.engineDb.pool, 'raid', { id: USER, level: 5 })
  for (const c of TYPES) {
    const cases: Array<[Method, string, unknown]> = [
      ['POST', c.path, { ...c.first, unknown_field: 1 }],
      ['POST', c.path, { ...c.first, distance: '5' }],
      ['POST', c.path, { ...c.first, distance: -1 }],
      ['POST', c.path, { ...c.first, template: { nested: true } }],
      ['POST', c.path, [c.first]],
      ['POST', c.path, { ...c.first, pokemonId: 25 }],
      ['GET', `${c.path}/abc`, undefined],
      ['GET', `${c.path}/0`, undefined],
      ['GET', `${c.path}/-4`, undefined],
      ['PUT', `${c.path}/abc`, c.edit],
      ['PUT', `${c.path}/${uid}`, { distance: 40_000_001 }],
      ['PUT', `${c.path}/${uid}`, { ...c.edit, nope: true }],
      ['DELETE', `${c.path}/1.5`, undefined],
      ['PUT', `${c.path}/distance`, -1],
      ['PUT', `${c.path}/distance`, '100'],
      ['PUT', `${c.path}/distance`, { distance: 100 }],
      ['PUT', `${c.path}/distance/bulk`, { uids: [], distance: 100 }],
      ['PUT', `${c.path}/distance/bulk`, { uids: [uid] }],
      ['PUT', `${c.path}/distance/bulk`, { uids: ['a'], distance: 100 }],
      ['PUT', `${c.path}/distance/bulk`, { uids: [uid, uid], distance: 100 }],
      ['PUT', `${c.path}/distance/bulk`, { uids: [uid], distance: 1, extra: 1 }]
    ]
    for (const [method, url, body] of cases) {
      const res = await call(ng, method, url, body)
      t.equal(res.statusCode, 400, `${method} ${url} ${JSON.stringify(body)}`)
      const answer = res.json() as { error: string, details?: unknown[] }
      t.ok(Array.isArray(answer.details) && answer.details.length > 0, 'with details')
    }
  }
  const required: Array<[string, Row]> = [
    ['/api/monsters', { min_iv: 1 }],
    ['/api/eggs', { team: 1 }],
    ['/api/quests', { reward: 1 }],
    ['/api/invasions', { gender: 1 }],
    ['/api/invasions', { grunt_type: '' }],
    ['/api/monsters', { pokemon_id: 1, min_iv: 90, max_iv: 80 }],
    ['/api/monsters', { pokemon_id: 1, min_cp: 900, max_cp: 80 }],
    ['/api/monsters', { pokemon_id: 1, pvp_ranking_league: 1000 }],
    ['/api/raids', { team: 1 }],
    ['/api/lures', { lure_id: 400 }],
    ['/api/fort-changes', { fort_type: 'castle' }],
    ['/api/fort-changes', { clean: 1 }],
    ['/api/gyms', { team: 5 }],
    ['/api/raids', { level: 5, override_areas: ['town'], distance: 100 }],
    ['/api/raids', { level: 5, override_areas: ['town'], override_location_label: 'home', distance: 0 }],
    ['/api/raids', { level: 5, override_location_label: 'home' }],
    ['/api/monsters', { pokemon_id: 1, min_iv: 5, MIN_IV: 6 }]
  ]
  for (const [url, body] of required) {
    const res = await call(ng, 'POST', url, body)
    t.equal(res.statusCode, 400, `POST ${url} ${JSON.stringify(body)}`)
    t.ok(((res.json() as { details?: unknown[] }).details ?? []).length > 0, 'with details')
  }
  const broken = await ng.app.inject({ method: 'POST', url: '/api/monsters', headers: { ...bearer(ng.app, { userId: USER }), 'content-type': 'application/json' }, payload: '{"pokemon_id": 1,' })
  t.equal(broken.statusCode, 400, 'malformed JSON')
  const inverted = await call(ng, 'PUT', `/api/raids/${uid}`, { override_location_label: 'home' })
  t.equal(inverted.statusCode, 400, 'an update is checked on the merged row')
  t.same(tracking(ng).filter((r) => r.method !== 'GET'), [], 'no write reached the engine')
  t.equal(tracking(ng).length, 1, 'only the one read of the merged-row check')
})

t.test('keys are case-insensitive; responses are snake_case', async (t) => {
  await fresh(ng)
  const res = await call(ng, 'POST', '/api/monsters', { Pokemon_ID: 25, MIN_IV: 90, Max_Cp: 2000 })
  t.equal(res.statusCode, 201)
  t.match(res.json(), { pokemon_id: 25, min_iv: 90, max_cp: 2000 })
  const uid = (res.json() as Row).uid
  const put = await call(ng, 'PUT', `/api/monsters/${String(uid)}`, { MAX_IV: 95 })
  t.match(put.json(), { uid, max_iv: 95, min_iv: 90 })
  const bulk = await call(ng, 'PUT', '/api/monsters/distance/bulk', { UIDS: [uid], Distance: 10 })
  t.same(bulk.json(), { updated: 1 })
})

t.test('uid 0 and profile_no are never sent; spec defaults fill a create', async (t) => {
  await fresh(ng)
  await insertProfile(ng.app.engineDb.pool, { id: USER, profileNo: 3 })
  const res = await call(ng, 'POST', '/api/monsters', { pokemon_id: 1, uid: 0, profile_no: 3, id: OTHER, description: 'x' })
  t.equal(res.statusCode, 201)
  const [post] = writes(ng) as [RecordedRequest]
  t.same(post.body, { pokemon_id: 1, max_iv: 100, max_cp: 9000, max_level: 55, size: -1, max_size: 5 }, 'exactly the fields and the spec defaults')
  t.equal(post.params.id, USER, 'the owner is the caller')
  t.match(res.json(), { profile_no: 1, id: USER })

  const uid = (res.json() as Row).uid as number
  ng.engine.reset()
  const put = await call(ng, 'PUT', `/api/monsters/${uid}`, { uid: 0, profile_no: 3, min_iv: 10 })
  t.equal(put.statusCode, 200)
  const [update] = writes(ng) as [RecordedRequest]
  t.match(update.body, { uid, min_iv: 10 })
  t.notOk('profile_no' in (update.body as Row))
  t.same((await rows(ng, 'pokemon')).map((r) => [r.uid, r.profile_no, r.min_iv]), [[uid, 1, 10]])

  for (const [path, body, defaults] of [
    ['/api/raids', { level: 5 }, { pokemon_id: 9000, team: 4, move: 9000, evolution: 9000, clean: 0 }],
    ['/api/eggs', { level: 5 }, { team: 4 }],
    ['/api/gyms', {}, { team: 4 }]
  ] as Array<[string, Row, Row]>) {
    ng.engine.reset()
    t.equal((await call(ng, 'POST', path, body)).statusCode, 201)
    t.same((writes(ng)[0] as RecordedRequest).body, { ...defaults, ...body }, `${path} defaults`)
  }
})

t.test('storage rules: gym id null for any gym, grunt types and area names lower-case', async (t) => {
  await fresh(ng)
  const gym = await call(ng, 'POST', '/api/gyms', { team: 1, gym_id: '' })
  t.equal(gym.statusCode, 201)
  t.same((writes(ng)[0] as RecordedRequest).body, { team: 1, gym_id: null })
  t.equal((gym.json() as Row).gym_id, null)

  const raid = await call(ng, 'POST', '/api/raids', { level: 5, gym_id: 'abc.16' })
  const cleared = await call(ng, 'PUT', `/api/raids/${String((raid.json() as Row).uid)}`, { gym_id: '' })
  t.equal((cleared.json() as Row).gym_id, null, 'an update to "" means any gym')

  const invasion = await call(ng, 'POST', '/api/invasions', { grunt_type: 'Dragon' })
  t.equal((invasion.json() as Row).grunt_type, 'dragon')

  const areas = await call(ng, 'POST', '/api/lures', { lure_id: 501, override_areas: ['Town', 'HARBOUR', 'town'] })
  t.equal(areas.statusCode, 201)
  t.same((areas.json() as Row).override_areas, ['town', 'harbour'], 'lower-cased, once each, shown as a list')
})

t.test('webhook users: ids with slashes are percent-encoded end to end', async (t) => {
  await fresh(ng, [{ id: WEBHOOK, type: 'webhook' }])
  const created = await call(ng, 'POST', '/api/raids', { level: 5 }, WEBHOOK)
  t.equal(created.statusCode, 201)
  const uid = (created.json() as Row).uid as number
  t.equal((created.json() as Row).id, WEBHOOK)
  t.equal((await call(ng, 'GET', '/api/raids', undefined, WEBHOOK)).json().length, 1)
  t.equal((await call(ng, 'PUT', `/api/raids/${uid}`, { distance: 10, clean: 1 }, WEBHOOK)).statusCode, 200)
  t.equal((await call(ng, 'PUT', '/api/raids/distance', 20, WEBHOOK)).statusCode, 200)
  t.equal((await call(ng, 'GET', '/api/dashboard', undefined, WEBHOOK)).json().raids, 1)
  t.same((await call(ng, 'DELETE', '/api/raids', undefined, WEBHOOK)).json(), { deleted: 1 })
  const encoded = encodeURIComponent(WEBHOOK)
  for (const r of tracking(ng)) t.ok(r.path.includes(encoded), `${r.method} ${r.path}`)
  t.same(await rows(ng, 'raid', WEBHOOK), [])
})

t.test('another user\'s uid is a 404 on every route and nothing is sent', async (t) => {
  for (const testApp of [ng, js]) {
    await fresh(testApp)
    const theirs = await insertAlarm(testApp.app.engineDb.pool, 'pokemon', { id: OTHER, pokemon_id: 25 })
    await insertAlarm(testApp.app.engineDb.pool, 'pokemon', { id: USER, pokemon_id: 1 })
    const c = caseOf('pokemon')
    for (const [method, url, body] of [
      ['GET', `${c.path}/${theirs}`, undefined],
      ['PUT', `${c.path}/${theirs}`, { min_iv: 99 }],
      ['DELETE', `${c.path}/${theirs}`, undefined],
      ['PUT', `${c.path}/distance/bulk`, { uids: [theirs], distance: 5 }],
      ['POST', `/api/test-alert/pokemon/${theirs}`, undefined]
    ] as Array<[Method, string, unknown]>) {
      const res = await call(testApp, method, url, body)
      t.equal(res.statusCode, 404, `${testApp.engine.mode} ${method} ${url}`)
    }
    t.same(writes(testApp), [], 'no write reached the engine')
    t.same(testApp.engine.testAlerts, [])
    t.same((await rows(testApp, 'pokemon', OTHER)).map((r) => r.min_iv), [-1], 'their alarm is untouched')
  }
})

t.test('PoracleNG re-keys edited rows: the service follows, deletes superseded rows, and reports the uid change', async (t) => {
  await fresh(ng)
  const events = uidEvents(ng, t)
  const raid = (await call(ng, 'POST', '/api/raids', { level: 5 })).json() as Row

  const oneField = (await call(ng, 'PUT', `/api/raids/${String(raid.uid)}`, { distance: 100 })).json() as Row
  t.not(oneField.uid, raid.uid, 'a one-field edit comes back under a new uid')
  t.same((await rows(ng, 'raid')).map((r) => r.uid), [oneField.uid])
  t.same(events, [{ userId: USER, type: 'raid', oldUid: raid.uid, newUid: oneField.uid }])

  ng.engine.reset()
  const twoFields = (await call(ng, 'PUT', `/api/raids/${String(oneField.uid)}`, { distance: 200, clean: 1 })).json() as Row
  t.match(twoFields, { distance: 200, clean: 1, level: 5 })
  t.same((await rows(ng, 'raid')).map((r) => r.uid), [twoFields.uid], 'the row the engine left behind is deleted')
  const deleted = writes(ng).find((r) => r.path.endsWith('/delete'))
  t.same(deleted?.body, [oneField.uid])
  t.same(events[1], { userId: USER, type: 'raid', oldUid: oneField.uid, newUid: twoFields.uid })

  // A lure is unique per lure id: a two-field edit would collide with itself, so the old row goes first.
  const lure = (await call(ng, 'POST', '/api/lures', { lure_id: 501 })).json() as Row
  const lureEdit = await call(ng, 'PUT', `/api/lures/${String(lure.uid)}`, { distance: 300, clean: 1 })
  t.equal(lureEdit.statusCode, 200)
  t.same((await rows(ng, 'lure')).map((r) => [r.uid, r.distance, r.clean]), [[(lureEdit.json() as Row).uid, 300, 1]])

  // Pokemon updates name their uid: it stays.
  const mon = (await call(ng, 'POST', '/api/monsters', { pokemon_id: 4 })).json() as Row
  const monEdit = (await call(ng, 'PUT', `/api/monsters/${String(mon.uid)}`, { min_cp: 10, max_cp: 20, gender: 1 })).json() as Row
  t.equal(monEdit.uid, mon.uid)
  t.equal(events.length, 3, 'the lure changed uid, the pokemon did not')

  // An unchanged update sends nothing.
  ng.engine.reset()
  t.same((await call(ng, 'PUT', `/api/monsters/${String(mon.uid)}`, { min_cp: 10 })).json(), monEdit)
  t.same(writes(ng), [])
})

t.test('PoracleJS keeps uids on one-field edits and leaves the old row on others', async (t) => {
  await fresh(js)
  const events = uidEvents(js, t)
  const raid = (await call(js, 'POST', '/api/raids', { level: 5 })).json() as Row
  const oneField = (await call(js, 'PUT', `/api/raids/${String(raid.uid)}`, { distance: 100 })).json() as Row
  t.equal(oneField.uid, raid.uid)
  const twoFields = (await call(js, 'PUT', `/api/raids/${String(raid.uid)}`, { distance: 200, clean: 1 })).json() as Row
  t.not(twoFields.uid, raid.uid)
  t.same((await rows(js, 'raid')).map((r) => r.uid), [twoFields.uid])
  t.same(events, [{ userId: USER, type: 'raid', oldUid: raid.uid, newUid: twoFields.uid }])
  t.ok(js.engine.messages.length > 0, 'PoracleJS has no silent switch: it confirms writes whatever is asked')
})

t.test('409 for a write that would take over or duplicate a different alarm; nothing is sent', async (t) => {
  for (const testApp of [ng, js]) {
    await fresh(testApp)
    const pool = testApp.app.engineDb.pool
    await insertAlarm(pool, 'raid', { id: USER, level: 5 })
    const b = await insertAlarm(pool, 'raid', { id: USER, level: 3 })
    const c = await insertAlarm(pool, 'raid', { id: USER, level: 5, distance: 100 })
    const lureA = await insertAlarm(pool, 'lure', { id: USER, lure_id: 501 })
    await insertAlarm(pool, 'lure', { id: USER, lure_id: 502, distance: 50 })
    const monster = await insertAlarm(pool, 'pokemon', { id: USER, pokemon_id: 1, min_iv: 50 })
    await insertAlarm(pool, 'pokemon', { id: USER, pokemon_id: 1, min_iv: 50, distance: 10 })
    const before = { raid: await rows(testApp, 'raid'), lure: await rows(testApp, 'lure'), pokemon: await rows(testApp, 'pokemon') }

    const cases: Array<[Method, string, unknown, string]> = [
      // differs from raid a only in distance: the engine would update a
      ['POST', '/api/raids', { level: 5, distance: 50 }, 'raid'],
      // would become identical to a
      ['PUT', `/api/raids/${b}`, { level: 5 }, 'raid'],
      // would differ from a (stored first) only in clean: the engine would rewrite a instead
      ['PUT', `/api/raids/${b}`, { level: 5, clean: 1 }, 'raid'],
      ['PUT', '/api/raids/distance/bulk', { uids: [c], distance: 0 }, 'raid'],
      ['PUT', '/api/raids/distance', 0, 'raid'],
      // lures are unique per lure id
      ['PUT', `/api/lures/${lureA}`, { lure_id: 502 }, 'lure'],
      ['PUT', `/api/lures/${lureA}`, { lure_id: 502, distance: 50 }, 'lure'],
      ['POST', '/api/lures', { lure_id: 502, clean: 1, distance: 7 }, 'lure'],
      ['POST', '/api/monsters', { pokemon_id: 1, min_iv: 60 }, 'pokemon'],
      ['PUT', '/api/monsters/distance', 10, 'pokemon'],
      ['PUT', `/api/monsters/${monster}`, { distance: 10 }, 'pokemon']
    ]
    for (const [method, url, body, trackingType] of cases) {
      const res = await call(testApp, method, url, body)
      t.equal(res.statusCode, 409, `${testApp.engine.mode} ${method} ${url} ${JSON.stringify(body)}`)
      t.match(res.json(), { error: String, trackingType })
    }
    t.same(writes(testApp), [], 'nothing was written')
    t.same({ raid: await rows(testApp, 'raid'), lure: await rows(testApp, 'lure'), pokemon: await rows(testApp, 'pokemon') }, before)
  }
})

t.test('a multi-step change that fails half-way is undone', async (t) => {
  await fresh(ng)
  const raid = (await call(ng, 'POST', '/api/raids', { level: 5 })).json() as Row
  ng.engine.failWith({ path: /\/delete$/, times: 1 })
  const res = await call(ng, 'PUT', `/api/raids/${String(raid.uid)}`, { distance: 100, clean: 1 })
  t.equal(res.statusCode, 502, 'the engine\'s own error is a bad gateway')
  t.same((await rows(ng, 'raid')).map((r) => [r.uid, r.distance, r.clean]), [[raid.uid, 0, 0]], 'the inserted row is removed again')

  // Max battles are insert-only: a distance change inserts copies and deletes the originals.
  const m1 = (await call(ng, 'POST', '/api/maxbattles', { level: 5 })).json() as Row
  const m2 = (await call(ng, 'POST', '/api/maxbattles', { level: 3 })).json() as Row
  ng.engine.failWith({ path: /\/delete$/, times: 1 })
  t.equal((await call(ng, 'PUT', '/api/maxbattles/distance', 700)).statusCode, 502)
  t.same((await rows(ng, 'maxbattle')).map((r) => [r.uid, r.distance]), [[m1.uid, 0], [m2.uid, 0]], 'bulk distance restored')
  t.same((await call(ng, 'PUT', '/api/maxbattles/distance', 700)).json(), { updated: 2 })
  t.same((await rows(ng, 'maxbattle')).map((r) => r.distance), [700, 700])

  // A lure edit deletes first (unique per lure id); when the engine then rejects the row, the alarm comes back.
  const lure = (await call(ng, 'POST', '/api/lures', { lure_id: 503 })).json() as Row
  ng.engine.reset()
  const rejected = await call(ng, 'PUT', `/api/lures/${String(lure.uid)}`, { clean: 1, template: '2', override_areas: ['nowhere'] })
  t.equal(rejected.statusCode, 400, 'the engine\'s rejection is passed on')
  t.match(rejected.json(), { error: /unknown area/ })
  t.same(writes(ng).map((r) => r.method + (r.path.endsWith('/delete') ? ' delete' : '')), ['POST delete', 'POST', 'POST'], 'deleted, rejected, restored')
  t.same((await rows(ng, 'lure')).map((r) => [r.lure_id, r.clean, r.template]), [[503, 0, '1']])
})

t.test('partial updates keep stored fields, including columns the API does not know', async (t) => {
  await fresh(ng)
  await ng.app.engineDb.pool.query('ALTER TABLE monsters ADD COLUMN IF NOT EXISTS future_filter int NOT NULL DEFAULT 0')
  t.teardown(() => ng.app.engineDb.pool.query('ALTER TABLE monsters DROP COLUMN IF EXISTS future_filter'))
  const uid = await insertAlarm(ng.app.engineDb.pool, 'pokemon', {
    id: USER, pokemon_id: 25, min_cp: 100, max_cp: 2000, atk: 10, gender: 2, template: '3', rarity: 4, future_filter: 7
  })
  const res = await call(ng, 'PUT', `/api/monsters/${uid}`, { min_iv: 50, max_cp: null, gender: null })
  t.equal(res.statusCode, 200)
  t.match(res.json(), { uid, min_iv: 50, min_cp: 100, max_cp: 2000, atk: 10, gender: 2, template: '3', rarity: 4, future_filter: 7 })
  const body = (writes(ng)[0] as RecordedRequest).body as Row
  t.match(body, { uid, min_iv: 50, min_cp: 100, max_cp: 2000, atk: 10, gender: 2, template: '3', rarity: 4, future_filter: 7 }, 'the stored row went back whole')
  for (const field of ['profile_no', 'id', 'description', 'ping']) t.notOk(field in body, `${field} not sent`)

  const fort = (await call(ng, 'POST', '/api/fort-changes', { fort_type: 'pokestop', change_types: ['name'] })).json() as Row
  const fortEdit = (await call(ng, 'PUT', `/api/fort-changes/${String(fort.uid)}`, { distance: 10 })).json() as Row
  t.same(fortEdit.change_types, ['name'])
  t.equal(fortEdit.fort_type, 'pokestop')
})

t.test('feature gates close every endpoint of a type, reads included, from the site or the engine', async (t) => {
  await fresh(ng)
  const admin = bearer(ng.app, { userId: OTHER, isAdmin: true })
  const probe = async (c: TypeCase, reason: string) => {
    ng.engine.reset()
    for (const [method, url, body] of routesOf(c, 1)) {
      const res = await call(ng, method, url, body)
      t.equal(res.statusCode, 403, `${reason}: ${method} ${url}`)
      t.same(res.json(), { error: 'This feature is disabled by the administrator.', disableKey: c.disableKey })
    }
    t.same(tracking(ng), [], `${reason}: no alarm was read or written`)
  }
  for (const c of TYPES) {
    await ng.app.inject({ method: 'PUT', url: `/api/settings/${c.disableKey}`, headers: admin, payload: { value: 'true' } })
    await probe(c, `site ${c.disableKey}`)
    await ng.app.inject({ method: 'PUT', url: `/api/settings/${c.disableKey}`, headers: admin, payload: { value: 'false' } })
  }
  for (const c of TYPES) {
    ng.engine.set(c.hook === null ? { disableFortUpdate: true, disabledHooks: [] } : { disabledHooks: [c.hook], disableFortUpdate: false })
    ng.clock.advance(TEN_MINUTES)
    await probe(c, `engine ${c.hook ?? 'disable_fort_update'}`)
    const open = TYPES.find((o) => o.disableKey !== c.disableKey) as TypeCase
    t.equal((await call(ng, 'GET', open.path)).statusCode, 200, `${open.type} stays open`)
  }
  ng.engine.set({ disabledHooks: ['raid'], disableFortUpdate: false })
  ng.clock.advance(TEN_MINUTES)
  const egg = await insertAlarm(ng.app.engineDb.pool, 'egg', { id: USER, level: 5 })
  ng.engine.reset()
  t.equal((await call(ng, 'POST', `/api/test-alert/egg/${egg}`)).statusCode, 403, 'test alerts are gated too')
  t.same(tracking(ng), [])
  t.same(ng.engine.testAlerts, [])
})

t.test('engine down, timing out or answering garbage: 503, 504 or 502 with a clear error', async (t) => {
  await fresh(ng)
  ng.engine.failWith({ drop: true, path: /^\/api\/tracking\// })
  let res = await call(ng, 'GET', '/api/monsters')
  t.equal(res.statusCode, 503, 'unreachable')
  t.same(res.json(), { error: 'The alarm engine is unreachable.' })
  res = await call(ng, 'POST', '/api/raids', { level: 5 })
  t.equal(res.statusCode, 503)
  t.equal((await call(ng, 'GET', '/api/dashboard')).statusCode, 503)
  // The dashboard's two requests share the failed read: the counts fail, the place answers without them.
  const [counts, place] = await Promise.all([call(ng, 'GET', '/api/dashboard'), call(ng, 'GET', '/api/dashboard/place?lat=51.1&lon=7.1')])
  t.equal(counts.statusCode, 503, 'the counts: engine unreachable')
  t.same([place.statusCode, place.json().distanceAlarms], [200, 0], 'the place: no alarm count, no failure')

  ng.engine.reset()
  ng.engine.failWith({ status: 200, body: '<html>oops</html>', contentType: 'text/html', path: /^\/api\/tracking\// })
  res = await call(ng, 'GET', '/api/monsters')
  t.equal(res.statusCode, 502, 'HTML is a bad gateway')
  t.match(res.json(), { error: 'The alarm engine sent an answer this service cannot use. Please try again later.' }, 'an unreadable answer leaks nothing')
  t.notMatch(res.body, /oops|html/, 'not even a word of it')
  ng.engine.reset()
  ng.engine.failWith({ status: 200, body: '{"status":"ok","pokemon":"nope"}', path: /^\/api\/tracking\// })
  t.same((await call(ng, 'GET', '/api/monsters')).json(), [], 'a missing list reads as empty')
  ng.engine.reset()
  ng.engine.failWith({ status: 502, body: 'bad gateway', contentType: 'text/plain', path: /^\/api\/tracking\// })
  t.equal((await call(ng, 'DELETE', '/api/monsters')).statusCode, 502)
})

t.test('a hanging engine times out with 504', async (t) => {
  const slow = await build(t, { env: { ENGINE_TIMEOUT_MS: '300' } })
  await seedHuman(slow, { id: USER })
  slow.engine.hang()
  const res = await call(slow, 'GET', '/api/raids')
  t.equal(res.statusCode, 504)
  t.same(res.json(), { error: 'The alarm engine timed out after 300 ms.' })
})

t.test('dashboard: counts per type from one engine call', async (t) => {
  for (const testApp of [ng, js]) {
    await fresh(testApp)
    const pool = testApp.app.engineDb.pool
    for (const type of ['pokemon', 'pokemon', 'raid', 'egg', 'quest', 'invasion', 'lure', 'nest', 'gym', 'fort', 'maxbattle', 'maxbattle'] as EngineAlarmType[]) {
      await insertAlarm(pool, type, { id: USER, ...(type === 'invasion' ? { grunt_type: `t${Math.random()}` } : {}) })
    }
    await insertAlarm(pool, 'pokemon', { id: USER, profile_no: 2 })
    await insertAlarm(pool, 'raid', { id: OTHER })
    testApp.engine.reset()
    const res = await call(testApp, 'GET', '/api/dashboard')
    t.equal(res.statusCode, 200)
    const ngOnly = testApp.engine.mode === 'ng'
    t.same(res.json(), { monsters: 2, raids: 1, eggs: 1, quests: 1, invasions: 1, lures: 1, nests: 1, gyms: 1, fortChanges: ngOnly ? 1 : 0, maxBattles: ngOnly ? 2 : 0 })
    t.same(tracking(testApp).map((r) => r.path), [`/api/tracking/all/${USER}`])
    t.equal((await testApp.app.inject({ method: 'GET', url: '/api/dashboard' })).statusCode, 401)

    // The page asks for its counts and its place at once: one read of the member's alarms serves both.
    testApp.engine.reset()
    const [counts, place] = await Promise.all([call(testApp, 'GET', '/api/dashboard'), call(testApp, 'GET', '/api/dashboard/place?lat=51.1&lon=7.1')])
    t.same([counts.statusCode, place.statusCode], [200, 200])
    t.equal(counts.json().monsters, 2, 'the counts, from the shared read')
    t.same(tracking(testApp).map((r) => r.path), [`/api/tracking/all/${USER}`], 'one engine read for the counts and the place')
    // Nothing of it is kept: the next visit counts an alarm added in between.
    await insertAlarm(pool, 'pokemon', { id: USER })
    t.equal((await call(testApp, 'GET', '/api/dashboard')).json().monsters, 3, 'a new alarm counts at once')
  }
})

t.test('test alerts: a payload inside the alarm\'s filters, delivered by PoracleNG; rate limited per user', async (t) => {
  await fresh(ng, [{ id: USER }, { id: OTHER }, { id: 'tester-2' }])
  const pool = ng.app.engineDb.pool
  const mon = await insertAlarm(pool, 'pokemon', { id: USER, pokemon_id: 25, min_iv: 90, atk: 15, min_level: 35, max_cp: 1000, template: '5' })
  const res = await call(ng, 'POST', `/api/test-alert/pokemon/${mon}`)
  t.equal(res.statusCode, 200)
  t.same(res.json(), { status: 'ok', message: 'Test alert sent' })
  const sent = ng.engine.testAlerts[0] as { type: string, webhook: Row, target: Row }
  t.equal(sent.type, 'pokemon')
  t.match(sent.target, { id: USER, template: '5' })
  t.ok(Math.abs((sent.target.latitude as number) - 51.1) < 1e-4 && Math.abs((sent.target.longitude as number) - 7.1) < 1e-4, 'at the user\'s location')
  const w = sent.webhook
  const iv = ((w.individual_attack as number) + (w.individual_defense as number) + (w.individual_stamina as number)) / 45 * 100
  t.ok(iv >= 90 && w.individual_attack === 15, 'IVs inside the filter')
  t.ok((w.pokemon_level as number) >= 35 && (w.cp as number) <= 1000)
  t.equal(w.pokemon_id, 25)

  const others: Array<[EngineAlarmType, Row]> = [['raid', { level: 5 }], ['egg', { level: 3 }], ['quest', { reward_type: 3, reward: 1000 }], ['invasion', { grunt_type: 'fire', gender: 2 }], ['lure', { lure_id: 504 }], ['gym', { team: 2 }]]
  for (const [type, fields] of others) {
    const uid = await insertAlarm(pool, type, { id: OTHER, ...fields })
    const answer = await call(ng, 'POST', `/api/test-alert/${type}/${uid}`, undefined, OTHER)
    t.equal(answer.statusCode, type === 'gym' ? 429 : 200, `${type}`)
  }
  const types = (ng.engine.testAlerts as Array<{ type: string, webhook: Row }>).map((a) => a.type)
  t.same(types, ['pokemon', 'raid', 'egg', 'quest', 'invasion', 'lure'], 'the sixth of one user in a minute was refused')
  t.equal((ng.engine.testAlerts[4] as { webhook: Row }).webhook.grunt_type, 18, 'the engine\'s grunt id for a female fire grunt')

  const nest = await insertAlarm(pool, 'nest', { id: 'tester-2', pokemon_id: 1 })
  t.equal((await call(ng, 'POST', `/api/test-alert/nest/${nest}`, undefined, 'tester-2')).statusCode, 501)
  t.equal((await call(ng, 'POST', '/api/test-alert/fort/1', undefined, 'tester-2')).statusCode, 400)
  t.equal((await call(ng, 'POST', '/api/test-alert/pokemon/abc', undefined, 'tester-2')).statusCode, 400)
  ng.engine.failWith({ path: '/api/test', status: 500, body: '{"error":"render failed"}' })
  const gymUid = await insertAlarm(pool, 'gym', { id: 'tester-2', team: 1 })
  const failed = await call(ng, 'POST', `/api/test-alert/gym/${gymUid}`, undefined, 'tester-2')
  t.equal(failed.statusCode, 500)
  t.same(failed.json(), { error: 'Failed to send test alert.' })

  await fresh(js)
  const jsMon = await insertAlarm(js.app.engineDb.pool, 'pokemon', { id: USER, pokemon_id: 25 })
  const jsAnswer = await call(js, 'POST', `/api/test-alert/pokemon/${jsMon}`)
  t.equal(jsAnswer.statusCode, 501)
  t.match(jsAnswer.json(), { error: /PoracleJS/ })
})
