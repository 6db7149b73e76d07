import t from 'tap'
import { build, bearer, seedHuman, type Test, type TestApp } from './helper.js'
import { insertAlarm, insertProfile, type EngineAlarmType } from './fakes/engine-db.js'
import { sharedSets, userGeofences } from '../db/schema/service.js'
import { ALARM_FIELDS } from '../schemas/alarms.js'
import { ALARM_TABLES } from '../plugins/data/engine-db.js'
import { ALARM_TYPES, KIND_OF, type AlarmType } from '../schemas/alarm-types.js'

/**
 * Shared alarm sets: what a snapshot keeps (filters only, checked field by field), who may open, revoke
 * and copy a set, copies into every alarm type on both engine generations (one batch per type), duplicates
 * skipped, undo, types and areas the site does not offer, bad input.
 */
const SHARER = '100000000000000002'
const VIEWER = '100000000000000003'
const DAY_MS = 86_400_000

/** One alarm of each type as the sharer keeps it, with a filter that sets it apart from the engine's defaults. */
const OWN_ALARMS: Record<AlarmType, Record<string, unknown>> = {
  pokemon: { pokemon_id: 25, min_iv: 90 },
  raid: { level: 5 },
  egg: { level: 6 },
  quest: { reward_type: 7, reward: 25 },
  invasion: { grunt_type: 'giovanni' },
  lure: { lure_id: 502 },
  nest: { pokemon_id: 1 },
  gym: { team: 2 },
  fort: { fort_type: 'pokestop', change_types: '["name"]' },
  maxbattle: { level: 5 }
}

/** What the sharer's engine rows carry that is theirs: each must be gone from the snapshot. */
const PERSONAL = { ping: 'ring me at 12 Elm Street', override_location_label: 'home', template: '3', distance: 750 }

const headersOf = (s: TestApp, userId: string) => bearer(s.app, { userId })

async function setup (t: Test, engineMode: 'ng' | 'js' = 'ng'): Promise<TestApp> {
  const s = await build(t, { engineMode })
  s.engine.set({ fences: [{ name: 'Town', path: [[51, 7], [51, 7.2], [51.2, 7.2], [51.2, 7]] }, { name: 'my-street', path: [[51, 7], [51, 7.01], [51.01, 7.01], [51.01, 7]] }] })
  await seedHuman(s, { id: SHARER, name: 'Sharon Sharer', area: ['town'], latitude: 51.123456, longitude: 7.654321 })
  await seedHuman(s, { id: VIEWER, name: 'Vic', area: ['town'], latitude: 51.1, longitude: 7.1 })
  return s
}

const typesOf = (engineMode: 'ng' | 'js') => ALARM_TYPES.filter((type) => KIND_OF[type].generations.includes(engineMode))

/** The sharer's alarms of every type the generation has, in profile 1, each with personal delivery fields. */
async function seedSharerAlarms (s: TestApp, engineMode: 'ng' | 'js', overrideAreas = '["town","my-street"]'): Promise<void> {
  for (const type of typesOf(engineMode)) {
    await insertAlarm(s.app.engineDb.pool, type as EngineAlarmType, { id: SHARER, ...OWN_ALARMS[type], ...PERSONAL, ...(engineMode === 'ng' ? { override_areas: overrideAreas, distance: 0 } : {}) })
  }
}

const share = (s: TestApp, payload: object, userId = SHARER) =>
  s.app.inject({ method: 'POST', url: '/api/shared-sets', headers: headersOf(s, userId), payload })
const open = (s: TestApp, token: string, userId = VIEWER) =>
  s.app.inject({ method: 'GET', url: `/api/shared-sets/${token}`, headers: headersOf(s, userId) })
const copy = (s: TestApp, token: string, payload: object, userId = VIEWER) =>
  s.app.inject({ method: 'POST', url: `/api/shared-sets/${token}/copy`, headers: headersOf(s, userId), payload })

const rowsOf = async (s: TestApp, type: AlarmType, userId = VIEWER) =>
  await s.app.engineDb.pool.query(`SELECT * FROM \`${ALARM_TABLES[type]}\` WHERE id = ? ORDER BY uid`, [userId]) as Array<Record<string, unknown>>

