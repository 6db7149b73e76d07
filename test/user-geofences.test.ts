import t from 'tap'
import { build, bearer, seedHuman, type Test, type TestApp } from './helper.js'
import { startKojiFake, type KojiFake } from './fakes/koji.js'
import { insertProfile } from './fakes/engine-db.js'

const OWNER = '666666666666666666'
const OTHER = '777777777777777777'
const ADMIN = '888888888888888888'
const TRIANGLE = [[52, 1], [52, 1.1], [52.1, 1.1]]
const shifted = (i: number) => TRIANGLE.map(([lat, lon]) => [lat as number + i, lon])

interface Setup extends TestApp {
  koji: KojiFake
  owner: { authorization: string }
  other: { authorization: string }
  admin: { authorization: string }
  areas: (userId?: string) => Promise<{ human: string[], profiles: Record<number, string[]> }>
}

async function setup (t: Test): Promise<Setup> {
  const koji = await startKojiFake({ fences: [{ id: 1, name: 'Town', projects: ['poracle'], path: [[51, 7], [51, 7.2], [51.2, 7.2]] }] })
  t.teardown(() => koji.close())
  const s = await build(t, { env: { KOJI_API_ADDRESS: koji.url, KOJI_BEARER_TOKEN: koji.token, KOJI_PROJECT_NAME: 'poracle', KOJI_PROJECT_ID: '1', PORACLE_ADMIN_IDS: ADMIN } })
  s.engine.set({ fences: [{ name: 'Town', path: [[51, 7], [51, 7.2], [51.2, 7.2]] }] })
  await seedHuman(s, { id: OWNER, area: ['town'] })
  await insertProfile(s.app.engineDb.pool, { id: OWNER, profileNo: 2, area: ['village'] })
  await seedHuman(s, { id: OTHER })
  await seedHuman(s, { id: ADMIN })
  const areas = async (userId = OWNER) => {
    const [human] = await s.app.engineDb.pool.query('SELECT area FROM humans WHERE id = ?', [userId]) as Array<{ area: string }>
    const rows = await s.app.engineDb.pool.query('SELECT profile_no, area FROM profiles WHERE id = ?', [userId]) as Array<{ profile_no: number, area: string }>
    return { human: JSON.parse(human?.area ?? '[]') as string[], profiles: Object.fromEntries(rows.map((r) => [r.profile_no, JSON.parse(r.area) as string[]])) }
  }
  return Object.assign(s, {
    koji,
    owner: bearer(s.app, { userId: OWNER }),
    other: bearer(s.app, { userId: OTHER }),
    admin: bearer(s.app, { userId: ADMIN, isAdmin: true }),
    areas
  })
}

const create = (s: Setup, payload: unknown, headers = s.owner) => s.app.inject({ method: 'POST', url: '/api/geofences/custom', headers, payload: payload as object })
const count = async (s: Setup) => Number(((await s.app.db.pool.query('SELECT COUNT(*) AS n FROM user_geofences')) as Array<{ n: number }>)[0]?.n)

t.test('create: stored lower-cased, added to the active profile in both rows, engine reloaded', async (t) => {
  const s = await setup(t)
  const res = await create(s, { displayName: 'My Patch', polygon: [...TRIANGLE, TRIANGLE[0]] })
  t.equal(res.statusCode, 201)
  const name = `my patch ~u${res.json().id as number}`
  t.match(res.json(), { displayName: 'My Patch', kojiName: name, status: 'active', pointCount: 3, humanId: OWNER })
  t.same(await s.areas(), { human: ['town', name], profiles: { 1: ['town', name], 2: ['village'] } }, 'humans.area and the active profile; profile 2 untouched')
  t.ok(s.engine.reloads.includes('geofence') && s.engine.reloads.includes('reload'), 'feed download and state reload')
  const list = await s.app.inject({ method: 'GET', url: '/api/geofences/custom', headers: s.owner })
  t.same(list.json().map((f: { kojiName: string }) => f.kojiName), [name])
  t.same((await s.app.inject({ method: 'GET', url: '/api/geofences/custom', headers: s.other })).json(), [], 'others see only their own')
})

