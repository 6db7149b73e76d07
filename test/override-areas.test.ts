import t from 'tap'
import { build, bearer, seedHuman, type Test, type TestApp } from './helper.js'
import { startKojiFake } from './fakes/koji.js'

const OWNER = '666666666666666661'
const OTHER = '777777777777777771'
const ADMIN = '888888888888888881'
const TRIANGLE = [[52, 1], [52, 1.1], [52.1, 1.1]]
const shifted = (i: number) => TRIANGLE.map(([lat, lon]) => [(lat as number) + i, lon as number])
const TOWN = { name: 'Town', path: [[51, 7], [51, 7.2], [51.2, 7.2]] as Array<[number, number]> }

interface Setup extends TestApp {
  owner: { authorization: string }
  /** The engine names of the owner's fence "Mine" and the other user's fence "Theirs". */
  mine: string
  theirs: string
  /** The owner's rows of an alarm table with their stored override_areas, parsed. */
  stored: (table: string) => Promise<Array<{ uid: number, areas: string[] | null }>>
}

/** The owner has the active fence "Mine", another user "Theirs"; the engine knows neither as selectable. */
async function setup (t: Test, mode: 'ng' | 'js'): Promise<Setup> {
  const koji = await startKojiFake({ fences: [{ id: 1, name: 'Town', projects: ['poracle'], path: TOWN.path }] })
  t.teardown(() => koji.close())
  const s = await build(t, { env: { KOJI_API_ADDRESS: koji.url, KOJI_BEARER_TOKEN: koji.token, KOJI_PROJECT_NAME: 'poracle', KOJI_PROJECT_ID: '1', PORACLE_ADMIN_IDS: ADMIN } })
  s.engine.setMode(mode)
  for (const id of [OWNER, OTHER, ADMIN]) await seedHuman(s, { id, area: ['town'] })
  const owner = bearer(s.app, { userId: OWNER })
  const fence = (displayName: string, polygon: number[][], headers: object) =>
    s.app.inject({ method: 'POST', url: '/api/geofences/custom', headers: headers as { authorization: string }, payload: { displayName, polygon } })
  const mineRes = await fence('Mine', TRIANGLE, owner)
  t.equal(mineRes.statusCode, 201)
  const theirsRes = await fence('Theirs', shifted(1), bearer(s.app, { userId: OTHER }))
  t.equal(theirsRes.statusCode, 201)
  const mineFence = mineRes.json() as { id: number, kojiName: string }
  const theirsFence = theirsRes.json() as { id: number, kojiName: string }
  t.equal(mineFence.kojiName, `mine ~u${mineFence.id}`, 'the own fence is in the member name space')
  t.equal(theirsFence.kojiName, `theirs ~u${theirsFence.id}`, 'so is the other user\'s')
  const mine = mineFence.kojiName
  const theirs = theirsFence.kojiName
  s.engine.set({ fences: [TOWN] })
  t.equal((await s.app.inject({ method: 'POST', url: '/api/quick-picks/seed', headers: bearer(s.app, { userId: ADMIN, isAdmin: true }) })).statusCode, 204)
  const stored = async (table: string) => {
    const rows = await s.app.engineDb.pool.query(`SELECT uid, override_areas FROM \`${table}\` WHERE id = ? ORDER BY uid`, [OWNER]) as Array<{ uid: number, override_areas: string | null }>
    return rows.map((r) => ({ uid: r.uid, areas: JSON.parse(r.override_areas ?? 'null') as string[] | null }))
  }
  return Object.assign(s, { owner, mine, theirs, stored })
}

const applyPick = (s: Setup, overrideAreas: string[]) =>
  s.app.inject({ method: 'POST', url: '/api/quick-picks/invasion-leaders/apply', headers: s.owner, payload: { overrideAreas } })

