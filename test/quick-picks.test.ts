import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, bearer, seedHuman, type Test, type TestApp } from './helper.js'
import { insertAlarm } from './fakes/engine-db.js'
import { MAX_OWN_PICKS } from '../plugins/domain/quick-picks.js'

const ADMIN = '100000000000000001'
const USER = '100000000000000002'
const OTHER = '100000000000000003'

const asAdmin = (app: FastifyInstance) => bearer(app, { userId: ADMIN, isAdmin: true })
const asUser = (app: FastifyInstance, userId = USER) => bearer(app, { userId })

async function setup (t: Test): Promise<TestApp> {
  const s = await build(t)
  await seedHuman(s, { id: ADMIN, name: 'Ada' })
  await seedHuman(s, { id: USER, name: 'Uma' })
  await seedHuman(s, { id: OTHER, name: 'Otto' })
  const seeded = await s.app.inject({ method: 'POST', url: '/api/quick-picks/seed', headers: asAdmin(s.app) })
  t.equal(seeded.statusCode, 204, 'built-ins seeded')
  return s
}

const uidsOf = async (s: TestApp, table: string, userId = USER) =>
  (await s.app.engineDb.pool.query(`SELECT uid FROM \`${table}\` WHERE id = ? ORDER BY uid`, [userId]) as Array<{ uid: number }>).map((r) => r.uid)

const apply = (s: TestApp, id: string, payload: object = {}, verb: 'apply' | 'reapply' = 'apply') =>
  s.app.inject({ method: 'POST', url: `/api/quick-picks/${id}/${verb}`, headers: asUser(s.app), payload })

t.test('seeding publishes the 31 built-ins; only admins seed', async (t) => {
  const s = await setup(t)
  const list = await s.app.inject({ method: 'GET', url: '/api/quick-picks', headers: asUser(s.app) })
  t.equal(list.statusCode, 200)
  const entries = list.json() as Array<{ definition: { id: string, scope: string }, appliedState: unknown }>
  t.equal(entries.length, 31)
  t.ok(entries.every((e) => e.definition.scope === 'global' && e.appliedState === null))
  t.equal(await s.app.siteSettings.get('quick_picks_seeded'), 'true')
  t.equal((await s.app.inject({ method: 'POST', url: '/api/quick-picks/seed', headers: asUser(s.app) })).statusCode, 403)
  t.equal((await s.app.inject({ method: 'POST', url: '/api/quick-picks/seed' })).statusCode, 401)
})

t.test('apply records exactly the alarms it created; remove deletes only those', async (t) => {
  const s = await setup(t)
  const own = await insertAlarm(s.app.engineDb.pool, 'invasion', { id: USER, grunt_type: 'fire' })
  const others = await insertAlarm(s.app.engineDb.pool, 'invasion', { id: OTHER, grunt_type: 'cliff' })

  const res = await apply(s, 'invasion-leaders')
  t.equal(res.statusCode, 200)
  const state = res.json() as { trackedUids: number[], profileNo: number }
  const created = (await uidsOf(s, 'invasion')).filter((uid) => uid !== own)
  t.equal(created.length, 3, 'one alarm per leader')
  t.same(state.trackedUids, created, 'exactly the new uids')
  t.equal(state.profileNo, 1)
  t.equal((await apply(s, 'invasion-leaders')).statusCode, 409, 'applied twice')

  const removed = await s.app.inject({ method: 'DELETE', url: '/api/quick-picks/invasion-leaders/remove', headers: asUser(s.app) })
  t.equal(removed.statusCode, 204)
  t.same(await uidsOf(s, 'invasion'), [own], 'the user\'s own alarm stays')
  t.same(await uidsOf(s, 'invasion', OTHER), [others], 'the other user\'s alarm stays')
  t.equal((await s.app.inject({ method: 'DELETE', url: '/api/quick-picks/invasion-leaders/remove', headers: asUser(s.app) })).statusCode, 404, 'nothing applied any more')
})