t.test('create: names and polygons are checked; bad input creates nothing', async (t) => {
  const s = await setup(t)
  const cases: Array<[string, unknown, RegExp]> = [
    ['self-intersecting', { displayName: 'Bow', polygon: [[0, 0], [1, 1], [1, 0], [0, 1]] }, /cross/],
    ['two points', { displayName: 'Line', polygon: [[0, 0], [1, 1]] }, /at least 3/],
    ['off the globe', { displayName: 'Far', polygon: [[95, 0], [1, 1], [1, 0]] }, /latitude/],
    ['empty name', { displayName: '  ', polygon: TRIANGLE }, /1 to 50/],
    ['long name', { displayName: 'x'.repeat(51), polygon: TRIANGLE }, /1 to 50/],
    ['bad characters', { displayName: 'a<b>', polygon: TRIANGLE }, /letters, digits/],
    ['501 points', { displayName: 'Big', polygon: Array.from({ length: 501 }, (_, i) => [Math.sin(i / 80) * 0.1, Math.cos(i / 80) * 0.1]) }, /at most 500/],
    ['unknown field', { displayName: 'X', polygon: TRIANGLE, extra: 1 }, /Invalid request/],
    ['lat/lon not a pair', { displayName: 'X', polygon: [[1, 2, 3], [1, 1], [2, 2]] }, /Invalid request/]
  ]
  for (const [what, payload, message] of cases) {
    const res = await create(s, payload)
    t.equal(res.statusCode, 400, what)
    t.match(res.json().error, message, what)
  }
  t.equal(await count(s), 0)
  t.same(await s.areas(), { human: ['town'], profiles: { 1: ['town'], 2: ['village'] } })
})

t.test('a member fence\'s engine name is its own by construction: never a shared area\'s or another fence\'s', async (t) => {
  const s = await setup(t)
  const town = (await create(s, { displayName: 'Town', polygon: TRIANGLE })).json()
  t.equal(town.kojiName, `town ~u${town.id as number}`, 'Koji has "Town": the member\'s fence is not served under it')
  t.equal(town.displayName, 'Town', 'people still see the name they chose')
  const theirs = (await create(s, { displayName: 'town', polygon: shifted(1) }, s.other)).json()
  t.equal(theirs.kojiName, `town ~u${theirs.id as number}`, 'across users')
  const mine = (await create(s, { displayName: 'Corner', polygon: shifted(2) })).json()
  s.engine.set({ fences: [{ name: `edge ~u${mine.id as number}`, path: [[51, 7], [51, 7.2], [51.2, 7.2]] }] })
  const renamed = await s.app.inject({ method: 'PUT', url: `/api/geofences/custom/${mine.id as number}`, headers: s.owner, payload: { displayName: 'Edge' } })
  t.equal(renamed.statusCode, 409, 'a name the engine already knows (/api/geofence/all) is refused')
  s.engine.set({ fences: [] })
  const ok = await s.app.inject({ method: 'PUT', url: `/api/geofences/custom/${mine.id as number}`, headers: s.owner, payload: { displayName: 'Nook' } })
  t.equal(ok.statusCode, 200)
  t.equal(ok.json().kojiName, `nook ~u${mine.id as number}`)
  t.same((await s.areas()).human, ['town', town.kojiName, ok.json().kojiName], 'the area list follows the rename')
  const feed = (await s.app.inject({ method: 'GET', url: '/api/geofence-feed' })).json().data.map((f: { name: string }) => f.name)
  t.equal(feed.filter((n: string) => n.toLowerCase() === 'town').length, 1, 'the feed serves "town" once: Koji\'s')
  t.equal((await s.app.inject({ method: 'PUT', url: `/api/geofences/custom/${mine.id as number}`, headers: s.other, payload: { displayName: 'Mine' } })).statusCode, 404, 'another user\'s fence is not found')
})

t.test('at most 10 geofences per user', async (t) => {
  const s = await setup(t)
  for (let i = 0; i < 10; i++) t.equal((await create(s, { displayName: `Fence ${i}`, polygon: shifted(i) })).statusCode, 201)
  const eleventh = await create(s, { displayName: 'Fence 10', polygon: shifted(10) })
  t.equal(eleventh.statusCode, 400)
  t.match(eleventh.json().error, /at most 10/)
  t.equal(await count(s), 10)
  const concurrent = await Promise.all([0, 1].map((i) => create(s, { displayName: `Race ${i}`, polygon: shifted(20 + i) }, s.other)))
  t.same(concurrent.map((r) => r.statusCode), [201, 201], 'concurrent creates of one user both succeed under the limit')
})

