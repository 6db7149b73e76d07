import t from 'tap'
import { build, bearer, seedHuman, type Test, type TestApp } from './helper.js'

/**
 * POST /api/alarm-explanations and its admin twin: the member's alarms of every profile against one
 * scanner event, with the fences of the engine's own geofence file (no Koji). Bad events are a 400
 * naming the field; another member's answer is a 404 to a member, an admin's question is audited; the
 * per-member rate limit.
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
  const atTen = await ask(s, { event: pokemon(), at: Date.parse('2026-11-26T10:00:00Z') / 1000, timeZone: 'UTC' })
  t.equal(atTen.body.activeProfileNo, 2, 'the scheduled profile: Home switched on since, at 11:00')
  t.same(atTen.body.alarms.map((a: { matches: boolean }) => a.matches), [false, true], 'Home\'s alarm was not active, Work\'s hundo alarm would have alerted')
  t.equal(atTen.body.alerted, true)
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
