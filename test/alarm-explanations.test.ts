import t from 'tap'
import { build, bearer, rootConnection, seedHuman, type Test, type TestApp } from './helper.js'
import { golbatDatabase } from './fakes/golbat-db.js'
import { insertAlarm, insertProfile } from './fakes/engine-db.js'

/**
 * POST /api/alarm-explanations and its admin twin: the member's alarms of every profile against one
 * scanner event, with the fences of the engine's own geofence file (no Koji). Bad events are a 400
 * naming the field; another member's answer is a 404 to a member, an admin's question is audited; the
 * per-member rate limit. Last, the same scanner events through the estimates and the explanations:
 * each alarm's figure is the number of events its explanation says it matches.
 */

const USER = '111111111111111111'
const ADMIN = '999999999999999999'
const CENTRE: Array<[number, number]> = [[51, 7], [51, 7.2], [51.2, 7.2], [51.2, 7]]
const NORTH: Array<[number, number]> = [[52, 7], [52, 7.2], [52.2, 7.2], [52.2, 7]]
const NOW_S = Date.parse('2026-11-26T12:00:00Z') / 1000

interface Setup extends TestApp { member: { authorization: string }, admin: { authorization: string }, uids: { pikachu: number, hundos: number } }

async function setup (t: Test, env: Record<string, string> = {}): Promise<Setup> {
  const s = await build(t, { env: { PORACLE_ADMIN_IDS: ADMIN, ...env } })
  s.engine.set({ fences: [{ name: 'Centre', path: CENTRE }, { name: 'North', path: NORTH }] })
  await seedHuman(s, { id: USER, area: ['centre'], latitude: 51.1, longitude: 7.1 })
  await seedHuman(s, { id: ADMIN, area: ['centre'] })
  const member = bearer(s.app, { userId: USER })
  const created = async (path: string, body: object) => {
    const res = await s.app.inject({ method: 'POST', url: `/api${path}`, headers: member, payload: body })
    if (res.statusCode >= 300) throw new Error(`create ${path}: ${res.statusCode} ${res.body}`)
    const list = (await s.app.inject({ method: 'GET', url: `/api${path}`, headers: member })).json() as Array<{ uid: number }>
    return Math.max(...list.map((a) => a.uid))
  }
  const pikachu = await created('/monsters', { pokemon_id: 25, min_iv: 90 })
  const hundos = await created('/monsters', { pokemon_id: 0, min_iv: 100 })
  await created('/raids', { pokemon_id: 150 })
  // A second profile, "Work", holds the hundo alarm.
  const work = await s.app.inject({ method: 'POST', url: '/api/profiles', headers: member, payload: { name: 'Work' } })
  if (work.statusCode >= 300) throw new Error(`profile: ${work.statusCode} ${work.body}`)
  await s.app.engineDb.pool.query('UPDATE monsters SET profile_no = 2 WHERE uid = ?', [hundos])
  return Object.assign(s, { member, admin: bearer(s.app, { userId: ADMIN, isAdmin: true }), uids: { pikachu, hundos } })
}

const pokemon = (extra: Record<string, unknown> = {}) => ({
  type: 'pokemon',
  message: { pokemon_id: 25, form: 0, latitude: 51.1, longitude: 7.1, disappear_time: NOW_S + 1200, individual_attack: 15, individual_defense: 15, individual_stamina: 15, cp: 900, pokemon_level: 30, gender: 1, ...extra }
})
const ask = async (s: Setup, payload: object, headers = s.member, url = '/api/alarm-explanations') => {
  const res = await s.app.inject({ method: 'POST', url, headers, payload })
  return { status: res.statusCode, body: res.json() }
}

