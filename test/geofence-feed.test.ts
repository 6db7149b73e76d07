import { gunzipSync, gzipSync } from 'node:zlib'
import t from 'tap'
import { eq } from 'drizzle-orm'
import type { AddressInfo } from 'node:net'
import { build, bearer, seedHuman, type Test, type TestApp } from './helper.js'
import { startKojiFake, type KojiFake, type KojiFence } from './fakes/koji.js'
import { userGeofences } from '../db/schema/service.js'
import { FEED_FINGERPRINT_TTL_MS } from '../plugins/domain/user-geofences/fence-rules.js'
import { BLOCK_IDS, createFeedBodies, type FenceText } from '../plugins/domain/geofence-feed/body.js'

const OWNER = '555555555555555555'
const FEED_TOKEN = 'feed-token-0123456789'

const KOJI_FENCES: KojiFence[] = [
  { id: 1, name: 'north-region', displayName: 'North Region', projects: ['poracle'], path: [[50, 0], [50, 20], [60, 20], [60, 0]] },
  { id: 2, name: 'Town', parent: 1, projects: ['poracle'], path: [[51, 7], [51, 7.2], [51.2, 7.2], [51.2, 7]], description: 'The town', color: '#00ff00' },
  { id: 3, name: 'Village', projects: ['poracle'], path: [[48, 9], [48, 9.5], [49, 9.5], [49, 9]] },
  { id: 4, name: 'Broken', projects: ['poracle'], path: [[1, 1], [2, 2]] },
  { id: 5, name: 'Elsewhere', projects: ['other'], path: [[1, 1], [1, 2], [2, 2]] }
]

interface Setup extends TestApp { koji: KojiFake }

/** Koji's answers wait at most a second: the fake answers in milliseconds, even on a loaded two-core machine. */
async function setup (t: Test, env: Record<string, string> = {}): Promise<Setup> {
  const koji = await startKojiFake({ fences: structuredClone(KOJI_FENCES) })
  t.teardown(() => koji.close())
  const testApp = await build(t, {
    env: { KOJI_API_ADDRESS: koji.url, KOJI_BEARER_TOKEN: koji.token, KOJI_PROJECT_NAME: 'poracle', KOJI_PROJECT_ID: '1', KOJI_TIMEOUT_MS: '1000', ...env }
  })
  await seedHuman(testApp, { id: OWNER })
  return Object.assign(testApp, { koji })
}

async function addUserFence (s: TestApp, values: { kojiName: string, status?: string, polygon?: unknown }): Promise<number> {
  const [row] = await s.app.db.db.insert(userGeofences).values({
    humanId: OWNER,
    kojiName: values.kojiName,
    displayName: values.kojiName,
    status: values.status ?? 'active',
    polygonJson: JSON.stringify(values.polygon ?? [[52, 1], [52, 1.1], [52.1, 1.1]]),
    createdAt: '2026-11-26 12:00:00',
    updatedAt: '2026-11-26 12:00:00'
  }).$returningId()
  return (row as { id: number }).id
}

const feed = (s: TestApp, headers: Record<string, string> = {}) => s.app.inject({ method: 'GET', url: '/api/geofence-feed', headers })