const storedSnapshot = async (s: TestApp, token: string) => {
  const [row] = await s.app.db.db.select().from(sharedSets)
  t.equal(row?.token, token, 'the one stored set')
  return (typeof row?.snapshotJson === 'string' ? JSON.parse(row.snapshotJson) : row?.snapshotJson) as Array<Record<string, unknown>>
}

t.test('the snapshot keeps each alarm\'s filters and nothing of the sharer, field by field', async (t) => {
  const s = await setup(t)
  await s.app.db.db.insert(userGeofences).values({ humanId: SHARER, kojiName: 'my-street', displayName: 'My street', status: 'active', polygonJson: '[[51,7],[51,7.01],[51.01,7.01]]', createdAt: '2026-11-26 12:00:00', updatedAt: '2026-11-26 12:00:00' })
  await seedSharerAlarms(s, 'ng')
  const res = await share(s, { profileNo: 1, title: 'Everything I track' })
  t.equal(res.statusCode, 201, res.body)
  const created = res.json() as { token: string, url: string, alarms: number }
  t.match(created.token, /^[A-Za-z0-9_-]{22}$/, '128 random bits as base64url')
  t.equal(created.url, `https://alarms.example.org/s/${created.token}`, 'on the site\'s public origin')
  t.equal(created.alarms, 10)

  const snapshot = await storedSnapshot(s, created.token)
  t.same(snapshot.map((a) => a.type), ALARM_TYPES, 'one alarm per type, in the API\'s order')
  for (const alarm of snapshot) {
    const type = alarm.type as AlarmType
    const allowed = new Set(['type', ...Object.keys(ALARM_FIELDS[type])])
    for (const field of Object.keys(alarm)) {
      t.ok(allowed.has(field), `${type}.${field} is a filter of the type`)
      t.notOk(['uid', 'id', 'profile_no', 'ping', 'override_location_label', 'description'].includes(field), `${type}.${field} is not personal`)
    }
    for (const [field, value] of Object.entries(OWN_ALARMS[type])) {
      t.same(alarm[field], field === 'change_types' ? ['name'] : value, `${type}.${field} kept`)
    }
    t.same(alarm.override_areas, ['town'], `${type}: the site's area kept by name, the member's private fence dropped`)
    t.equal(alarm.template, '3', `${type}: the site's template kept`)
  }
  const text = JSON.stringify(snapshot)
  for (const secret of [SHARER, 'Sharon', '51.123', '7.654', 'Elm Street', 'home', 'my-street']) t.notOk(text.includes(secret), `"${secret}" is nowhere in the snapshot`)

  const view = await open(s, created.token)
  t.equal(view.statusCode, 200)
  const body = view.json() as Record<string, unknown>
  t.same(Object.keys(body).sort(), ['alarms', 'copies', 'expiresAt', 'mine', 'sharer', 'summary', 'title', 'token', 'unavailable'], 'only the set\'s own fields')
  t.match(body, { title: 'Everything I track', sharer: 'a member', summary: '10 alarms: 1 pokemon, 1 raid, 1 egg, 1 quest, 1 invasion, 1 lure, 1 nest, 1 gym, 1 fort change, 1 max battle', copies: 0, mine: false, unavailable: [] })
  t.notOk(view.body.includes(SHARER) || view.body.includes('Sharon'), 'the answer names nobody')
  t.equal((await open(s, created.token, SHARER)).json().mine, true, 'the sharer sees it is theirs')
})