t.test('an alarm re-keyed by an edit stays tracked: remove deletes it under its new uid', async (t) => {
  const s = await setup(t)
  const applied = (await apply(s, 'lure-glacial')).json() as { trackedUids: number[] }
  t.equal(applied.trackedUids.length, 1)
  const [oldUid] = applied.trackedUids
  const mine = await insertAlarm(s.app.engineDb.pool, 'lure', { id: USER, lure_id: 501 })

  // The applied state's row is held by another transaction while the member edits: the edit must wait for
  // the quick pick to follow the new uid before it answers. An edit that answered first let a read in
  // between find the old uid gone and drop it, and remove then left the edited alarm behind.
  const holder = await s.app.db.pool.getConnection()
  t.teardown(() => holder.release())
  await holder.beginTransaction()
  await holder.query('SELECT id FROM quick_pick_applied_states WHERE user_id = ? FOR UPDATE', [USER])
  let answered = false
  const editing = s.app.inject({ method: 'PUT', url: `/api/lures/${String(oldUid)}`, headers: asUser(s.app), payload: { distance: 750 } })
    .then((res) => { answered = true; return res })
  await new Promise((resolve) => setTimeout(resolve, 1500))
  t.notOk(answered, 'no answer while the quick pick cannot yet follow the new uid')
  await holder.rollback()
  const edit = await editing
  t.equal(edit.statusCode, 200)
  const newUid = (edit.json() as { uid: number }).uid
  t.not(newUid, oldUid, 'the engine re-keyed the edited lure')
  const [stored] = await s.app.db.pool.query('SELECT tracked_uids_json AS uids FROM quick_pick_applied_states WHERE user_id = ?', [USER]) as Array<{ uids: number[] }>
  t.same(stored?.uids, [newUid], 'recorded before the edit answered')
  const list = (await s.app.inject({ method: 'GET', url: '/api/quick-picks', headers: asUser(s.app) })).json() as Array<{ definition: { id: string }, appliedState: { trackedUids: number[] } | null }>
  t.same(list.find((e) => e.definition.id === 'lure-glacial')?.appliedState?.trackedUids, [newUid], 'the applied state follows the new uid')

  t.equal((await s.app.inject({ method: 'DELETE', url: '/api/quick-picks/lure-glacial/remove', headers: asUser(s.app) })).statusCode, 204)
  t.same(await uidsOf(s, 'lures'), [mine], 'the edited alarm is removed, the user\'s own lure stays')
})

t.test('alarms deleted elsewhere drop out of the tracked uids on read', async (t) => {
  const s = await setup(t)
  const { trackedUids } = (await apply(s, 'invasion-leaders')).json() as { trackedUids: number[] }
  const gone = trackedUids[0] as number
  t.equal((await s.app.inject({ method: 'DELETE', url: `/api/invasions/${gone}`, headers: asUser(s.app) })).statusCode, 204)
  const list = (await s.app.inject({ method: 'GET', url: '/api/quick-picks', headers: asUser(s.app) })).json() as Array<{ definition: { id: string }, appliedState: { trackedUids: number[] } | null }>
  t.same(list.find((e) => e.definition.id === 'invasion-leaders')?.appliedState?.trackedUids, trackedUids.slice(1))
})

t.test('re-apply replaces the earlier apply; bad options are refused before anything is removed', async (t) => {
  const s = await setup(t)
  const first = (await apply(s, 'raid-5')).json() as { trackedUids: number[] }
  t.equal(first.trackedUids.length, 1)
  for (const bad of [{ clean: 9 }, { distance: -1 }, { unknown: 1 }, { excludePokemonIds: [1] }]) {
    const res = await apply(s, 'raid-5', bad, 'reapply')
    t.equal(res.statusCode, 400, JSON.stringify(bad))
  }
  t.same(await uidsOf(s, 'raid'), first.trackedUids, 'refused re-applies changed nothing')

  const again = await apply(s, 'raid-5', { distance: 1000, clean: 1 }, 'reapply')
  t.equal(again.statusCode, 200)
  const second = again.json() as { trackedUids: number[] }
  t.same(await uidsOf(s, 'raid'), second.trackedUids, 'the old alarm replaced by the new one')
  const [row] = await s.app.engineDb.pool.query('SELECT distance, clean, level FROM raid WHERE uid = ?', [second.trackedUids[0]]) as Array<Record<string, number>>
  t.same(row, { distance: 1000, clean: 1, level: 5 })
  t.equal((await apply(s, 'nope')).statusCode, 404)
})