t.test('the feed: Koji admin fences with groups, then private user fences, ids unique', async (t) => {
  const s = await setup(t)
  const userId = await addUserFence(s, { kojiName: 'my patch' })
  await addUserFence(s, { kojiName: 'pending one', status: 'pending_review' })
  await addUserFence(s, { kojiName: 'promoted', status: 'approved' })
  await addUserFence(s, { kojiName: 'garbled', polygon: [[1, 1]] })
  const res = await feed(s)
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /application\/json/)
  const body = res.json()
  t.equal(body.status, 'ok')
  t.same(body.data.map((f: { name: string }) => f.name), ['Town', 'Village', 'my patch', 'pending one'], 'regions, other projects, approved and malformed fences left out')
  t.same(body.data[0], {
    id: 1, name: 'Town', path: [[51, 7], [51, 7.2], [51.2, 7.2], [51.2, 7]], group: 'North Region', description: 'The town', color: '#00ff00', userSelectable: true, displayInMatches: true
  }, 'group = the parent region\'s display name')
  t.same(body.data[1], { id: 2, name: 'Village', path: [[48, 9], [48, 9.5], [49, 9.5], [49, 9]], group: '', description: '', color: '#3399ff', userSelectable: true, displayInMatches: true })
  t.match(body.data[2], { id: 1_000_000 + userId, name: 'my patch', userSelectable: false, displayInMatches: false, group: '', description: '' })
  const ids = body.data.map((f: { id: number }) => f.id)
  t.equal(new Set(ids).size, ids.length, 'ids unique across both sets')
  t.ok(s.logs.some((l) => l.msg === 'Koji geofence skipped: malformed polygon' && l.fence === 'Broken'), 'malformed Koji polygon logged')
  t.ok(s.logs.some((l) => /user geofence left out/.test(String(l.msg))), 'malformed user polygon logged')
  t.equal((await s.app.inject({ method: 'GET', url: '/api/geofence-feed', headers: { 'x-forwarded-for': '1.2.3.4' } })).statusCode, 200, 'anonymous')
})

t.test('user fence ids stay above admin ids however many admin fences there are', async (t) => {
  const koji = await startKojiFake({
    fences: Array.from({ length: 30 }, (_, i) => ({ id: i + 1, name: `a${i}`, projects: ['poracle'], path: [[i, 0], [i, 1], [i + 1, 1]] as Array<[number, number]> }))
  })
  t.teardown(() => koji.close())
  const s = await build(t, { env: { KOJI_API_ADDRESS: koji.url, KOJI_BEARER_TOKEN: koji.token, KOJI_PROJECT_NAME: 'poracle' } })
  await seedHuman(s, { id: OWNER })
  await addUserFence(s, { kojiName: 'one' })
  const ids = (await feed(s)).json().data.map((f: { id: number }) => f.id)
  t.equal(ids.length, 31)
  t.equal(new Set(ids).size, 31)
})

t.test('Koji down, slow or answering garbage: the last good copy, never an empty feed', async (t) => {
  const s = await setup(t)
  await addUserFence(s, { kojiName: 'my patch' })
  const names = async () => (await feed(s)).json().data.map((f: { name: string }) => f.name)
  t.same(await names(), ['Town', 'Village', 'my patch'])
  const calls = s.koji.requests.length
  t.same(await names(), ['Town', 'Village', 'my patch'])
  t.equal(s.koji.requests.length, calls, 'cached: Koji not asked again within 5 minutes')

  for (const mode of ['down', 'garbage', 'hang'] as const) {
    s.clock.advance(5 * 60_000 + 1)
    s.koji.fail(mode)
    t.same(await names(), ['Town', 'Village', 'my patch'], `Koji ${mode}: last good copy served`)
  }
  t.ok(s.logs.some((l) => /last good copy/.test(String(l.msg)) && l.lastGood === true))
  s.koji.fail(null)
  // Koji's answer now differs from the last good copy, so a late answer that was waited for would show.
  s.koji.fences = s.koji.fences.filter((f) => f.name !== 'Village')
  s.koji.delay(2500)
  s.clock.advance(5 * 60_000 + 1)
  t.same(await names(), ['Town', 'Village', 'my patch'], 'Koji slower than KOJI_TIMEOUT_MS: last good copy')
  s.koji.delay(0)
  s.clock.advance(5 * 60_000 + 1)
  t.same(await names(), ['Town', 'my patch'], 'Koji back: fresh copy')
})

t.test('Koji down from the start: user fences only', async (t) => {
  const s = await setup(t)
  s.koji.fail('down')
  await addUserFence(s, { kojiName: 'my patch' })
  const res = await feed(s)
  t.equal(res.statusCode, 200)
  t.same(res.json().data.map((f: { name: string }) => f.name), ['my patch'])
})