t.test('the sharer\'s chosen name is shown; a selection of any types from any profile', async (t) => {
  const s = await setup(t)
  const raid = await insertAlarm(s.app.engineDb.pool, 'raid', { id: SHARER, level: 5 })
  await insertProfile(s.app.engineDb.pool, { id: SHARER, profileNo: 2, name: 'Away' })
  const invasion = await insertAlarm(s.app.engineDb.pool, 'invasion', { id: SHARER, grunt_type: 'cliff', profile_no: 2 })
  const res = await share(s, { displayName: 'Raid Queen', expiresInDays: 7, alarms: [{ type: 'raid', uid: raid }, { type: 'invasion', uid: invasion }] })
  t.equal(res.statusCode, 201, res.body)
  const view = (await open(s, (res.json() as { token: string }).token)).json() as { sharer: string, title: string, alarms: unknown[], expiresAt: string }
  t.equal(view.sharer, 'Raid Queen')
  t.equal(view.title, '2 alarms: 1 raid, 1 invasion', 'the summary stands for a missing title')
  t.match(view.alarms, [{ type: 'raid', level: 5 }, { type: 'invasion', grunt_type: 'cliff' }])
  t.ok(view.expiresAt.startsWith('2'), 'a week from now')

  const notMine = await insertAlarm(s.app.engineDb.pool, 'raid', { id: VIEWER, level: 3 })
  const refused = await share(s, { alarms: [{ type: 'raid', uid: notMine }] })
  t.equal(refused.statusCode, 400, 'another member\'s alarm cannot be shared')
  t.match(refused.json(), { details: [{ field: '/alarms/0' }] })
})

t.test('revoked and expired links answer 404 to everyone; an unknown token (another site\'s) never resolves', async (t) => {
  const s = await setup(t)
  const uid = await insertAlarm(s.app.engineDb.pool, 'raid', { id: SHARER, level: 5 })
  const forever = (await share(s, { alarms: [{ type: 'raid', uid }] })).json().token as string
  const daily = (await share(s, { alarms: [{ type: 'raid', uid }], expiresInDays: 1 })).json().token as string

  t.equal((await s.app.inject({ method: 'DELETE', url: `/api/shared-sets/${forever}`, headers: headersOf(s, VIEWER) })).statusCode, 404, 'only the sharer revokes')
  t.equal((await open(s, forever)).statusCode, 200, 'still there')
  t.equal((await s.app.inject({ method: 'DELETE', url: `/api/shared-sets/${forever}`, headers: headersOf(s, SHARER) })).statusCode, 204)
  for (const user of [SHARER, VIEWER]) {
    t.equal((await open(s, forever, user)).statusCode, 404, `revoked: 404 for ${user}`)
    t.equal((await copy(s, forever, { profileNo: 1 }, user)).statusCode, 404, `revoked: no copy for ${user}`)
  }
  t.equal((await s.app.inject({ method: 'DELETE', url: `/api/shared-sets/${forever}`, headers: headersOf(s, SHARER) })).statusCode, 404, 'revoked twice')

  t.equal((await open(s, daily)).statusCode, 200)
  s.clock.advance(DAY_MS + 1000)
  for (const user of [SHARER, VIEWER]) {
    t.equal((await open(s, daily, user)).statusCode, 404, `expired: 404 for ${user}`)
    t.equal((await copy(s, daily, { profileNo: 1 }, user)).statusCode, 404, `expired: no copy for ${user}`)
  }
  const mine = (await s.app.inject({ url: '/api/shared-sets/mine', headers: headersOf(s, SHARER) })).json() as Array<{ token: string, expired: boolean }>
  t.match(mine, [{ token: daily, expired: true }], 'the sharer still lists the expired set, marked')

  t.equal((await open(s, 'AAAAAAAAAAAAAAAAAAAAAA')).statusCode, 404, 'a token this site never made')
  t.equal((await open(s, daily.toUpperCase() === daily ? daily.toLowerCase() : daily.toUpperCase())).statusCode, 404, 'the token compares case-sensitively')
})