t.test('an apply says how many alarms it asked for, so alarms already there are told apart from new ones', async (t) => {
  const s = await setup(t)
  const first = await apply(s, 'invasion-leaders')
  t.match(first.json(), { requested: 3, trackedUids: { length: 3 } })
  const removed = await s.app.inject({ method: 'DELETE', url: '/api/quick-picks/invasion-leaders/remove', headers: asUser(s.app) })
  t.equal(removed.statusCode, 204)
  const [kept] = await s.app.engineDb.pool.query('SELECT * FROM invasion WHERE id = ?', [USER]) as unknown[]
  t.equal(kept, undefined, 'nothing left before the second apply')
  const own = await s.app.inject({ method: 'POST', url: '/api/invasions/batch', headers: asUser(s.app), payload: { alarms: [{ grunt_type: 'cliff' }] } })
  t.equal(own.statusCode, 200, 'the member made one leader alarm by hand')
  const second = await apply(s, 'invasion-leaders')
  t.equal(second.statusCode, 200)
  t.match(second.json(), { requested: 3, trackedUids: { length: 2 } }, 'the hand-made alarm was already there')
})

t.test('exclusions create one alarm per remaining species, only for "every pokemon" picks', async (t) => {
  const s = await setup(t)
  const res = await apply(s, 'hundo', { excludePokemonIds: [1, 150] })
  t.equal(res.statusCode, 200)
  const state = res.json() as { trackedUids: number[], excludePokemonIds: number[] }
  t.same(state.excludePokemonIds, [1, 150])
  const species = (await s.app.engineDb.pool.query('SELECT pokemon_id FROM monsters WHERE id = ? ORDER BY pokemon_id', [USER]) as Array<{ pokemon_id: number }>).map((r) => r.pokemon_id)
  t.same(species, [2, 3, 4, 7, 25, 129, 201], 'the fake\'s game data minus the excluded')
  t.equal(state.trackedUids.length, 7)
})

t.test('"all except…" a set of species: only the kept species are added, never over the member\'s own alarm', async (t) => {
  const s = await setup(t)
  const set = await s.app.inject({ method: 'POST', url: '/api/quick-picks/user', headers: asUser(s.app), payload: { name: 'Starters', alarmType: 'monster', filters: { pokemon_id: [1, 4, 7], min_iv: 90 } } })
  t.equal(set.statusCode, 200)
  const id = (set.json() as { id: string }).id
  // The member's own Squirtle alarm, within 1 km: the pick's Squirtle would rewrite it in the engine.
  const own = await insertAlarm(s.app.engineDb.pool, 'pokemon', { id: USER, pokemon_id: 7, min_iv: 90, distance: 1000 })
  for (const [bad, why] of [[[25], 'a species the set lacks'], [[1, 4, 7], 'every species of the set']] as const) {
    const res = await apply(s, id, { excludePokemonIds: bad })
    t.equal(res.statusCode, 400, why)
    t.match(res.json(), { details: [{ field: '/excludePokemonIds' }] })
  }
  t.same(await uidsOf(s, 'monsters'), [own], 'refused applies added nothing')

  const res = await apply(s, id, { excludePokemonIds: [4] })
  t.equal(res.statusCode, 200)
  const answer = res.json() as { requested: number, added: number[], skipped: Array<{ uid: number | null, reason: string }>, excludePokemonIds: number[] }
  t.equal(answer.requested, 2, 'Charmander left out')
  t.same(answer.excludePokemonIds, [4])
  t.match(answer.skipped, [{ uid: own, reason: 'would-change-yours' }], 'the member\'s Squirtle is left as it is')
  const rows = await s.app.engineDb.pool.query('SELECT uid, pokemon_id, distance FROM monsters WHERE id = ? ORDER BY pokemon_id', [USER]) as Array<{ uid: number, pokemon_id: number, distance: number }>
  t.same(rows.map((r) => [r.pokemon_id, r.distance]), [[1, 0], [7, 1000]], 'Bulbasaur added, the own Squirtle unchanged, no Charmander')
  t.same(answer.added, rows.filter((r) => r.pokemon_id === 1).map((r) => r.uid))
  t.equal((await s.app.inject({ method: 'DELETE', url: `/api/quick-picks/${id}/remove`, headers: asUser(s.app) })).statusCode, 204)
  t.same(await uidsOf(s, 'monsters'), [own], 'remove deletes the Bulbasaur alone')
  t.equal((await apply(s, 'raid-5', { excludePokemonIds: [1] })).statusCode, 400, 'a raid pick leaves no species out')
})