t.test('a hundo in the centre: the alert, the other profile\'s alarm, the raid alarm not asked', async (t) => {
  const s = await setup(t)
  const { status, body } = await ask(s, { event: pokemon() })
  t.equal(status, 200)
  t.equal(body.alerted, true)
  t.equal(body.activeProfileNo, 1)
  t.same(body.member, [])
  t.same(body.eventAreas, ['centre'], 'the engine\'s fence, from its geofence file')
  t.same(body.alarms.map((a: { uid: number, profileNo: number, matches: boolean, active: boolean }) => [a.uid, a.profileNo, a.active, a.matches]),
    [[s.uids.pikachu, 1, true, true], [s.uids.hundos, 2, false, false]], 'the pokemon alarms of every profile, and only those')
  t.same(body.alarms[1].failed, [{ filter: 'profile_no', want: 'profile 2 (Work) active', got: 1 }])
})

t.test('an 82 % Pikachu in the north: every reason, in the engine\'s field names', async (t) => {
  const s = await setup(t)
  const { body } = await ask(s, { event: pokemon({ individual_attack: 7, latitude: 52.1 }) })
  t.equal(body.alerted, false)
  t.same(body.alarms[0].failed, [
    { filter: 'min_iv', want: 'IV % 90–100', got: 82.22 },
    { filter: 'area', want: 'one of centre', got: ['north'] }
  ])
  const unencountered = await ask(s, { event: { type: 'pokemon', message: { pokemon_id: 25, latitude: 51.1, longitude: 7.1, disappear_time: NOW_S + 600 } } })
  t.same(unencountered.body.alarms[0].failed, [{ filter: 'min_iv', want: 'IV % 90–100', got: -1 }], 'not encountered: IV -1')
})

t.test('the member\'s side: paused, and an area the engine does not know', async (t) => {
  const s = await setup(t)
  await s.app.engineDb.pool.query('UPDATE humans SET enabled = 0 WHERE id = ?', [USER])
  const paused = await ask(s, { event: pokemon() })
  t.equal(paused.body.alerted, false)
  t.same(paused.body.member, [{ filter: 'enabled', want: 'alerts switched on', got: false }])
  t.equal(paused.body.alarms[0].matches, true, 'the alarm itself would match')
  s.engine.set({ fences: [{ name: 'North', path: NORTH }] })
  s.clock.advance(11_000)
  const gone = await ask(s, { event: pokemon() })
  t.same(gone.body.alarms[0].failed, [{ filter: 'area', want: 'one of centre (no fence the engine knows)', got: [] }], 'said plainly')
  t.same(gone.body.alarms[0].unknownAreas, ['centre'])
})

t.test('raids: the raid and egg alarms; the profile active at the event\'s time by its schedule', async (t) => {
  const s = await setup(t)
  const raid = { type: 'raid', message: { gym_id: 'g1', latitude: 51.1, longitude: 7.1, level: 5, end: NOW_S + 1800, pokemon_id: 150, team_id: 1 } }
  const { body } = await ask(s, { event: raid })
  t.equal(body.alerted, true)
  t.same(body.alarms.map((a: { type: string }) => a.type), ['raid'])
  // Work switches on Thursdays at 09:00 and Home at 11:00 (26 November 2026 is a Thursday, now is 12:00): the event at 10:00 was Work's.
  const schedule = 'UPDATE profiles SET active_hours = ? WHERE id = ? AND profile_no = ?'
  await s.app.engineDb.pool.query(schedule, [JSON.stringify([{ day: 4, hours: 9, mins: 0 }]), USER, 2])
  await s.app.engineDb.pool.query(schedule, [JSON.stringify([{ day: 4, hours: 11, mins: 0 }]), USER, 1])
  // Written past the site (as the chat bot would): seen once the member's kept state ends.
  s.clock.advance(61_000)
  const atTen = await ask(s, { event: pokemon(), at: Date.parse('2026-11-26T10:00:00Z') / 1000, timeZone: 'UTC' })
  t.equal(atTen.body.activeProfileNo, 2, 'the scheduled profile: Home switched on since, at 11:00')
  t.same(atTen.body.alarms.map((a: { matches: boolean }) => a.matches), [false, true], 'Home\'s alarm was not active, Work\'s hundo alarm would have alerted')
  t.equal(atTen.body.alerted, true)
})

