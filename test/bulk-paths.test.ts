import t from 'tap'
import { build, bearer, seedHuman, type Test, type TestApp } from './helper.js'
import { insertAlarm } from './fakes/engine-db.js'

/**
 * Every path that writes many alarms at once, against the engine's upsert (alarm-engine.md 1.3): a row
 * posted beside a member's alarm that differs from it in one updatable field rewrites that alarm. None
 * of these paths may change or delete an alarm of the member it was not asked to: batch create (and the
 * undo of a delete, which is one), bulk edit (and its undo, which is one), cleaning, profile import and
 * the two profile copies. Quick picks have their own tests (quick-picks.test.ts).
 */
const USER = '100000000000000002'

async function setup (t: Test, engineMode: 'ng' | 'js'): Promise<TestApp & { headers: { authorization: string } }> {
  const s = await build(t, { engineMode })
  await seedHuman(s, { id: USER, name: 'Uma', area: ['town'], latitude: 51.1, longitude: 7.1 })
  return { ...s, headers: bearer(s.app, { userId: USER }) }
}

const rowsOf = async (s: TestApp, table: string, columns: string) =>
  await s.app.engineDb.pool.query(`SELECT ${columns} FROM \`${table}\` WHERE id = ? ORDER BY uid`, [USER]) as Array<Record<string, unknown>>

for (const engineMode of ['ng', 'js'] as const) {
  t.test(`${engineMode}: a batch create (and so the undo of a delete) never rewrites a member's alarm`, async (t) => {
    const s = await setup(t, engineMode)
    const mine = await insertAlarm(s.app.engineDb.pool, 'invasion', { id: USER, grunt_type: 'giovanni', distance: 3000 })
    const res = await s.app.inject({ method: 'POST', url: '/api/invasions/batch', headers: s.headers, payload: { alarms: [{ grunt_type: 'giovanni' }, { grunt_type: 'cliff' }] } })
    t.equal(res.statusCode, 200)
    t.match(res.json(), { created: 1, refused: 1, results: [{ index: 0, status: 'refused', reason: /overwrite another of your alarms/ }, { index: 1, status: 'created' }] })
    t.match(await rowsOf(s, 'invasion', 'uid, grunt_type, distance'), [{ uid: mine, grunt_type: 'giovanni', distance: 3000 }, { grunt_type: 'cliff', distance: 0 }])
  })

  t.test(`${engineMode}: a bulk edit (and so its undo) never rewrites an alarm outside it`, async (t) => {
    const s = await setup(t, engineMode)
    const near = await insertAlarm(s.app.engineDb.pool, 'raid', { id: USER, pokemon_id: 9000, level: 5, distance: 1000, template: '1' })
    const edited = await insertAlarm(s.app.engineDb.pool, 'raid', { id: USER, pokemon_id: 9000, level: 5, distance: 0, template: '2' })
    // The edited raid would become `near` but for the distance: the engine would rewrite `near` instead.
    const res = await s.app.inject({ method: 'PATCH', url: '/api/raids', headers: s.headers, payload: { uids: [edited], patch: { template: '1' } } })
    t.equal(res.statusCode, 200)
    t.match(res.json(), { results: [{ uid: edited, status: 'refused', reason: /overwrite another of your alarms/ }] })
    t.same(await rowsOf(s, 'raid', 'uid, distance, template'), [{ uid: near, distance: 1000, template: '1' }, { uid: edited, distance: 0, template: '2' }])
  })

  t.test(`${engineMode}: cleaning leaves an alarm whose change the engine would write over another one`, async (t) => {
    const s = await setup(t, engineMode)
    const near = await insertAlarm(s.app.engineDb.pool, 'raid', { id: USER, pokemon_id: 9000, level: 5, distance: 1000, clean: 1 })
    const plain = await insertAlarm(s.app.engineDb.pool, 'raid', { id: USER, pokemon_id: 9000, level: 5, distance: 0, clean: 0 })
    const egg = await insertAlarm(s.app.engineDb.pool, 'egg', { id: USER, level: 5, clean: 0 })
    // With auto-delete on, `plain` equals `near` but for the distance: posted, the engine would update `near`.
    const res = await s.app.inject({ method: 'PUT', url: '/api/cleaning/all/1', headers: s.headers })
    t.equal(res.statusCode, 200)
    t.match(res.json(), { updated: 1 }, 'only the egg changed')
    t.same(await rowsOf(s, 'raid', 'uid, distance, clean'), [{ uid: near, distance: 1000, clean: 1 }, { uid: plain, distance: 0, clean: 0 }], 'both raids as they were')
    t.match(await rowsOf(s, 'egg', 'clean'), [{ clean: 1 }], `the egg (uid ${egg}) got auto-delete`)
  })

  t.test(`${engineMode}: profile import and both profile copies fill a new profile and leave the member's alarms`, async (t) => {
    const s = await setup(t, engineMode)
    const mine = await insertAlarm(s.app.engineDb.pool, 'invasion', { id: USER, grunt_type: 'giovanni', distance: 3000 })
    const before = await rowsOf(s, 'invasion', 'uid, profile_no, grunt_type, distance')
    const imported = await s.app.inject({ method: 'POST', url: '/api/profile-overview/import', headers: s.headers, payload: { profileName: 'Rocket', alarms: { invasion: [{ grunt_type: 'giovanni' }] } } })
    t.equal(imported.statusCode, 201)
    const copied = await s.app.inject({ method: 'POST', url: '/api/profile-overview/duplicate/1', headers: s.headers, payload: { name: 'Copy' } })
    t.equal(copied.statusCode, 201)
    const duplicated = await s.app.inject({ method: 'POST', url: '/api/profiles/duplicate', headers: s.headers, payload: { fromProfileNo: 1, name: 'Twin' } })
    t.equal(duplicated.statusCode, 201)
    const after = await rowsOf(s, 'invasion', 'uid, profile_no, grunt_type, distance')
    t.same(after.filter((r) => Number(r.profile_no) === 1), before, `the active profile's alarm (uid ${mine}) is untouched`)
    t.same(after.filter((r) => Number(r.profile_no) !== 1).map((r) => [r.profile_no, r.distance]), [[2, 0], [3, 3000], [4, 3000]], 'each new profile holds its own copy')
  })
}