t.test('definitions: admins publish global picks, users keep their own, and bad filters store nothing', async (t) => {
  const s = await setup(t)
  const pick = { name: 'Shiny Stardust!', alarmType: 'quest', filters: { reward_type: 3, reward: 1000 } }
  const mine = await s.app.inject({ method: 'POST', url: '/api/quick-picks/user', headers: asUser(s.app), payload: pick })
  t.equal(mine.statusCode, 200)
  t.match(mine.json(), { id: /^u-[a-z0-9]{13}$/, scope: 'user', ownerUserId: USER, icon: 'bolt', category: 'Common' })
  const id = (mine.json() as { id: string }).id
  const second = await s.app.inject({ method: 'POST', url: '/api/quick-picks/user', headers: asUser(s.app), payload: pick })
  t.not(second.json().id, id, 'the same name is a new pick under a new id')

  t.equal((await s.app.inject({ method: 'GET', url: `/api/quick-picks/${id}`, headers: asUser(s.app, OTHER) })).statusCode, 404, 'hidden from others')
  t.equal((await s.app.inject({ method: 'GET', url: `/api/quick-picks/${id}`, headers: asAdmin(s.app) })).statusCode, 200, 'admins see any')
  t.equal((await s.app.inject({ method: 'POST', url: '/api/quick-picks', headers: asUser(s.app), payload: pick })).statusCode, 403, 'users do not publish')
  t.equal((await s.app.inject({ method: 'POST', url: '/api/quick-picks', headers: asAdmin(s.app), payload: { ...pick, id } })).statusCode, 400, 'a user\'s pick is not turned global')
  const global = await s.app.inject({ method: 'POST', url: '/api/quick-picks', headers: asAdmin(s.app), payload: { ...pick, name: 'U-boat' } })
  t.equal(global.json().id, 'pick-u-boat', 'a global pick\'s slug stays out of the members\' id space')

  const count = async () => Number(((await s.app.db.pool.query('SELECT COUNT(*) AS n FROM quick_pick_definitions') as Array<{ n: number }>)[0])?.n)
  const before = await count()
  for (const bad of [
    { ...pick, filters: { reward_type: 'three' } },
    { ...pick, filters: { min_iv: 5 } },
    { ...pick, alarmType: 'weather' },
    { ...pick, alarmType: 'invasion', filters: {} },
    { ...pick, id: 'user' },
    { ...pick, name: '' }
  ]) {
    const res = await s.app.inject({ method: 'POST', url: '/api/quick-picks', headers: asAdmin(s.app), payload: bad })
    t.equal(res.statusCode, 400, JSON.stringify(bad).slice(0, 60))
  }
  // Checked as an alarm create's body is: a number past JSON's range (1e400 reads as Infinity) and a
  // string field's control characters are refused, as the alarm routes refuse them.
  for (const raw of [
    '{"name":"Far","alarmType":"quest","filters":{"reward_type":3,"reward":1e400}}',
    '{"name":"Bell","alarmType":"invasion","filters":{"grunt_type":"water\\u0007"}}'
  ]) {
    const res = await s.app.inject({ method: 'POST', url: '/api/quick-picks', headers: { ...asAdmin(s.app), 'content-type': 'application/json' }, payload: raw })
    t.equal(res.statusCode, 400, raw)
    if (raw.includes('grunt_type')) t.match(res.json(), { details: [{ field: '/filters/grunt_type' }] }, 'the filter at fault, as a JSON pointer into the body')
    const alarm = await s.app.inject({ method: 'POST', url: raw.includes('quest') ? '/api/quests' : '/api/invasions', headers: { ...asUser(s.app), 'content-type': 'application/json' }, payload: raw.slice(raw.indexOf('"filters":') + 10, -1) })
    t.equal(alarm.statusCode, 400, `the alarm route refuses the same filters: ${raw}`)
  }
  t.equal(await count(), before, 'nothing stored')

  const disabled = await s.app.inject({ method: 'POST', url: '/api/quick-picks', headers: asAdmin(s.app), payload: { ...pick, id: 'off', enabled: false } })
  t.equal(disabled.statusCode, 200)
  t.equal((await apply(s, 'off')).statusCode, 400, 'a disabled pick is not applied')

  t.equal((await s.app.inject({ method: 'DELETE', url: `/api/quick-picks/user/${id}`, headers: asUser(s.app, OTHER) })).statusCode, 404)
  t.equal((await s.app.inject({ method: 'DELETE', url: `/api/quick-picks/user/${id}`, headers: asUser(s.app) })).statusCode, 204)
  t.equal((await s.app.inject({ method: 'DELETE', url: '/api/quick-picks/off', headers: asUser(s.app) })).statusCode, 403)
  t.equal((await s.app.inject({ method: 'DELETE', url: '/api/quick-picks/off', headers: asAdmin(s.app) })).statusCode, 204)
  t.equal((await s.app.inject({ method: 'DELETE', url: '/api/quick-picks/off', headers: asAdmin(s.app) })).statusCode, 404)
})