t.test('the member is kept a minute: a change through the site is seen at once, one made elsewhere when it ends', async (t) => {
  const s = await setup(t)
  t.equal((await ask(s, { event: pokemon() })).body.alerted, true)
  await s.app.engineDb.pool.query('UPDATE humans SET enabled = 0 WHERE id = ?', [USER])
  t.same((await ask(s, { event: pokemon() })).body.member, [], 'paused past the site (the chat bot): the kept member still answers')
  s.clock.advance(61_000)
  t.same((await ask(s, { event: pokemon() })).body.member, [{ filter: 'enabled', want: 'alerts switched on', got: false }], 'read again once it ended')
  const removed = await s.app.inject({ method: 'DELETE', url: `/api/monsters/${s.uids.pikachu}`, headers: s.member })
  t.ok(removed.statusCode < 300, removed.body)
  const after = await ask(s, { event: pokemon() })
  t.same(after.body.alarms.map((a: { uid: number }) => a.uid), [s.uids.hundos], 'an alarm deleted through the site is gone from the very next answer')
  const admin = await s.app.inject({ method: 'PUT', url: `/api/admin/users/resume?id=${USER}`, headers: s.admin })
  t.equal(admin.statusCode, 200, admin.body)
  t.same((await ask(s, { event: pokemon() })).body.member, [], 'an admin\'s change of the member too')
})

t.test('bad events: a 400 naming the field, never a 500', async (t) => {
  const s = await setup(t)
  const bad = async (payload: object, field: string, message: string) => {
    const res = await ask(s, payload)
    t.equal(res.status, 400, message)
    t.ok(JSON.stringify(res.body).includes(field), `${message}: names ${field} (${JSON.stringify(res.body)})`)
  }
  const { latitude: _latitude, ...noLatitude } = pokemon().message
  await bad({ event: { type: 'pokemon', message: noLatitude } }, 'event.message.latitude', 'no latitude')
  await bad({ event: pokemon({ pokemon_id: 'pikachu' }) }, 'event.message.pokemon_id', 'a species as text')
  await bad({ event: pokemon({ latitude: 123 }) }, 'event.message.latitude', 'a latitude off the globe')
  await bad({ event: { type: 'weather', message: {} } }, 'type', 'an event type the explanations do not know')
  await bad({ event: { type: 'quest', message: { latitude: 51.1, longitude: 7.1, rewards: [] } } }, 'event.message.rewards', 'a quest without rewards')
  await bad({ event: { type: 'invasion', message: { latitude: 51.1, longitude: 7.1 } } }, 'event.message.incident_grunt_type', 'an invasion without its grunt')
  await bad({ event: { type: 'fort_update', message: { change_type: 'new' } } }, 'event.message.new.location', 'a fort change without a place')
  await bad({ event: { type: 'fort_update', message: { change_type: 'new', new: { type: 'pokestop', location: { lat: 123, lon: 7.1 } } } } }, 'event.message.new.location.lat', 'a fort off the globe')
  const fort = await ask(s, { event: { type: 'fort_update', message: { change_type: 'new', new: { id: 'f1', type: 'pokestop', name: 'Fountain', location: { lat: 51.1, lon: 7.1 } } } } })
  t.equal(fort.status, 200, 'a fort change as Golbat sends it, placed by lat and lon')
  await bad({ event: pokemon(), timeZone: 'Mars/Olympus' }, 'timeZone', 'an unknown time zone')
  await bad({ event: pokemon(), extra: 1 }, 'extra', 'an unknown field')
  t.equal((await s.app.inject({ method: 'POST', url: '/api/alarm-explanations', payload: { event: pokemon() } })).statusCode, 401, 'signed out')
})