for (const engineMode of ['ng', 'js'] as const) {
  t.test(`${engineMode}: a copy writes every type in one batch each, skips duplicates, and undoes`, async (t) => {
    const s = await setup(t, engineMode)
    await seedSharerAlarms(s, engineMode, '["town"]')
    const shared = await share(s, { profileNo: 1 })
    t.equal(shared.statusCode, 201, shared.body)
    const token = shared.json().token as string
    const types = typesOf(engineMode)

    s.engine.requests.length = 0
    const res = await copy(s, token, { profileNo: 1 })
    t.equal(res.statusCode, 200, res.body)
    const result = res.json() as { added: Array<{ type: string, uid: number }>, skipped: unknown[], undo: { profileNo: number, alarms: unknown[] }, requested: number }
    t.equal(result.requested, types.length)
    t.same(result.added.map((a) => a.type), types, 'one alarm of each type added')
    t.same(result.skipped, [])
    const creates = s.engine.requests.filter((r) => r.method === 'POST' && /^\/api\/tracking\/[a-z]+\/\d+$/.test(r.path))
    t.equal(creates.length, types.length, 'one engine create per type')
    for (const type of types) {
      const rows = await rowsOf(s, type)
      t.equal(rows.length, 1, `${type}: one alarm`)
      for (const [field, value] of Object.entries(OWN_ALARMS[type])) t.equal(String(rows[0]?.[field]), String(value), `${type}.${field} copied`)
      t.equal(Number(rows[0]?.profile_no), 1)
      t.notOk(String(rows[0]?.ping ?? '').includes('Elm'), `${type}: the sharer's words stayed home`)
    }
    t.equal((await open(s, token)).json().copies, 1, 'the copy is counted')

    const again = (await copy(s, token, { profileNo: 1 })).json() as typeof result
    t.same(again.added, [], 'nothing added twice')
    t.ok(again.skipped.every((k) => (k as { reason: string }).reason === 'already-have'), 'each a duplicate')
    t.equal((await open(s, token)).json().copies, 1, 'a copy that added nothing is not counted')

    const undone = await s.app.inject({ method: 'POST', url: '/api/shared-sets/undo-copy', headers: headersOf(s, VIEWER), payload: result.undo })
    t.equal(undone.statusCode, 204, undone.body)
    for (const type of types) t.equal((await rowsOf(s, type)).length, 0, `${type}: the copy is taken back`)
    t.equal((await rowsOf(s, 'raid', SHARER)).length, 1, 'the sharer\'s alarms stay')
  })
}

t.test('a copy into another profile writes there and leaves the active one active', async (t) => {
  const s = await setup(t)
  const uid = await insertAlarm(s.app.engineDb.pool, 'raid', { id: SHARER, level: 5 })
  await insertProfile(s.app.engineDb.pool, { id: VIEWER, profileNo: 2, name: 'Weekend' })
  const token = (await share(s, { alarms: [{ type: 'raid', uid }] })).json().token as string
  const res = await copy(s, token, { profileNo: 2 })
  t.equal(res.statusCode, 200, res.body)
  t.same((await rowsOf(s, 'raid')).map((r) => Number(r.profile_no)), [2])
  const [human] = await s.app.engineDb.pool.query('SELECT current_profile_no FROM humans WHERE id = ?', [VIEWER]) as Array<{ current_profile_no: number }>
  t.equal(Number(human?.current_profile_no), 1, 'switched back')
  t.equal((await copy(s, token, { profileNo: 9 })).statusCode, 404, 'a profile the viewer does not have')

  const undo = (res.json() as { undo: object }).undo
  t.equal((await s.app.inject({ method: 'POST', url: '/api/shared-sets/undo-copy', headers: headersOf(s, VIEWER), payload: undo })).statusCode, 204)
  t.same(await rowsOf(s, 'raid'), [], 'undone in the profile it was copied to')
})

t.test('types and areas this site does not offer are listed and skipped with a message, never an error', async (t) => {
  const s = await setup(t)
  await seedSharerAlarms(s, 'ng', '["town"]')
  const token = (await share(s, { profileNo: 1 })).json().token as string
  await s.app.siteSettings.mark('disable_mons', 'true')
  s.engine.set({ fences: [{ name: 'Harbour', path: [[51, 7], [51, 7.2], [51.2, 7.2], [51.2, 7]] }] })
  s.clock.advance(60_000)
  const view = (await open(s, token)).json() as { unavailable: Array<{ index: number, reason: string, message: string }> }
  t.match(view.unavailable[0], { index: 0, reason: 'type-off', message: /switched off/ })
  t.ok(view.unavailable.slice(1).every((u) => u.reason === 'unknown-area' && u.message.includes('town')), 'the other alarms name an area the site no longer has')

  const res = await copy(s, token, { profileNo: 1, indexes: [0, 1] })
  t.equal(res.statusCode, 200, res.body)
  t.match(res.json(), { added: [], skipped: [{ index: 0, type: 'pokemon', reason: 'type-off' }, { index: 1, type: 'raid', reason: 'unknown-area' }] })
})