t.test('a disabled alarm type refuses the apply with the gate\'s 403', async (t) => {
  const s = await setup(t)
  await s.app.db.pool.query("INSERT INTO site_settings (`key`, value) VALUES ('disable_lures', 'true')")
  s.app.siteSettings.evict('disable_lures')
  const res = await apply(s, 'lure-golden')
  t.equal(res.statusCode, 403)
  t.equal(res.json().disableKey, 'disable_lures')
  t.same(await uidsOf(s, 'lures'), [])
})

t.test('a member edits a pick of their own in place; someone else\'s, a missing one and bad input change nothing', async (t) => {
  const s = await setup(t)
  const pick = { name: 'Dratini hunt', alarmType: 'monster', filters: { pokemon_id: 147, min_iv: 90 } }
  const created = await s.app.inject({ method: 'POST', url: '/api/quick-picks/user', headers: asUser(s.app), payload: pick })
  t.equal(created.statusCode, 200)
  const id = (created.json() as { id: string }).id
  const applied = await apply(s, id)
  t.equal(applied.statusCode, 200, 'a member applies a pick of their own')

  const stored = async () => (await s.app.db.pool.query('SELECT name, description, alarm_type AS alarmType, filters_json AS filters, owner_user_id AS owner FROM quick_pick_definitions WHERE id = ?', [id]) as Array<Record<string, unknown>>)[0]
  const before = await stored()
  const put = (payload: object, userId = USER, target = id) =>
    s.app.inject({ method: 'PUT', url: `/api/quick-picks/user/${target}`, headers: asUser(s.app, userId), payload })

  t.equal((await put({ ...pick, name: 'Taken over' }, OTHER)).statusCode, 404, 'someone else\'s pick is not found')
  t.equal((await put({ ...pick, name: 'Global now' }, USER, 'hundo')).statusCode, 404, 'a global pick is not a member\'s to edit')
  t.equal((await put(pick, USER, 'gone-missing')).statusCode, 404, 'a missing pick is not made')
  for (const bad of [
    { ...pick, name: '   ' },
    { ...pick, id: 'other-id' },
    { ...pick, alarmType: 'weather' },
    { ...pick, filters: { min_iv: 'high' } },
    { name: 'No type', filters: {} }
  ]) {
    t.equal((await put(bad)).statusCode, 400, JSON.stringify(bad).slice(0, 60))
  }
  t.same(await stored(), before, 'refused edits changed nothing')
  const [count] = await s.app.db.pool.query('SELECT COUNT(*) AS n FROM quick_pick_definitions WHERE id = ?', ['gone-missing']) as Array<{ n: number }>
  t.equal(Number(count?.n), 0, 'the missing pick stays missing')

  const edited = await put({ name: 'Dragonite line', description: 'Dratini family', alarmType: 'monster', filters: { pokemon_id: [147, 148, 149], min_iv: 95 } })
  t.equal(edited.statusCode, 200)
  t.match(edited.json(), { id, name: 'Dragonite line', description: 'Dratini family', scope: 'user', ownerUserId: USER, filters: { pokemon_id: [147, 148, 149], min_iv: 95 } })
  const list = (await s.app.inject({ method: 'GET', url: '/api/quick-picks', headers: asUser(s.app) })).json() as Array<{ definition: { id: string, name: string }, appliedState: unknown }>
  t.match(list.find((e) => e.definition.id === id), { definition: { name: 'Dragonite line' }, appliedState: { trackedUids: { length: 1 } } }, 'the applied state outlives the edit')
  const others = (await s.app.inject({ method: 'GET', url: '/api/quick-picks', headers: asUser(s.app, OTHER) })).json() as Array<{ definition: { id: string } }>
  t.notOk(others.some((e) => e.definition.id === id), 'never listed for another member')
})