t.test('admins ask about any member, audited; to a member another member does not exist', async (t) => {
  const s = await setup(t)
  const url = `/api/admin/users/${USER}/alarm-explanations`
  const asMember = await ask(s, { event: pokemon() }, bearer(s.app, { userId: ADMIN }), url)
  t.equal(asMember.status, 404, 'a member asking about another member')
  const asAdmin = await ask(s, { event: pokemon() }, s.admin, url)
  t.equal(asAdmin.status, 200)
  t.same(asAdmin.body, (await ask(s, { event: pokemon() })).body, 'the member\'s own answer')
  const audit = (await s.app.inject({ method: 'GET', url: '/api/admin/audit?action=alarm-explanations.ask', headers: s.admin })).json() as { entries: Array<{ actorId: string, target: string }> }
  t.same(audit.entries.map((e) => [e.actorId, e.target]), [[ADMIN, USER]], 'written to the audit log')
  t.equal((await ask(s, { event: pokemon() }, s.admin, '/api/admin/users/424242/alarm-explanations')).status, 404, 'a member the engine does not know')
})

t.test('rate-limited per member', async (t) => {
  const s = await setup(t, { EXPLAIN_RATE_MAX: '2' })
  t.same([(await ask(s, { event: pokemon() })).status, (await ask(s, { event: pokemon() })).status, (await ask(s, { event: pokemon() })).status], [200, 200, 429])
  t.equal((await ask(s, { event: pokemon() }, s.admin, `/api/admin/users/${USER}/alarm-explanations`)).status, 200, 'another caller has a window of their own')
})

t.test('the same events through estimates and explanations agree, alarm by alarm', async (t) => {
  const database = await golbatDatabase()
  const scanner = await rootConnection()
  await scanner.query(`USE \`${database}\``)
  t.teardown(() => scanner.end())
  await scanner.query('DELETE FROM pokemon')
  const s = await setup(t, { SCANNER_DB_HOST: '127.0.0.1', SCANNER_DB_USER: 'root', SCANNER_DB_NAME: database, EXPLAIN_RATE_MAX: '1000', ESTIMATE_RATE_MAX: '1000' })
  // The raid alarm and the Work profile of setup stay; profile 1's pokemon alarms are these.
  await s.app.engineDb.pool.query('DELETE FROM monsters WHERE id = ?', [USER])
  for (const alarm of [{ pokemon_id: 25, min_iv: 80 }, { pokemon_id: 0, min_cp: 1000, max_level: 30 }, { pokemon_id: 133, gender: 2, min_time: 600 }, { pokemon_id: 0, min_iv: -1, max_iv: 50, size: 1, max_size: 3 }]) {
    const res = await s.app.inject({ method: 'POST', url: '/api/monsters', headers: s.member, payload: alarm })
    t.equal(res.statusCode, 201)
  }
  let seed = 11
  const rnd = () => { seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31; return seed / 2 ** 31 }
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1))
  const spawns = Array.from({ length: 60 }, (_, i) => {
    const encountered = rnd() < 0.7
    const firstSeen = NOW_S - int(60, 3000)
    return {
      id: `e${i}`,
      lat: [51.05, 51.15, 52.1, 50.5][int(0, 3)] as number + rnd() * 0.04,
      lon: 7.02 + rnd() * 0.15,
      pokemonId: [25, 133, 1, 25][int(0, 3)] as number,
      atk: encountered ? int(0, 15) : null,
      def: encountered ? int(0, 15) : null,
      sta: encountered ? int(0, 15) : null,
      cp: encountered ? int(10, 2500) : null,
      level: encountered ? int(1, 35) : null,
      gender: int(1, 2),
      size: encountered ? int(1, 5) : null,
      weight: encountered ? int(1, 900) / 10 : null,
      firstSeen,
      expire: firstSeen + int(0, 1800)
    }
  })
  for (const m of spawns) {
    await scanner.query(`INSERT INTO pokemon (id, lat, lon, pokemon_id, form, atk_iv, def_iv, sta_iv, iv, cp, level, gender, size, weight, first_seen_timestamp, expire_timestamp, expire_timestamp_verified, updated)
      VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)`, [m.id, m.lat, m.lon, m.pokemonId, m.atk, m.def, m.sta,
      m.atk === null ? null : Math.round(((m.atk + (m.def ?? 0) + (m.sta ?? 0)) * 10000) / 45) / 100, m.cp, m.level, m.gender, m.size, m.weight, m.firstSeen, m.expire, m.firstSeen])
  }
  const estimates = (await s.app.inject({ method: 'GET', url: '/api/alarm-estimates?type=pokemon', headers: s.member })).json() as { alarms: Record<string, { recent: number }> }
  const matched = new Map<number, number>()
  for (const m of spawns) {
    const message = {
      ...{ pokemon_id: m.pokemonId, form: 0, latitude: m.lat, longitude: m.lon, disappear_time: m.expire, gender: m.gender },
      ...(m.atk === null ? {} : { individual_attack: m.atk, individual_defense: m.def, individual_stamina: m.sta, cp: m.cp, pokemon_level: m.level, size: m.size, weight: m.weight })
    }
    const res = await ask(s, { event: { type: 'pokemon', message }, at: m.firstSeen })
    for (const a of res.body.alarms as Array<{ uid: number, matches: boolean, profileNo: number }>) if (a.profileNo === 1 && a.matches) matched.set(a.uid, (matched.get(a.uid) ?? 0) + 1)
  }
  const uids = Object.keys(estimates.alarms).map(Number)
  t.equal(uids.length, 4)
  t.same(uids.map((uid) => [uid, estimates.alarms[uid]?.recent]), uids.map((uid) => [uid, matched.get(uid) ?? 0]), 'each alarm\'s figure is the number of events its explanation says it matches')
  t.ok(uids.filter((uid) => (matched.get(uid) ?? 0) > 0).length >= 3, 'and the events give most alarms something to match')
})