t.test('quick pick apply on PoracleNG: the own active fence is an override area; others\' and unknown areas are refused', async (t) => {
  const s = await setup(t, 'ng')
  const foreign = await applyPick(s, ['Town', s.theirs])
  t.equal(foreign.statusCode, 400, 'another user\'s fence')
  t.same(foreign.json(), { error: 'Invalid request', details: [{ field: '/overrideAreas', message: `unknown area: ${s.theirs}` }] }, 'refused as unknown before anything is sent')
  t.notOk(s.engine.requests.some((r) => r.method === 'POST' && /^\/api\/tracking\//.test(r.path)), 'the engine received no write')
  const unknown = await applyPick(s, [s.mine, 'Nowhere'])
  t.equal(unknown.statusCode, 400, 'an area nobody has')
  t.same(unknown.json(), { error: 'unknown area: nowhere' }, 'the engine\'s refusal, passed on')
  t.same(await s.stored('invasion'), [], 'nothing written')
  const applied = await applyPick(s, ['Town', s.mine.toUpperCase()])
  t.equal(applied.statusCode, 200)
  const rows = await s.stored('invasion')
  t.equal(rows.length, 3, 'one alarm per leader')
  t.same(rows.map((r) => r.areas), [['town', s.mine], ['town', s.mine], ['town', s.mine]], 'the own fence is stored under its engine name, lower-cased')
  t.same((applied.json() as { trackedUids: number[] }).trackedUids, rows.map((r) => r.uid))
  t.ok(s.engine.reloads.includes('reload'), 'the engine re-reads the directly written column')
  const listed = await s.app.inject({ method: 'GET', url: '/api/invasions', headers: s.owner })
  t.same((listed.json() as Array<{ override_areas: string[] }>).map((a) => a.override_areas), [['town', s.mine], ['town', s.mine], ['town', s.mine]])
})

t.test('quick pick apply on PoracleJS: own fence accepted (no such column), others\' refused', async (t) => {
  const s = await setup(t, 'js')
  t.equal((await applyPick(s, [s.theirs])).statusCode, 400)
  t.same(await s.stored('invasion'), [], 'nothing written')
  t.equal((await applyPick(s, [s.mine])).statusCode, 200)
  t.same((await s.stored('invasion')).map((r) => r.areas), [null, null, null], 'PoracleJS does not read the column: no direct write')
})

t.test('a failed multi-step write is undone with the own-fence override areas intact', async (t) => {
  const s = await setup(t, 'ng')
  const created = await s.app.inject({ method: 'POST', url: '/api/lures', headers: s.owner, payload: { lure_id: 501, override_areas: ['Town', s.mine] } })
  t.equal(created.statusCode, 201)
  const before = await s.stored('lures')
  t.same(before.map((r) => r.areas), [['town', s.mine]])

  // The update is three steps: the stored row goes first (same lure, and the engine would not match its
  // own-fence list), the new row is written, its own fence is written directly and the engine reloaded.
  // The reload fails: the new row must go and the old one return as it was.
  s.engine.failWith({ path: '/api/reload', status: 500, times: 1 })
  const failed = await s.app.inject({ method: 'PUT', url: `/api/lures/${(created.json() as { uid: number }).uid}`, headers: s.owner, payload: { clean: 1 } })
  t.ok(failed.statusCode >= 500, 'the engine failure is reported')
  const after = await s.stored('lures')
  t.equal(after.length, 1, 'the alarm is back')
  t.same(after.map((r) => r.areas), [['town', s.mine]], 'with its override areas exactly, own fence included')
  const listed = await s.app.inject({ method: 'GET', url: '/api/lures', headers: s.owner })
  t.match(listed.json(), [{ lure_id: 501, clean: 0, override_areas: ['town', s.mine] }])
})

/** The override areas of the owner's rows of `table` in one profile. */
async function areasIn (s: Setup, table: string, profileNo: number): Promise<Array<string[] | null>> {
  const rows = await s.app.engineDb.pool.query(`SELECT override_areas FROM \`${table}\` WHERE id = ? AND profile_no = ? ORDER BY uid`, [OWNER, profileNo]) as Array<{ override_areas: string | null }>
  return rows.map((r) => JSON.parse(r.override_areas ?? 'null') as string[] | null)
}

const importProfile = (s: Setup, profileName: string, alarms: object) =>
  s.app.inject({ method: 'POST', url: '/api/profile-overview/import', headers: s.owner, payload: { profileName, alarms } })

t.test('profile duplicate and import on PoracleNG keep the own fence in the copied alarms\' override areas', async (t) => {
  const s = await setup(t, 'ng')
  t.equal((await s.app.inject({ method: 'POST', url: '/api/lures', headers: s.owner, payload: { lure_id: 501, override_areas: ['Town', s.mine] } })).statusCode, 201)
  s.engine.reloads.length = 0
  const duplicated = await s.app.inject({ method: 'POST', url: '/api/profile-overview/duplicate/1', headers: s.owner, payload: { name: 'Copy' } })
  t.equal(duplicated.statusCode, 201)
  const copy = duplicated.json() as { alarmsCopied: number, newProfileNo: number }
  t.equal(copy.alarmsCopied, 1)
  t.same(await areasIn(s, 'lures', copy.newProfileNo), [['town', s.mine]], 'the copy names the own fence as the original does')
  t.same(await areasIn(s, 'lures', 1), [['town', s.mine]], 'the original is unchanged')
  t.ok(s.engine.reloads.includes('reload'), 'the engine re-reads the directly written column')

  const imported = await importProfile(s, 'Imported', { lure: [{ lure_id: 502, override_areas: ['Town', s.mine.toUpperCase()] }, { lure_id: 503 }] })
  t.equal(imported.statusCode, 201)
  const made = imported.json() as { alarmsCopied: number, newProfileNo: number }
  t.equal(made.alarmsCopied, 2)
  t.same(await areasIn(s, 'lures', made.newProfileNo), [['town', s.mine], null], 'the own fence is stored under its engine name, lower-cased; the other alarm has none')
  const exported = await s.app.inject({ method: 'GET', url: `/api/profile-overview/export/${made.newProfileNo}`, headers: s.owner })
  t.match(exported.json(), { alarms: { lure: [{ lure_id: 502, override_areas: ['town', s.mine] }, { lure_id: 503 }] } }, 'the export carries the list back out')
})

t.test('profile import naming another user\'s fence is refused before anything is written', async (t) => {
  const s = await setup(t, 'ng')
  const profilesBefore = await s.app.engineDb.pool.query('SELECT profile_no FROM profiles WHERE id = ?', [OWNER]) as unknown[]
  const writesBefore = s.engine.requests.filter((r) => r.method !== 'GET').length
  const refused = await importProfile(s, 'Stolen', { lure: [{ lure_id: 501 }, { lure_id: 502, override_areas: ['Town', s.theirs] }] })
  t.equal(refused.statusCode, 400)
  t.same(refused.json(), { error: 'Invalid request', details: [{ field: '/alarms/lure/1/override_areas', message: `unknown area: ${s.theirs}` }] })
  t.equal(s.engine.requests.filter((r) => r.method !== 'GET').length, writesBefore, 'the engine received no write')
  t.same(await s.app.engineDb.pool.query('SELECT profile_no FROM profiles WHERE id = ?', [OWNER]), profilesBefore, 'no profile was added')
  t.same(await s.stored('lures'), [], 'no alarm was written')
})

t.test('profile import on PoracleJS: own fence accepted (no such column), others\' refused', async (t) => {
  const s = await setup(t, 'js')
  t.equal((await importProfile(s, 'Stolen', { lure: [{ lure_id: 502, override_areas: [s.theirs] }] })).statusCode, 400)
  t.same(await s.stored('lures'), [], 'nothing written')
  const imported = await importProfile(s, 'Imported', { lure: [{ lure_id: 502, override_areas: ['Town', s.mine] }] })
  t.equal(imported.statusCode, 201)
  t.same(await areasIn(s, 'lures', (imported.json() as { newProfileNo: number }).newProfileNo), [null], 'PoracleJS does not read the column: no direct write')
  t.notOk(s.engine.reloads.includes('reload'), 'no reload for a column nobody reads')
})