t.test('the area dual-write is rolled back when the engine reload fails', async (t) => {
  const s = await setup(t)
  const fence = (await create(s, { displayName: 'Corner', polygon: TRIANGLE })).json()
  t.equal((await s.app.inject({ method: 'POST', url: `/api/geofences/custom/${fence.id as number}/deactivate`, headers: s.owner })).statusCode, 204)
  t.same(await s.areas(), { human: ['town'], profiles: { 1: ['town'], 2: ['village'] } })

  s.engine.failWith({ path: '/api/reload', status: 500 })
  const activate = await s.app.inject({ method: 'POST', url: `/api/geofences/custom/${fence.id as number}/activate`, headers: s.owner })
  t.equal(activate.statusCode, 502, 'the engine\'s failure is a bad gateway')
  t.same(await s.areas(), { human: ['town'], profiles: { 1: ['town'], 2: ['village'] } }, 'neither row changed')

  const created = await create(s, { displayName: 'Another', polygon: shifted(1) })
  t.equal(created.statusCode, 502, 'create fails with the engine')
  t.equal(await count(s), 1, 'and leaves no fence behind')
  s.engine.reset()
  t.equal((await s.app.inject({ method: 'POST', url: `/api/geofences/custom/${fence.id as number}/activate`, headers: s.owner })).statusCode, 204)
  t.same(await s.areas(), { human: ['town', fence.kojiName], profiles: { 1: ['town', fence.kojiName], 2: ['village'] } })
})

t.test('area seams: own private fences survive setAreas; others\' are hidden and never written', async (t) => {
  const s = await setup(t)
  const mine = (await create(s, { displayName: 'Mine', polygon: TRIANGLE })).json().kojiName as string
  const theirs = (await create(s, { displayName: 'Theirs', polygon: shifted(1) }, s.other)).json().kojiName as string
  s.engine.set({
    fences: [
      { name: 'Town', path: [[51, 7], [51, 7.2], [51.2, 7.2]] },
      { name: mine, userSelectable: false, path: TRIANGLE as Array<[number, number]> },
      { name: theirs, userSelectable: false, path: shifted(1) as Array<[number, number]> }
    ]
  })
  const available = (await s.app.inject({ method: 'GET', url: '/api/areas/available', headers: s.owner })).json()
  t.same(available.map((a: { name: string }) => a.name), ['Town', mine], 'the other user\'s private fence is hidden')
  const map = await s.app.inject({ method: 'GET', url: '/api/areas/geofence', headers: s.owner })
  t.same(map.json().geofence.map((f: { name: string }) => f.name), ['Town', mine])
  t.equal((await s.app.inject({ method: 'GET', url: `/api/areas/map/${encodeURIComponent(theirs)}`, headers: s.owner })).statusCode, 404)

  const written = await s.app.inject({ method: 'PUT', url: '/api/areas', headers: s.owner, payload: { areas: ['Town', mine.toUpperCase(), theirs] } })
  t.equal(written.statusCode, 200)
  t.same(written.json(), ['town', mine], 'own fence re-added after the engine dropped it; the other user\'s never sent')
  t.notOk(s.engine.requests.some((r) => /setAreas/.test(r.path) && JSON.stringify(r.body).includes(theirs)))

  s.engine.setMode('js')
  const js = await s.app.inject({ method: 'PUT', url: '/api/areas', headers: s.owner, payload: { areas: [theirs, 'town'] } })
  t.same(js.json(), ['town'], 'PoracleJS would accept it: the service does not send it')
})