t.test('js: fort change and max battle alarms of a set are skipped as not offered by the engine', async (t) => {
  const s = await setup(t, 'js')
  const uid = await insertAlarm(s.app.engineDb.pool, 'raid', { id: SHARER, level: 5 })
  const token = (await share(s, { alarms: [{ type: 'raid', uid }] })).json().token as string
  // A set made on this site while it ran PoracleNG: its fort change alarm has no place here now.
  await s.app.db.pool.query('UPDATE shared_sets SET snapshot_json = ?', [JSON.stringify([{ type: 'raid', level: 5 }, { type: 'fort', fort_type: 'pokestop' }])])
  const res = await copy(s, token, { profileNo: 1 })
  t.equal(res.statusCode, 200, res.body)
  t.match(res.json(), { added: [{ index: 0, type: 'raid' }], skipped: [{ index: 1, type: 'fort', reason: 'type-not-offered', message: /not offered/ }] })
})

t.test('bad input is a 4xx that changes nothing', async (t) => {
  const s = await setup(t)
  const uid = await insertAlarm(s.app.engineDb.pool, 'raid', { id: SHARER, level: 5 })
  for (const payload of [{}, { alarms: [] }, { alarms: [{ type: 'dragon', uid }] }, { alarms: [{ type: 'raid', uid: 0 }] }, { alarms: [{ type: 'raid', uid }], expiresInDays: 3 },
    { alarms: [{ type: 'raid', uid }], title: '' }, { alarms: [{ type: 'raid', uid }], profileNo: 1 }, { alarms: [{ type: 'raid', uid }], owner: SHARER }]) {
    t.equal((await share(s, payload)).statusCode, 400, JSON.stringify(payload))
  }
  t.equal((await share(s, { profileNo: 7 })).statusCode, 404, 'a profile the sharer does not have')
  t.same(await s.app.db.db.select().from(sharedSets), [], 'nothing stored')

  const token = (await share(s, { alarms: [{ type: 'raid', uid }] })).json().token as string
  for (const payload of [{}, { profileNo: 0 }, { profileNo: 1, indexes: [] }, { profileNo: 1, indexes: [0, 0] }, { profileNo: 1, indexes: [1] }, { profileNo: 1, indexes: [-1] }]) {
    t.equal((await copy(s, token, payload)).statusCode, 400, JSON.stringify(payload))
  }
  t.equal((await open(s, 'short')).statusCode, 400, 'not a token')
  t.equal((await s.app.inject({ url: `/api/shared-sets/${token}` })).statusCode, 401, 'signed-in members only')
  t.same(await rowsOf(s, 'raid'), [], 'nothing copied')
})

t.test('an administrator\'s switch turns sharing off: no new sets, no links', async (t) => {
  const s = await setup(t)
  const uid = await insertAlarm(s.app.engineDb.pool, 'raid', { id: SHARER, level: 5 })
  const token = (await share(s, { alarms: [{ type: 'raid', uid }] })).json().token as string
  await s.app.siteSettings.mark('disable_sharing', 'true')
  t.match((await share(s, { alarms: [{ type: 'raid', uid }] })).json(), { disableKey: 'disable_sharing' })
  t.equal((await open(s, token)).statusCode, 403)
  t.equal((await copy(s, token, { profileNo: 1 })).statusCode, 403)
  t.equal((await s.app.inject({ method: 'DELETE', url: `/api/shared-sets/${token}`, headers: headersOf(s, SHARER) })).statusCode, 204, 'a sharer can still revoke')
})