t.test('many members read at once from the engine\'s database are the states the engine\'s API gives one by one', async (t) => {
  for (const engineMode of ['ng', 'js'] as const) {
    const s = await build(t, { engineMode })
    const pool = s.app.engineDb.pool
    const ids = ['610000000000000001', '610000000000000002', '610000000000000003']
    await seedHuman(s, { id: ids[0] as string, name: 'One', area: ['Centre'], latitude: 51.1, longitude: 7.1 })
    await seedHuman(s, { id: ids[1] as string, name: 'Two', enabled: false, language: 'de' })
    await seedHuman(s, { id: ids[2] as string, name: 'Three', currentProfileNo: 2 })
    await insertProfile(pool, { id: ids[2] as string, profileNo: 2, name: 'Work', area: ['Harbour'], activeHours: [{ day: 1, hours: 9, mins: 0 }] })
    await insertAlarm(pool, 'pokemon', { id: ids[0] as string, pokemon_id: 25, min_iv: 90, override_areas: JSON.stringify(['harbour']) })
    await insertAlarm(pool, 'raid', { id: ids[0] as string, pokemon_id: 9000, level: 5 })
    await insertAlarm(pool, 'quest', { id: ids[1] as string, reward_type: 2, reward: 1301 })
    await insertAlarm(pool, 'pokemon', { id: ids[2] as string, pokemon_id: 0, min_iv: 100, profile_no: 2, pvp_ranking_league: 1500, pvp_ranking_worst: 10 })
    const atOnce = await s.app.alarmExplanations.memberStates([...ids, '610000000000000009'])
    t.same([...atOnce.keys()].sort(), ids, `${engineMode}: each member the engine knows, no other`)
    // PoracleJS words its alarms (`description`) whatever it is asked; no rule reads the wording.
    const withoutWording = (state: Awaited<ReturnType<typeof s.app.alarmExplanations.memberState>>) =>
      ({ ...state, alarms: state.alarms.map(({ type, row: { description: _description, ...row } }) => ({ type, row })) })
    for (const id of ids) t.same(atOnce.get(id), withoutWording(await s.app.alarmExplanations.memberState(id)), `${engineMode}: ${id} as the engine's API gives it`)
    t.equal(atOnce.get(ids[0] as string)?.alarms.length, 2, 'the rows are there to compare')
  }
})