t.test('per-alarm override_areas: own fence names written directly, other users\' refused', async (t) => {
  const s = await setup(t)
  const mine = (await create(s, { displayName: 'Mine', polygon: TRIANGLE })).json().kojiName as string
  const theirs = (await create(s, { displayName: 'Theirs', polygon: shifted(1) }, s.other)).json().kojiName as string
  // Neither fence is known to the engine as selectable: sent to it, both names would be lost.
  s.engine.set({ fences: [{ name: 'Town', path: [[51, 7], [51, 7.2], [51.2, 7.2]] }] })
  const stored = async () => (await s.app.engineDb.pool.query('SELECT uid, lure_id, override_areas FROM lures WHERE id = ? ORDER BY uid', [OWNER])) as Array<{ uid: number, lure_id: number, override_areas: string | null }>
  const lure = (payload: object, method = 'POST', url = '/api/lures') => s.app.inject({ method: method as 'POST', url, headers: s.owner, payload })

  const scoped = await lure({ lure_id: 501, override_areas: ['Town', mine.toUpperCase()] })
  t.equal(scoped.statusCode, 201)
  t.same(scoped.json().override_areas, ['town', mine], 'the answer shows the full list')
  t.same((await stored()).map((r) => JSON.parse(r.override_areas ?? 'null')), [['town', mine]], 'the row keeps the own fence, lower-cased')
  t.notOk(s.engine.requests.some((r) => /tracking/.test(r.path) && (JSON.stringify(r.body) ?? '').includes(mine)), 'the engine was sent only names it knows')
  const listed = await s.app.inject({ method: 'GET', url: '/api/lures', headers: s.owner })
  t.same(listed.json()[0].override_areas, ['town', mine])

  const onlyMine = await lure({ lure_id: 502, override_areas: [mine] })
  t.equal(onlyMine.statusCode, 201)
  t.same(onlyMine.json().override_areas, [mine])
  const edited = await lure({ clean: 1 }, 'PUT', `/api/lures/${onlyMine.json().uid as number}`)
  t.equal(edited.statusCode, 200)
  t.same(edited.json().override_areas, [mine], 'an update of another field keeps the own fence')

  const before = await stored()
  const foreign = await lure({ lure_id: 503, override_areas: ['town', theirs] })
  t.equal(foreign.statusCode, 400, 'another user\'s private fence')
  t.match(foreign.json(), { error: 'Invalid request', details: [{ field: '/override_areas', message: `unknown area: ${theirs}` }] })
  const foreignEdit = await lure({ override_areas: [theirs] }, 'PUT', `/api/lures/${scoped.json().uid as number}`)
  t.equal(foreignEdit.statusCode, 400)
  for (const bad of [{ lure_id: 504, override_areas: mine }, { lure_id: 504, override_areas: [{ a: 1 }] }, { lure_id: 504, override_areas: Array.from({ length: 33 }, (_, i) => `a${i}`) }, { lure_id: 504, override_areas: [mine], distance: 5 }]) {
    const res = await lure(bad)
    t.equal(res.statusCode, 400, JSON.stringify(bad).slice(0, 60))
  }
  t.same(await stored(), before, 'nothing written by the refused requests')
})

t.test('per-alarm override_areas on PoracleJS: no such column; other users\' fences still refused', async (t) => {
  const s = await setup(t)
  s.engine.setMode('js')
  const mineName = (await create(s, { displayName: 'Mine', polygon: TRIANGLE })).json().kojiName as string
  const theirs = (await create(s, { displayName: 'Theirs', polygon: shifted(1) }, s.other)).json().kojiName as string
  const lure = (areas: string[]) => s.app.inject({ method: 'POST', url: '/api/lures', headers: s.owner, payload: { lure_id: 501, override_areas: areas } })
  t.equal((await lure([theirs])).statusCode, 400)
  const mine = await lure([mineName])
  t.equal(mine.statusCode, 201, 'own fence: the alarm is created as PoracleJS stores it')
  const rows = await s.app.engineDb.pool.query('SELECT override_areas FROM lures WHERE id = ?', [OWNER]) as Array<{ override_areas: string | null }>
  t.same(rows, [{ override_areas: null }], 'no direct write: PoracleJS does not read the column')
})