t.test('a copy the engine fails midway takes back what it wrote and switches the profile back', async (t) => {
  const s = await setup(t)
  const raid = await insertAlarm(s.app.engineDb.pool, 'raid', { id: SHARER, level: 5 })
  const invasion = await insertAlarm(s.app.engineDb.pool, 'invasion', { id: SHARER, grunt_type: 'cliff' })
  await insertProfile(s.app.engineDb.pool, { id: VIEWER, profileNo: 2, name: 'Weekend' })
  const token = (await share(s, { alarms: [{ type: 'raid', uid: raid }, { type: 'invasion', uid: invasion }] })).json().token as string
  // The raids are written first; the engine then fails the invasions' read.
  s.engine.failWith({ path: /^\/api\/tracking\/invasion\//, status: 500 })
  const res = await copy(s, token, { profileNo: 2 })
  t.ok(res.statusCode >= 500 && res.statusCode < 600, `the engine's fault is the answer: ${res.statusCode}`)
  t.notOk(res.body.includes(token), 'the token is not in the error')
  s.engine.reset()
  t.same(await rowsOf(s, 'raid'), [], 'the raid written before the fault is taken back')
  const [human] = await s.app.engineDb.pool.query('SELECT current_profile_no FROM humans WHERE id = ?', [VIEWER]) as Array<{ current_profile_no: number }>
  t.equal(Number(human?.current_profile_no), 1, 'switched back to the active profile')
  t.equal((await open(s, token)).json().copies, 0, 'not counted')

  s.engine.failWith({ status: 503 })
  t.equal((await open(s, token)).statusCode, 200, 'opening answers from what the service last knew of the engine')
  t.equal((await copy(s, token, { profileNo: 1 })).statusCode, 503, 'a copy waits for the engine')
  s.engine.reset()
})

t.test('rate-limited per member', async (t) => {
  const s = await setup(t)
  const uid = await insertAlarm(s.app.engineDb.pool, 'raid', { id: SHARER, level: 5 })
  const statuses: number[] = []
  for (let i = 0; i < 21; i++) statuses.push((await share(s, { alarms: [{ type: 'raid', uid }] })).statusCode)
  t.same(statuses.slice(0, 20), Array(20).fill(201))
  t.equal(statuses[20], 429, 'the 21st share within a minute waits')
  t.equal((await open(s, (await s.app.inject({ url: '/api/shared-sets/mine', headers: headersOf(s, SHARER) })).json()[0].token)).statusCode, 200, 'another member is not held up')
})

t.test('the link\'s page carries the title and summary for link previews, without sign-in, and nothing else of the set', async (t) => {
  const s = await setup(t)
  const uid = await insertAlarm(s.app.engineDb.pool, 'raid', { id: SHARER, level: 5, ping: 'Elm Street' })
  const token = (await share(s, { alarms: [{ type: 'raid', uid }], title: 'Raids <b>& "more"</b> $&', displayName: 'Sharon S' })).json().token as string
  const page = await s.app.inject({ url: `/s/${token}`, headers: { accept: 'text/html' } })
  t.equal(page.statusCode, 200)
  t.match(page.headers['content-type'], /text\/html/)
  const escaped = 'Raids &lt;b&gt;&amp; &quot;more&quot;&lt;/b&gt; $&amp;'
  t.ok(page.body.includes(`<meta property="og:title" content="${escaped}" />`), 'the title, escaped')
  t.ok(page.body.includes('<meta property="og:description" content="1 raid alarm" />'), 'the summary')
  t.ok(page.body.includes(`<title>${escaped}</title>`))
  for (const secret of ['Sharon', SHARER, 'Elm Street', '"level"', token.slice(0, 10) + 'x']) t.notOk(page.body.includes(secret), `"${secret}" is not in the page`)
  const metas = page.body.match(/<meta property="og:[a-z]+" content="[^"]*"/g) ?? []
  t.same(metas.map((m) => m.split('"')[1]), ['og:title', 'og:description', 'og:type'], 'only these Open Graph tags')

  const plain = (await s.app.inject({ url: '/s/AAAAAAAAAAAAAAAAAAAAAA', headers: { accept: 'text/html' } })).body
  t.notOk(plain.includes('og:title'), 'a link that does not answer: the plain page')
  await s.app.inject({ method: 'DELETE', url: `/api/shared-sets/${token}`, headers: headersOf(s, SHARER) })
  t.notOk((await s.app.inject({ url: `/s/${token}`, headers: { accept: 'text/html' } })).body.includes('og:title'), 'revoked: nothing shown')
  t.equal((await s.app.inject({ url: `/s/${token}` })).statusCode, 404, 'not a browser: a real 404')
})

t.test('the community catalogue: offered sets only, searched by type and species, most copied first; its switch closes it', async (t) => {
  const s = await setup(t)
  const pikachu = await insertAlarm(s.app.engineDb.pool, 'pokemon', { id: SHARER, pokemon_id: 25 })
  const mewtwo = await insertAlarm(s.app.engineDb.pool, 'pokemon', { id: SHARER, pokemon_id: 150 })
  const raid = await insertAlarm(s.app.engineDb.pool, 'raid', { id: SHARER, level: 5 })
  const offered = async (payload: object) => (await share(s, { inCatalogue: true, ...payload })).json().token as string
  const sparks = await offered({ title: 'Sparks', alarms: [{ type: 'pokemon', uid: pikachu }] })
  const legends = await offered({ title: 'Legends', displayName: 'Prof', alarms: [{ type: 'pokemon', uid: mewtwo }, { type: 'raid', uid: raid }] })
  await share(s, { title: 'Private', alarms: [{ type: 'raid', uid: raid }] })
  t.equal((await copy(s, legends, { profileNo: 1 })).statusCode, 200)

  const search = async (query = '') => (await s.app.inject({ url: `/api/shared-sets${query}`, headers: headersOf(s, VIEWER) })).json() as Array<{ title: string, sharer: string, copies: number, types: string[] }>
  t.match(await search(), [{ title: 'Legends', sharer: 'Prof', copies: 1, types: ['pokemon', 'raid'] }, { title: 'Sparks', sharer: 'a member', copies: 0 }], 'most copied first; the private set is not listed')
  t.equal((await search()).length, 2)
  t.same((await search('?type=raid')).map((e) => e.title), ['Legends'], 'by type')
  t.same((await search('?species=25')).map((e) => e.title), ['Sparks'], 'by species')
  t.same((await search('?species=2')).map((e) => e.title), [], 'a species id is a whole word (#2 is not #25)')
  t.equal((await s.app.inject({ url: '/api/shared-sets?type=dragon', headers: headersOf(s, VIEWER) })).statusCode, 400)

  await s.app.siteSettings.mark('disable_shared_catalogue', 'true')
  t.match((await s.app.inject({ url: '/api/shared-sets', headers: headersOf(s, VIEWER) })).json(), { disableKey: 'disable_shared_catalogue' })
  t.equal((await open(s, sparks)).statusCode, 200, 'links keep working without the catalogue')
})

t.test('administrators take a set down and promote one to site quick picks, each with an audit entry', async (t) => {
  const s = await setup(t)
  const ADMIN = '100000000000000009'
  await seedHuman(s, { id: ADMIN, name: 'Ada' })
  const admin = bearer(s.app, { userId: ADMIN, isAdmin: true })
  const uids = [await insertAlarm(s.app.engineDb.pool, 'pokemon', { id: SHARER, pokemon_id: 1, min_iv: 100, distance: 900 }), await insertAlarm(s.app.engineDb.pool, 'pokemon', { id: SHARER, pokemon_id: 4, min_iv: 100 })]
  const token = (await share(s, { title: 'Starters', inCatalogue: true, alarms: uids.map((uid) => ({ type: 'pokemon', uid })) })).json().token as string

  t.equal((await s.app.inject({ method: 'PUT', url: `/api/admin/shared-sets/${token}/hidden`, headers: headersOf(s, VIEWER), payload: { hidden: true } })).statusCode, 403, 'members cannot')
  t.equal((await s.app.inject({ method: 'PUT', url: `/api/admin/shared-sets/${token}/hidden`, headers: admin, payload: { hidden: true } })).statusCode, 204)
  t.equal((await open(s, token)).statusCode, 404, 'taken down: the link ends')
  t.same((await s.app.inject({ url: '/api/shared-sets', headers: headersOf(s, VIEWER) })).json(), [], 'and leaves the catalogue')
  t.match((await s.app.inject({ url: '/api/shared-sets/mine', headers: headersOf(s, SHARER) })).json(), [{ hidden: true }], 'the sharer sees it was taken down')
  t.match((await s.app.inject({ url: '/api/admin/shared-sets', headers: admin })).json(), [{ title: 'Starters', hidden: true, inCatalogue: true }])
  t.equal((await s.app.inject({ method: 'PUT', url: `/api/admin/shared-sets/${token}/hidden`, headers: admin, payload: { hidden: false } })).statusCode, 204)
  t.equal((await open(s, token)).statusCode, 200, 'put back')

  const promoted = await s.app.inject({ method: 'POST', url: `/api/admin/shared-sets/${token}/promote`, headers: admin })
  t.equal(promoted.statusCode, 201, promoted.body)
  const [pick] = (promoted.json() as { quickPicks: Array<{ id: string }> }).quickPicks
  const saved = (await s.app.inject({ url: `/api/quick-picks/${pick?.id ?? ''}`, headers: headersOf(s, VIEWER) })).json() as { name: string, alarmType: string, category: string, filters: Record<string, unknown> }
  t.match(saved, { name: 'Starters', alarmType: 'monster', category: 'Community', filters: { pokemon_id: [1, 4], min_iv: 100 } }, 'one pick listing the species')
  t.notOk('distance' in saved.filters, 'delivery is left to whoever applies the pick')

  const entries = (await s.app.inject({ url: '/api/admin/audit?action=shared-set.hide', headers: admin })).json() as { entries: Array<{ target: string, details: unknown }> }
  t.equal(entries.entries.length, 2, 'both hide changes audited')
  t.equal(entries.entries[0]?.target, `shared-set:${token.slice(0, 6)}`, 'the target names the set without its secret')
  const promotions = (await s.app.inject({ url: '/api/admin/audit?action=shared-set.promote', headers: admin })).json() as { entries: Array<{ details: { quickPicks?: string[] } }> }
  t.same(promotions.entries[0]?.details.quickPicks, [pick?.id])
  const audit = JSON.stringify(await s.app.db.pool.query('SELECT * FROM audit_log'))
  t.notOk(audit.includes(token), 'the whole token is in no audit entry')

  const raid = await insertAlarm(s.app.engineDb.pool, 'raid', { id: SHARER, level: 5, team: 1 })
  const raid2 = await insertAlarm(s.app.engineDb.pool, 'raid', { id: SHARER, level: 3, team: 2 })
  const mixed = (await share(s, { alarms: [{ type: 'raid', uid: raid }, { type: 'raid', uid: raid2 }] })).json().token as string
  const refused = await s.app.inject({ method: 'POST', url: `/api/admin/shared-sets/${mixed}/promote`, headers: admin })
  t.equal(refused.statusCode, 400, 'alarms differing in two filters are no one pick')
  t.match(refused.json(), { error: /level, team|team, level/ })
})

t.test('a link\'s token never reaches the log, whichever route carries it', async (t) => {
  const s = await build(t, { logLevel: 'info' })
  await seedHuman(s, { id: SHARER, name: 'Sharon' })
  await seedHuman(s, { id: VIEWER, name: 'Vic' })
  const uid = await insertAlarm(s.app.engineDb.pool, 'raid', { id: SHARER, level: 5 })
  const token = (await share(s, { alarms: [{ type: 'raid', uid }] })).json().token as string
  t.equal((await open(s, token)).statusCode, 200)
  t.equal((await copy(s, token, { profileNo: 1 })).statusCode, 200)
  t.equal((await s.app.inject({ url: `/s/${token}`, headers: { accept: 'text/html' } })).statusCode, 200)
  t.equal((await s.app.inject({ method: 'DELETE', url: `/api/shared-sets/${token}`, headers: headersOf(s, SHARER) })).statusCode, 204)
  t.equal((await open(s, token)).statusCode, 404)
  t.ok(s.rawLogs().includes('/api/shared-sets/'), 'the requests were logged')
  t.notOk(s.rawLogs().includes(token), 'the token is never logged')
})