t.test('a member keeps at most 50 picks of their own; edits still pass at the limit', async (t) => {
  const s = await setup(t)
  const values = Array.from({ length: MAX_OWN_PICKS }, (_, i) => [`own-${i}`, `Own ${i}`, 'raid', 'user', USER, JSON.stringify({ level: 5 })])
  await s.app.db.pool.query(
    'INSERT INTO quick_pick_definitions (id, name, alarm_type, scope, owner_user_id, filters_json, icon, category, sort_order, enabled, created_at, updated_at) VALUES ' +
    values.map(() => "(?, ?, ?, ?, ?, ?, 'bolt', 'Common', 0, 1, NOW(), NOW())").join(', '),
    values.flat()
  )
  const pick = { name: 'One more', alarmType: 'raid', filters: { level: 6 } }
  const refused = await s.app.inject({ method: 'POST', url: '/api/quick-picks/user', headers: asUser(s.app), payload: pick })
  t.equal(refused.statusCode, 403)
  t.match(refused.json().error, /50 quick picks/)
  const [count] = await s.app.db.pool.query('SELECT COUNT(*) AS n FROM quick_pick_definitions WHERE owner_user_id = ?', [USER]) as Array<{ n: number }>
  t.equal(Number(count?.n), MAX_OWN_PICKS, 'nothing stored')
  t.equal((await s.app.inject({ method: 'PUT', url: '/api/quick-picks/user/own-0', headers: asUser(s.app), payload: pick })).statusCode, 200, 'an edit is no new pick')
  t.equal((await s.app.inject({ method: 'POST', url: '/api/quick-picks/user', headers: asUser(s.app), payload: { ...pick, id: 'own-1' } })).statusCode, 200, 'a replace is no new pick')
  t.equal((await s.app.inject({ method: 'POST', url: '/api/quick-picks/user', headers: asUser(s.app, OTHER), payload: pick })).statusCode, 200, 'the limit is per member')
})

for (const engineMode of ['ng', 'js'] as const) {
  t.test(`${engineMode}: a pick never touches the member's own alarms: a scoped one survives applying and removing it`, async (t) => {
    const s = await build(t, { engineMode })
    await seedHuman(s, { id: ADMIN, name: 'Ada' })
    await seedHuman(s, { id: USER, name: 'Uma' })
    t.equal((await s.app.inject({ method: 'POST', url: '/api/quick-picks/seed', headers: asAdmin(s.app) })).statusCode, 204)
    const mine = await insertAlarm(s.app.engineDb.pool, 'invasion', { id: USER, grunt_type: 'giovanni', distance: 3000 })
    const rowOf = async () => await s.app.engineDb.pool.query('SELECT uid, distance FROM invasion WHERE id = ? ORDER BY uid', [USER]) as Array<{ uid: number, distance: number }>

    const res = await apply(s, 'invasion-giovanni')
    t.equal(res.statusCode, 200)
    t.match(res.json(), { requested: 1, added: [], trackedUids: [], skipped: [{ uid: mine, reason: 'would-change-yours' }] }, 'nothing added; the skip names the member\'s alarm and why')
    t.same(await rowOf(), [{ uid: mine, distance: 3000 }], 'the member\'s alarm is as it was, under its uid')

    const removed = await s.app.inject({ method: 'DELETE', url: '/api/quick-picks/invasion-giovanni/remove', headers: asUser(s.app) })
    t.equal(removed.statusCode, 204)
    t.same(await rowOf(), [{ uid: mine, distance: 3000 }], 'remove leaves the member\'s alarm')
  })
}