t.test('submit, approve to Koji, reject, delete', async (t) => {
  const s = await setup(t)
  const a = (await create(s, { displayName: 'Park', polygon: TRIANGLE })).json()
  const b = (await create(s, { displayName: 'Lake', polygon: shifted(1) })).json()
  const url = (id: number, tail: string) => `/api/admin/geofences/submissions/${id}/${tail}`
  t.equal((await s.app.inject({ method: 'POST', url: url(a.id, 'approve'), headers: s.admin, payload: {} })).statusCode, 400, 'not submitted yet')
  t.equal((await s.app.inject({ method: 'POST', url: `/api/geofences/custom/${a.id as number}/submit`, headers: s.other })).statusCode, 404, 'only the owner submits')
  for (const f of [a, b]) t.equal((await s.app.inject({ method: 'POST', url: `/api/geofences/custom/${f.id as number}/submit`, headers: s.owner })).json().status, 'pending_review')
  const queue = await s.app.inject({ method: 'GET', url: '/api/admin/geofences/submissions', headers: s.admin })
  t.same(queue.json().map((f: { kojiName: string, ownerName: string }) => [f.kojiName, f.ownerName]), [[a.kojiName, `user ${OWNER}`], [b.kojiName, `user ${OWNER}`]])
  t.equal((await s.app.inject({ method: 'GET', url: '/api/admin/geofences/all', headers: s.owner })).statusCode, 403, 'admins only')

  const approved = await s.app.inject({ method: 'POST', url: url(a.id, 'approve'), headers: s.admin, payload: { promotedName: 'City Park', groupName: 'Parks' } })
  t.equal(approved.statusCode, 200)
  t.match(approved.json(), { status: 'approved', promotedName: 'city park', reviewedBy: ADMIN, groupName: 'Parks' })
  const saved = s.koji.fences.find((f) => f.name === 'city park')
  t.ok(saved, 'published to Koji')
  t.same(saved?.projects, ['poracle'])
  t.same(saved?.path, TRIANGLE)
  t.same((await s.areas()).human, ['town', 'city park', b.kojiName], 'the owner\'s subscription follows the promoted name, in place')
  const feedNames = (await s.app.inject({ method: 'GET', url: '/api/geofence-feed' })).json().data.map((f: { name: string, userSelectable: boolean }) => [f.name, f.userSelectable])
  t.same(feedNames, [['Town', true], ['city park', true], [b.kojiName, false]], 'served once, from Koji, as a public fence')

  t.equal((await s.app.inject({ method: 'POST', url: url(b.id, 'reject'), headers: s.admin, payload: {} })).statusCode, 400, 'a reason is required')
  const rejected = await s.app.inject({ method: 'POST', url: url(b.id, 'reject'), headers: s.admin, payload: { reviewNotes: 'Overlaps the lake fence' } })
  t.match(rejected.json(), { status: 'rejected', reviewNotes: 'Overlaps the lake fence' })
  t.equal((await s.app.inject({ method: 'POST', url: url(b.id, 'reject'), headers: s.admin, payload: { reviewNotes: 'again' } })).statusCode, 400, 'only pending fences')

  s.koji.fail('down')
  const refused = await s.app.inject({ method: 'DELETE', url: `/api/admin/geofences/${a.id as number}`, headers: s.admin })
  t.equal(refused.statusCode, 502, 'Koji refusing the removal changes nothing')
  t.equal(await count(s), 2)
  s.koji.fail(null)
  t.equal((await s.app.inject({ method: 'DELETE', url: `/api/admin/geofences/${a.id as number}`, headers: s.admin })).statusCode, 204)
  t.same(s.koji.fences.find((f) => f.name === 'city park')?.projects, [], 'taken out of the project')
  t.equal((await s.app.inject({ method: 'DELETE', url: `/api/geofences/custom/${b.id as number}`, headers: s.other })).statusCode, 404)
  t.equal((await s.app.inject({ method: 'DELETE', url: `/api/geofences/custom/${b.id as number}`, headers: s.owner })).statusCode, 204)
  t.equal(await count(s), 0)
  t.same(await s.areas(), { human: ['town'], profiles: { 1: ['town'], 2: ['village'] } }, 'names removed from every profile')
})

const feature = (name: string, coordinates: unknown, type = 'Polygon') => ({ type: 'Feature', properties: { name }, geometry: { type, coordinates } })
const ring = [[1, 52], [1.1, 52], [1.1, 52.1], [1, 52]]