t.test('an anonymous feed while member fences are on is warned about at start-up', async (t) => {
  const open = await setup(t)
  t.ok(open.logs.some((l) => l.event === 'GeofenceFeedOpen' && l.level === 40), 'GEOFENCE_FEED_TOKEN unset: a warning')
  const closed = await setup(t, { GEOFENCE_FEED_TOKEN: FEED_TOKEN })
  t.notOk(closed.logs.some((l) => l.event === 'GeofenceFeedOpen'), 'with a token: none')
})

t.test('the feed token: right, wrong, missing', async (t) => {
  const s = await setup(t, { GEOFENCE_FEED_TOKEN: FEED_TOKEN })
  t.equal((await feed(s, { authorization: `Bearer ${FEED_TOKEN}` })).statusCode, 200, 'right token')
  for (const authorization of [`Bearer ${FEED_TOKEN}x`, `Bearer ${FEED_TOKEN.slice(0, -1)}`, FEED_TOKEN, 'Bearer ', `bearer ${FEED_TOKEN}`]) {
    const res = await feed(s, { authorization })
    t.equal(res.statusCode, 401, `refused: ${JSON.stringify(authorization.slice(0, 8))}…`)
    t.notMatch(res.body, FEED_TOKEN)
  }
  const missing = await feed(s)
  t.equal(missing.statusCode, 401, 'missing')
  t.same(Object.keys(missing.json()), ['error'])
  t.notMatch(s.rawLogs(), FEED_TOKEN, 'the token never reaches a log line')
})