t.test('a pick skips what the member has (identical, or under the engine\'s unique key) and adds the rest', async (t) => {
  const s = await setup(t)
  const same = await insertAlarm(s.app.engineDb.pool, 'invasion', { id: USER, grunt_type: 'cliff' })
  // Two fields differ, so the engine would insert, and the table's unique key (gender, grunt type) refuses the row.
  const keyed = await insertAlarm(s.app.engineDb.pool, 'invasion', { id: USER, grunt_type: 'arlo', distance: 500, clean: 1 })
  const res = await apply(s, 'invasion-leaders')
  t.equal(res.statusCode, 200)
  const result = res.json() as { added: number[], trackedUids: number[], skipped: Array<{ uid: number, reason: string }> }
  t.match(result.skipped, [{ uid: same, reason: 'already-have' }, { uid: keyed, reason: 'same-key', message: /gender and grunt type/ }])
  t.equal(result.skipped.length, 2)
  t.equal(result.added.length, 1, 'only Sierra is new')
  t.same(result.trackedUids, result.added)
  const [sierra] = await s.app.engineDb.pool.query('SELECT grunt_type FROM invasion WHERE uid = ?', [result.added[0]]) as Array<{ grunt_type: string }>
  t.equal(sierra?.grunt_type, 'sierra')
  t.equal((await s.app.inject({ method: 'DELETE', url: '/api/quick-picks/invasion-leaders/remove', headers: asUser(s.app) })).statusCode, 204)
  t.same(await uidsOf(s, 'invasion'), [same, keyed], 'remove deleted only Sierra')
})

t.test('a member\'s create or edit under an id not their own answers exactly as a missing pick: nobody learns which ids exist', async (t) => {
  const s = await setup(t)
  const pick = { name: 'Dratini hunt', alarmType: 'monster', filters: { pokemon_id: 147, min_iv: 90 } }
  const theirs = (await s.app.inject({ method: 'POST', url: '/api/quick-picks/user', headers: asUser(s.app, OTHER), payload: pick })).json() as { id: string }
  const answer = async (method: 'POST' | 'PUT', id: string) => {
    const res = await s.app.inject(method === 'POST'
      ? { method, url: '/api/quick-picks/user', headers: asUser(s.app), payload: { ...pick, id } }
      : { method, url: `/api/quick-picks/user/${id}`, headers: asUser(s.app), payload: pick })
    return [res.statusCode, res.json()]
  }
  for (const method of ['POST', 'PUT'] as const) {
    const missing = await answer(method, 'u-0000000000000')
    t.same(missing, [404, { error: 'Quick pick not found.' }], `${method}: a pick that does not exist`)
    t.same(await answer(method, theirs.id), missing, `${method}: another member's pick`)
    t.same(await answer(method, 'hundo'), missing, `${method}: a global pick`)
  }
  const [row] = await s.app.db.pool.query('SELECT name, owner_user_id AS owner FROM quick_pick_definitions WHERE id = ?', [theirs.id]) as Array<Record<string, unknown>>
  t.same(row, { name: 'Dratini hunt', owner: OTHER }, 'the other member\'s pick is untouched')
  const [count] = await s.app.db.pool.query('SELECT COUNT(*) AS n FROM quick_pick_definitions WHERE owner_user_id = ?', [USER]) as Array<{ n: number }>
  t.equal(Number(count?.n), 0, 'no pick was made under a chosen id')
})

t.test('a new site starts with the built-in picks; a cleared set stays cleared; a site with picks of its own keeps them', async (t) => {
  const s = await build(t)
  await seedHuman(s, { id: USER, name: 'Uma' })
  const globals = async () => ((await s.app.inject({ method: 'GET', url: '/api/quick-picks', headers: asUser(s.app) })).json() as Array<{ definition: { id: string } }>).map((e) => e.definition.id)
  t.equal((await globals()).length, 31, 'published at start-up')
  t.equal(await s.app.siteSettings.get('quick_picks_seeded'), 'true')

  for (const id of await globals()) t.equal((await s.app.inject({ method: 'DELETE', url: `/api/quick-picks/${id}`, headers: asAdmin(s.app) })).statusCode, 204)
  t.equal(await s.app.quickPicks.seedNewSite(), false, 'the next start')
  t.same(await globals(), [], 'the admin\'s cleared set stays cleared')

  await s.app.db.pool.query("DELETE FROM site_settings WHERE `key` = 'quick_picks_seeded'")
  s.app.siteSettings.evict('quick_picks_seeded')
  const own = await s.app.inject({ method: 'POST', url: '/api/quick-picks', headers: asAdmin(s.app), payload: { id: 'ours', name: 'Ours', alarmType: 'raid', filters: { level: 5 } } })
  t.equal(own.statusCode, 200)
  t.equal(await s.app.quickPicks.seedNewSite(), false, 'a site never seeded that has picks of its own')
  t.same(await globals(), ['ours'], 'keeps them')
  t.equal(await s.app.siteSettings.get('quick_picks_seeded'), 'true', 'and is not asked again')
})