t.test('GeoJSON import: per-feature errors, nothing created, never a 500', async (t) => {
  const s = await setup(t)
  const post = (payload: string, contentType = 'application/json') => s.app.inject({ method: 'POST', url: '/api/geofences/import/geojson', headers: { ...s.owner, 'content-type': contentType }, payload })

  const mixed = await post(JSON.stringify({
    type: 'FeatureCollection',
    features: [
      feature('Good', [ring]),
      feature('Holey', [ring, [[1.01, 52.01], [1.02, 52.01], [1.02, 52.02], [1.01, 52.01]]]),
      // [lat, lon] written where GeoJSON wants [lon, lat]
      feature('Swapped', [[[52, 100], [52.1, 100], [52.1, 100.1], [52, 100]]]),
      feature('Multi', [[ring]], 'MultiPolygon'),
      { type: 'Feature', properties: {}, geometry: null },
      feature('Bow', [[[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]]])
    ]
  }))
  t.equal(mixed.statusCode, 400)
  t.same(mixed.json().errors.map((e: { featureName: string }) => e.featureName), ['Holey', 'Swapped', 'Multi', 'feature 5', 'Bow'])
  t.match(mixed.json().errors[0].reason, /holes/)
  t.match(mixed.json().errors[1].reason, /latitude 100.*\[longitude, latitude\]/)
  t.equal(await count(s), 0, 'the good feature was not created either')

  const tooMany = await post(JSON.stringify({ type: 'FeatureCollection', features: Array.from({ length: 51 }, (_, i) => feature(`f${i}`, [ring])) }))
  t.equal(tooMany.statusCode, 400)
  t.match(tooMany.json().error, /at most 50/)

  const huge = await post(JSON.stringify({ type: 'FeatureCollection', features: [feature('Big', [ring])], padding: 'x'.repeat(5 * 1024 * 1024) }))
  t.equal(huge.statusCode, 400)
  t.match(huge.json().error, /5 MB/)

  for (const [what, body] of [['not JSON', '{"type":'], ['a bare Feature', JSON.stringify(feature('x', [ring]))], ['an array', '[]']]) {
    const res = await post(body as string)
    t.equal(res.statusCode, 400, `${what as string}: ${res.body}`)
  }
  t.equal(await count(s), 0)

  const good = await post(JSON.stringify({ type: 'FeatureCollection', features: [feature('Good', [ring]), feature('A'.repeat(60), [ring.map(([lon, lat]) => [lon as number + 1, lat])])] }), 'application/geo+json')
  t.equal(good.statusCode, 201)
  t.same(good.json().created.map((f: { displayName: string }) => f.displayName), ['Good', 'A'.repeat(50)], 'the names as written, cut to 50')
  t.match(good.json().created.map((f: { kojiName: string }) => f.kojiName), [/^good ~u\d+$/, /^a{50} ~u\d+$/])
  t.same(good.json().created[0].polygon, [[52, 1], [52, 1.1], [52.1, 1.1]], '[lon, lat] turned into [lat, lon], closing point dropped')
  t.match(good.json().warnings[0], /shortened/)

  const exported = await s.app.inject({ method: 'GET', url: '/api/geofences/export/geojson', headers: s.owner })
  t.equal(exported.statusCode, 200)
  t.match(exported.headers['content-type'], /application\/geo\+json/)
  t.match(exported.headers['content-disposition'], new RegExp(`geofences-${OWNER}\\.geojson`))
  t.same(exported.json().features[0].geometry.coordinates, [ring], 'round trip')

  const overLimit = await post(JSON.stringify({ type: 'FeatureCollection', features: Array.from({ length: 9 }, (_, i) => feature(`More ${i}`, [ring.map(([lon, lat]) => [lon as number + i + 3, lat])])) }))
  t.equal(overLimit.statusCode, 400)
  t.match(overLimit.json().errors[0].reason, /limit of 10/)
  t.equal(await count(s), 2)
})