t.test('the ETag: an unchanged feed costs a 304, any change a new tag', async (t) => {
  const s = await setup(t)
  const first = await feed(s)
  const etag = first.headers.etag as string
  t.match(etag, /^"[A-Za-z0-9_-]+"$/)
  const again = await feed(s, { 'if-none-match': etag })
  t.equal(again.statusCode, 304)
  t.equal(again.body, '')
  t.equal((await feed(s, { 'if-none-match': `"other", ${etag}` })).statusCode, 304, 'a list of tags')
  t.equal((await feed(s, { 'if-none-match': '"stale"' })).statusCode, 200)
  const zipped = await feed(s, { 'accept-encoding': 'gzip, deflate' })
  t.equal(zipped.headers['content-encoding'], 'gzip')
  t.same(JSON.parse(gunzipSync(zipped.rawPayload).toString('utf8')), first.json(), 'the same feed, compressed')
  t.equal(zipped.headers.etag, etag.replace(/"$/, '-gz"'), 'its own tag')
  const zippedAgain = await feed(s, { 'if-none-match': zipped.headers.etag as string, 'accept-encoding': 'gzip' })
  t.equal(zippedAgain.statusCode, 304)
  t.equal(zippedAgain.rawPayload.length, 0, 'no body, not even an empty gzip stream')

  // Rows written straight to the table stand for another instance's change: they show after the fingerprint's time.
  const id = await addUserFence(s, { kojiName: 'new one' })
  s.clock.advance(FEED_FINGERPRINT_TTL_MS)
  const changed = await feed(s, { 'if-none-match': etag })
  t.equal(changed.statusCode, 200, 'a new user fence changes the feed')
  t.not(changed.headers.etag, etag)
  const etag2 = changed.headers.etag as string
  await s.app.db.db.update(userGeofences).set({ kojiName: 'renamed' }).where(eq(userGeofences.id, id))
  s.clock.advance(FEED_FINGERPRINT_TTL_MS)
  t.equal((await feed(s, { 'if-none-match': etag2 })).statusCode, 200, 'a rename changes it')
  const etag3 = (await feed(s)).headers.etag as string
  s.koji.fences.push({ id: 9, name: 'Hamlet', projects: ['poracle'], path: [[1, 1], [1, 2], [2, 2]] })
  t.equal((await feed(s, { 'if-none-match': etag3 })).statusCode, 304, 'Koji changes wait for the cache time')
  s.clock.advance(5 * 60_000 + 1)
  t.equal((await feed(s, { 'if-none-match': etag3 })).statusCode, 200, 'then show')
})

t.test('the user part: this instance\'s changes show at once, another instance\'s within the fingerprint time', async (t) => {
  const s = await setup(t)
  const headers = bearer(s.app, { userId: OWNER })
  const names = async () => (await feed(s)).json().data.map((f: { name: string }) => f.name) as string[]
  t.same(await names(), ['Town', 'Village'])

  const created = await s.app.inject({ method: 'POST', url: '/api/geofences/custom', headers, payload: { displayName: 'Corner', polygon: [[52, 1], [52, 1.1], [52.1, 1.1]] } })
  t.equal(created.statusCode, 201)
  const id = created.json().id as number
  t.same(await names(), ['Town', 'Village', `corner ~u${id}`], 'a fence created here is in the next feed, under its namespaced engine name')
  const renamed = await s.app.inject({ method: 'PUT', url: `/api/geofences/custom/${created.json().id as number}`, headers, payload: { displayName: 'Nook' } })
  t.equal(renamed.statusCode, 200)
  t.same(await names(), ['Town', 'Village', `nook ~u${id}`], 'a rename here too, keeping the fence id')

  await addUserFence(s, { kojiName: 'from elsewhere' })
  t.same(await names(), ['Town', 'Village', `nook ~u${id}`], 'another instance\'s fence waits while the fingerprint is fresh')
  s.clock.advance(FEED_FINGERPRINT_TTL_MS - 1)
  t.same(await names(), ['Town', 'Village', `nook ~u${id}`], 'up to its time')
  s.clock.advance(1)
  t.same(await names(), ['Town', 'Village', `nook ~u${id}`, 'from elsewhere'], 'then shows')

  const deleted = await s.app.inject({ method: 'DELETE', url: `/api/geofences/custom/${created.json().id as number}`, headers })
  t.equal(deleted.statusCode, 204)
  t.same(await names(), ['Town', 'Village', 'from elsewhere'], 'a delete here is gone from the next feed')
})

t.test('both engine generations load the feed (alarm-engine.md 3.1, 3.2)', async (t) => {
  for (const mode of ['ng', 'js'] as const) {
    t.test(mode, async (t) => {
      const s = await setup(t, { GEOFENCE_FEED_TOKEN: FEED_TOKEN })
      s.engine.setMode(mode)
      await addUserFence(s, { kojiName: 'my patch' })
      await s.app.listen({ port: 0, host: '127.0.0.1' })
      const { port } = s.app.server.address() as AddressInfo
      s.engine.set({ geofenceUrl: `http://127.0.0.1:${port}/api/geofence-feed`, geofenceBearerToken: FEED_TOKEN, fences: [] })
      await s.app.engine.geofence.reload()
      const loaded = await s.app.engine.geofence.all()
      t.same(loaded.map((f) => [f.name, f.userSelectable, f.displayInMatches]), [['Town', true, true], ['Village', true, true], ['my patch', false, false]])
      t.same(loaded[0]?.path, [[51, 7], [51, 7.2], [51.2, 7.2], [51.2, 7]], 'paths stay [lat, lon]')

      s.engine.set({ geofenceBearerToken: 'wrong' })
      await s.app.engine.geofence.reload()
      t.equal((await s.app.engine.geofence.all()).length, 3, 'a refused download keeps the engine\'s copy')
    })
  }
})

t.test('a user fence change makes the engine download the feed again', async (t) => {
  const s = await setup(t)
  const headers = bearer(s.app, { userId: OWNER })
  const created = await s.app.inject({ method: 'POST', url: '/api/geofences/custom', headers, payload: { displayName: 'Corner', polygon: [[52, 1], [52, 1.1], [52.1, 1.1]] } })
  t.equal(created.statusCode, 201)
  t.ok(s.engine.reloads.includes('geofence'), 'geofence reload triggered')
})

t.test('the feed body: gzip members that decompress to the body, and a change compresses only its block', async (t) => {
  const compressed: string[] = []
  const bodies = createFeedBodies(async (text) => { compressed.push(text); return gzipSync(text) })
  const fence = (id: number, name = `fence ${id}`): FenceText => ({ id, text: JSON.stringify({ id, name }) })
  const ids = [1, 2, BLOCK_IDS + 5, 3 * BLOCK_IDS]
  const names = (body: string) => (JSON.parse(body) as { data: Array<{ name: string }> }).data.map((f) => f.name)

  const first = await bodies.build('admin-1', '{"id":1,"name":"Town"}', ids.map((id) => fence(id)))
  t.same(names(first.body), ['Town', 'fence 1', 'fence 2', `fence ${BLOCK_IDS + 5}`, `fence ${3 * BLOCK_IDS}`])
  t.equal(gunzipSync(first.gzipped).toString('utf8'), first.body, 'the members decompress to the body')
  t.equal(compressed.length, 5, 'head, three blocks, tail')

  compressed.length = 0
  const renamed = await bodies.build('admin-1', '{"id":1,"name":"Town"}', ids.map((id) => fence(id, id === BLOCK_IDS + 5 ? 'renamed' : undefined)))
  t.same(compressed, [`,${JSON.stringify({ id: BLOCK_IDS + 5, name: 'renamed' })}`], 'only the changed block is compressed again')
  t.equal(gunzipSync(renamed.gzipped).toString('utf8'), renamed.body)
  t.not(renamed.etag, first.etag, 'a new tag')

  compressed.length = 0
  const same = await bodies.build('admin-1', '{"id":1,"name":"Town"}', ids.map((id) => fence(id, id === BLOCK_IDS + 5 ? 'renamed' : undefined)))
  t.same(compressed, [], 'nothing changed, nothing compressed')
  t.equal(same.etag, renamed.etag, 'the same tag')

  const noAdmin = await bodies.build('admin-2', '', [fence(2 * BLOCK_IDS), fence(2 * BLOCK_IDS + 1)])
  t.same(names(noAdmin.body), [`fence ${2 * BLOCK_IDS}`, `fence ${2 * BLOCK_IDS + 1}`], 'without admin fences the first user fence leads')
  t.equal(gunzipSync(noAdmin.gzipped).toString('utf8'), noAdmin.body)
  t.not(noAdmin.etag, renamed.etag)

  const empty = await bodies.build('admin-3', '', [])
  t.equal(empty.body, '{"status":"ok","data":[]}')
  t.equal(gunzipSync(empty.gzipped).toString('utf8'), empty.body)
})

t.test('a renamed user fence: the gzip feed still decompresses to the plain one', async (t) => {
  const s = await setup(t)
  const headers = bearer(s.app, { userId: OWNER })
  const ids: number[] = []
  for (const name of ['One', 'Two', 'Three']) {
    const created = await s.app.inject({ method: 'POST', url: '/api/geofences/custom', headers, payload: { displayName: name, polygon: [[52, 1], [52, 1.1], [52.1, 1.1]] } })
    t.equal(created.statusCode, 201)
    ids.push(created.json().id as number)
  }
  await feed(s, { 'accept-encoding': 'gzip' })
  const [, second] = (await s.app.userGeofences.list(OWNER))
  const renamed = await s.app.inject({ method: 'PUT', url: `/api/geofences/custom/${second?.id ?? 0}`, headers, payload: { displayName: 'Deux' } })
  t.equal(renamed.statusCode, 200)
  const plain = await feed(s, { 'accept-encoding': 'identity' })
  const zipped = await feed(s, { 'accept-encoding': 'gzip' })
  t.equal(second?.id, ids[1])
  t.same(plain.json().data.map((f: { name: string }) => f.name), ['Town', 'Village', `one ~u${ids[0]}`, `deux ~u${ids[1]}`, `three ~u${ids[2]}`])
  t.equal(gunzipSync(zipped.rawPayload).toString('utf8'), plain.body)
})