t.test('writes are gated by disable_user_geofences; reads and delete are not', async (t) => {
  const s = await setup(t)
  const fence = (await create(s, { displayName: 'Park', polygon: TRIANGLE })).json()
  await s.app.db.pool.query("INSERT INTO site_settings (`key`, value) VALUES ('disable_user_geofences', 'true')")
  s.app.siteSettings.evict('disable_user_geofences')
  t.equal((await create(s, { displayName: 'Lake', polygon: shifted(1) })).statusCode, 403)
  t.equal((await s.app.inject({ method: 'GET', url: '/api/geofences/custom', headers: s.owner })).statusCode, 200)
  t.equal((await s.app.inject({ method: 'DELETE', url: `/api/geofences/custom/${fence.id as number}`, headers: s.owner })).statusCode, 204)
  t.equal((await s.app.inject({ method: 'GET', url: '/api/geofences/custom' })).statusCode, 401)
})

t.test('regions for drawing come from Koji; none when it fails', async (t) => {
  const s = await setup(t)
  s.koji.fences.push({ id: 2, name: 'north', displayName: 'The North', projects: [], path: [[50, 0], [50, 1], [51, 1]] })
  s.koji.fences.push({ id: 3, name: 'child', parent: 2, projects: ['poracle'], path: [[50, 0], [50, 0.5], [50.5, 0.5]] })
  const regions = await s.app.inject({ method: 'GET', url: '/api/geofences/regions', headers: s.owner })
  t.same(regions.json(), [{ id: 2, name: 'north', displayName: 'The North', polygon: [[50, 0], [50, 1], [51, 1], [50, 0]] }])
  s.koji.fail('garbage')
  t.same((await s.app.inject({ method: 'GET', url: '/api/geofences/regions', headers: s.owner })).json(), [])
})

t.test('findings: a fence named like a shared area, a whole-world fence, unsafe group names, out-of-range ids', async (t) => {
  const s = await setup(t)
  const world = await create(s, { displayName: 'Everywhere', polygon: [[-85, -179], [85, -179], [85, 179], [-85, 179]] })
  t.equal(world.statusCode, 400)
  t.match(world.json().error, /at most 2,500 km²/)
  t.equal(await count(s), 0)

  for (const group of ['a\u0000b', 'x\u202ey', 'lone \ud800']) {
    const res = await create(s, { displayName: 'Grouped', groupName: group, polygon: TRIANGLE })
    t.equal(res.statusCode, 400, JSON.stringify(group))
  }
  const fence = (await create(s, { displayName: 'Plain', polygon: TRIANGLE })).json()
  const big = await s.app.inject({ method: 'PUT', url: `/api/geofences/custom/${fence.id as number}`, headers: s.owner, payload: { displayName: 'Plain', parentId: 2 ** 31 } })
  t.equal(big.statusCode, 400, 'parentId past a 32-bit integer is a 400, not a 500')
  const badGroup = await s.app.inject({ method: 'PUT', url: `/api/geofences/custom/${fence.id as number}`, headers: s.owner, payload: { displayName: 'Plain', groupName: 'g\u0000' } })
  t.equal(badGroup.statusCode, 400)

  // A fence from before the namespace, named exactly like the shared area "Town".
  await s.app.db.pool.query("INSERT INTO user_geofences (human_id, koji_name, display_name, status, polygon_json, created_at, updated_at) VALUES (?, 'town', 'Town', 'active', ?, NOW(6), NOW(6))", [OWNER, JSON.stringify(shifted(3))])
  const [legacy] = await s.app.db.pool.query("SELECT id FROM user_geofences WHERE koji_name = 'town'") as Array<{ id: number }>
  const feed = (await s.app.inject({ method: 'GET', url: '/api/geofence-feed' })).json().data.map((f: { name: string }) => f.name)
  t.same(feed.filter((n: string) => n.toLowerCase() === 'town'), ['Town'], 'the old fence is not served under the shared name')
  const available = (await s.app.inject({ method: 'GET', url: '/api/areas/available', headers: s.other })).json()
  t.ok(available.some((a: { name: string }) => a.name.toLowerCase() === 'town'), 'the shared area stays everyone\'s to select')
  t.equal((await s.app.inject({ method: 'DELETE', url: `/api/geofences/custom/${legacy?.id as number}`, headers: s.owner })).statusCode, 204)
  t.ok((await s.areas()).human.includes('town'), 'deleting the fence leaves the shared area in the owner\'s selection')
})
