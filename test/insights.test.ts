import t from 'tap'
import { build, bearer, rootConnection, seedHuman, type Test, type TestApp } from './helper.js'
import { golbatDatabase } from './fakes/golbat-db.js'
import { insertAlarm, insertProfile, type EngineAlarmType } from './fakes/engine-db.js'
import { ALARM_TYPES } from '../schemas/alarm-types.js'

/**
 * Admin insights: every figure is compared with a count this file makes itself from the rows it inserted
 * (its own reading of "member", "paused", "no pin", its own day and week arithmetic), the noise panel with
 * the member's own estimates, and the site-wide copy with the manual clock.
 */

const ADMIN = '100000000000000001'
const NOW = Date.parse('2026-11-26T12:00:00Z')
const DAY = 86_400_000
const TOWN = { minLat: 51, maxLat: 51.2, minLon: 7, maxLon: 7.2 }
const rect = (r: typeof TOWN): Array<[number, number]> => [[r.minLat, r.minLon], [r.minLat, r.maxLon], [r.maxLat, r.maxLon], [r.maxLat, r.minLon]]

interface Person {
  id: string
  type: string
  enabled?: boolean
  adminDisable?: boolean
  area?: string[]
  latitude?: number
  longitude?: number
  profiles?: number
  /** Alarm rows of each type, in profile 1. */
  alarms?: Partial<Record<EngineAlarmType, Array<Record<string, unknown>>>>
}

/** A deterministic generator, so a failing case can be replayed. */
function random (seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let x = Math.imul(a ^ (a >>> 15), 1 | a)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

/** A community: members of both user types, channels and webhooks with alarms that must not count. */
function community (seed: number): Person[] {
  const rnd = random(seed)
  const pick = <T>(list: T[]) => list[Math.floor(rnd() * list.length)] as T
  const people: Person[] = []
  for (let i = 0; i < 60; i++) {
    const type = i < 45 ? pick(['discord:user', 'telegram:user']) : pick(['discord:channel', 'webhook', 'telegram:group'])
    const alarms: Person['alarms'] = {}
    for (const kind of ['pokemon', 'raid', 'quest', 'egg', 'gym'] as EngineAlarmType[]) {
      const count = Math.floor(rnd() * rnd() * 14)
      alarms[kind] = Array.from({ length: count }, () => kind === 'pokemon'
        ? { pokemon_id: pick([0, 1, 25, 25, 150, 133]) }
        : kind === 'raid'
          ? { pokemon_id: pick([9000, 150, 150, 382]), level: 5 }
          : kind === 'quest'
            ? pick([{ reward_type: 7, reward: 25 }, { reward_type: 2, reward: 1 }, { reward_type: 3, reward: 0 }])
            : {})
    }
    people.push({
      id: `2000000000000${String(i).padStart(5, '0')}`,
      type,
      enabled: rnd() > 0.2,
      adminDisable: rnd() < 0.1,
      area: rnd() < 0.25 ? [] : [pick(['Town', 'Village', 'Harbour']), ...(rnd() < 0.3 ? ['Nowhere Land'] : [])],
      ...(rnd() < 0.3 ? {} : { latitude: 51.1, longitude: 7.1 }),
      profiles: 1 + Math.floor(rnd() * 3),
      alarms
    })
  }
  return people
}

const isMember = (p: Person) => p.type.endsWith(':user')
const noPin = (p: Person) => p.latitude === undefined
const noAreas = (p: Person) => (p.area ?? []).length === 0

async function seedCommunity (s: TestApp, people: Person[]): Promise<void> {
  for (const p of people) {
    await seedHuman(s, {
      id: p.id,
      type: p.type,
      enabled: p.enabled !== false,
      adminDisable: p.adminDisable === true,
      area: p.area ?? [],
      ...(p.latitude !== undefined && p.longitude !== undefined && { latitude: p.latitude, longitude: p.longitude })
    })
    for (let no = 2; no <= (p.profiles ?? 1); no++) await insertProfile(s.app.engineDb.pool, { id: p.id, profileNo: no })
    for (const [type, rows] of Object.entries(p.alarms ?? {})) {
      for (const row of rows) await insertAlarm(s.app.engineDb.pool, type as EngineAlarmType, { id: p.id, ...row })
    }
  }
}

const admin = (s: TestApp) => bearer(s.app, { userId: ADMIN, isAdmin: true })
const get = async (s: TestApp, panel: string, headers = admin(s)) => {
  const res = await s.app.inject({ url: `/api/admin/insights/${panel}`, headers })
  return { status: res.statusCode, body: res.json(), raw: res.body }
}

async function setup (t: Test, env: Record<string, string> = {}): Promise<TestApp> {
  const s = await build(t, { env })
  s.engine.set({ fences: [{ name: 'Town', path: rect(TOWN) }, { name: 'Village', path: rect({ minLat: 48, maxLat: 49, minLon: 9, maxLon: 9.5 }) }, { name: 'Harbour', path: rect({ minLat: 53, maxLat: 53.1, minLon: 8, maxLon: 8.1 }) }, { name: 'Quiet Hills', path: rect({ minLat: 47, maxLat: 47.1, minLon: 8, maxLon: 8.1 }) }] })
  await seedHuman(s, { id: ADMIN, name: 'Ada' })
  return s
}

t.test('members: totals, paused, blocked, without a pin or areas, against an independent count', async (t) => {
  const s = await setup(t)
  const people = community(3)
  await seedCommunity(s, people)
  const members = [...people.filter(isMember), { id: ADMIN, type: 'discord:user', area: [] }]
  const { status, body } = await get(s, 'members')
  t.equal(status, 200)
  t.equal(body.total, members.length, 'channels, groups and webhooks are not members')
  t.equal(body.paused, members.filter((p) => p.enabled === false && p.adminDisable !== true).length)
  t.equal(body.blocked, members.filter((p) => p.adminDisable === true).length)
  t.equal(body.withoutLocation, members.filter(noPin).length)
  t.equal(body.withoutAreas, members.filter(noAreas).length)
  t.equal(body.withoutLocationOrAreas, members.filter((p) => noPin(p) && noAreas(p)).length)
  t.ok(body.paused > 0 && body.blocked > 0 && body.withoutLocation > 0 && body.withoutAreas > 0, 'the data is not trivially empty')
  t.notMatch(body, { latitude: Number, longitude: Number })
  t.notMatch(JSON.stringify(body), /51\.1|7\.1\b/, 'no position in the answer')
})

t.test('sign-ins: recorded by a completed sign-in, not by a renewal; per day, per week, 7 and 30 days, by method', async (t) => {
  const s = await setup(t)
  await seedHuman(s, { id: '300000000000000001' })
  await s.app.identity.signIn({ userId: '300000000000000001', method: 'discord' })
  await s.app.identity.signIn({ userId: '300000000000000001', method: 'telegram', renewal: true })
  const recorded = await s.app.db.pool.query('SELECT user_id, method, at FROM sign_ins') as Array<{ user_id: string, method: string, at: string }>
  t.same(recorded.map((r) => [r.user_id, r.method, r.at]), [['300000000000000001', 'discord', '2026-11-26 12:00:00.000000']], 'one row: the renewal is not a sign-in')

  // History: sign-ins spread over 120 days, several a day for some users.
  const rnd = random(9)
  const history: Array<{ user: string, method: string, at: number }> = [{ user: '300000000000000001', method: 'discord', at: NOW }]
  for (let i = 0; i < 400; i++) {
    history.push({ user: `u${Math.floor(rnd() * 70)}`, method: ['discord', 'telegram', 'oidc'][Math.floor(rnd() * 3)] as string, at: NOW - Math.floor(rnd() * 120 * DAY) })
  }
  const rows = history.slice(1).map((h) => [h.user, h.method, new Date(h.at).toISOString().replace('T', ' ').replace('Z', '')])
  await s.app.db.pool.batch('INSERT INTO sign_ins (user_id, method, at) VALUES (?, ?, ?)', rows)

  const distinct = (list: typeof history) => new Set(list.map((h) => h.user)).size
  const { body } = await get(s, 'members')
  t.equal(body.signedIn7d, distinct(history.filter((h) => h.at >= NOW - 7 * DAY)))
  t.equal(body.signedIn30d, distinct(history.filter((h) => h.at >= NOW - 30 * DAY)))

  const today = Math.floor(NOW / DAY) * DAY
  t.equal(body.signInsPerDay.length, 90)
  t.equal(body.signInsPerDay[89].day, '2026-11-26', 'today last')
  t.equal(body.signInsPerDay[0].day, '2026-08-29', '90 days, today included')
  for (const [i, entry] of (body.signInsPerDay as Array<{ day: string, signIns: number, members: number }>).entries()) {
    const start = today - (89 - i) * DAY
    const that = history.filter((h) => h.at >= start && h.at < start + DAY)
    t.same(entry, { day: new Date(start).toISOString().slice(0, 10), signIns: that.length, members: distinct(that) }, `day ${entry.day}`)
  }

  const first = new Map<string, number>()
  for (const h of history) first.set(h.user, Math.min(first.get(h.user) ?? Infinity, h.at))
  const firstWeek = today - (12 * 7 - 1) * DAY
  t.equal(body.newPerWeek.length, 12)
  for (const [i, week] of (body.newPerWeek as Array<{ weekStart: string, members: number }>).entries()) {
    const start = firstWeek + i * 7 * DAY
    t.same(week, { weekStart: new Date(start).toISOString().slice(0, 10), members: [...first.values()].filter((at) => at >= start && at < start + 7 * DAY).length }, `week of ${week.weekStart}`)
  }
  t.ok((body.newPerWeek as Array<{ members: number }>).some((w) => w.members > 0), 'some new members')

  const methods = await get(s, 'sign-ins')
  t.equal(methods.status, 200)
  const recent = history.filter((h) => h.at >= NOW - 30 * DAY)
  const expected = ['discord', 'oidc', 'telegram'].map((method) => {
    const these = recent.filter((h) => h.method === method)
    return { method, signIns: these.length, members: distinct(these) }
  }).filter((m) => m.signIns > 0).sort((a, b) => b.signIns - a.signIns || a.method.localeCompare(b.method))
  t.same(methods.body.byMethod, expected)
  t.equal(methods.body.days, 30)
})

t.test('sign-ins: members with and without a Web Push device, by browser family, against an independent count', async (t) => {
  const s = await setup(t)
  const people = ['400000000000000001', '400000000000000002', '400000000000000003', '400000000000000004']
  for (const id of people) await seedHuman(s, { id })
  await seedHuman(s, { id: '400000000000000099', type: 'discord:channel' })
  const devices: Array<[user: string, device: string]> = [
    ['400000000000000001', 'Firefox on Android'], ['400000000000000001', 'Chrome on Windows'],
    ['400000000000000002', 'Safari on iOS'], ['400000000000000002', 'Safari on macOS'],
    ['400000000000000003', ''], ['400000000000000003', 'Android']
  ]
  await s.app.db.pool.batch('INSERT INTO push_subscriptions (user_id, endpoint, endpoint_hash, p256dh, auth, device) VALUES (?, ?, ?, ?, ?, ?)',
    devices.map(([user, device], i) => [user, `https://push.example.org/${i}`, `hash-${i}`, 'key', 'auth', device]))
  const { status, body } = await get(s, 'sign-ins')
  t.equal(status, 200)
  const members = people.length + 1
  const withPush = new Set(devices.map(([user]) => user)).size
  t.same(body.devices.members, members, 'the admin and the four members; not the channel')
  t.equal(body.devices.withPush, withPush)
  t.equal(body.devices.withoutPush, members - withPush)
  const family = (device: string) => ['Firefox', 'Chrome', 'Safari'].find((b) => device.startsWith(`${b} on `)) ?? 'other'
  const byFamily = new Map<string, Set<string>>()
  for (const [user, device] of devices) byFamily.set(family(device), (byFamily.get(family(device)) ?? new Set()).add(user))
  t.same(body.devices.byBrowser, [...byFamily].map(([browser, users]) => ({ browser, members: users.size }))
    .sort((a, b) => b.members - a.members || a.browser.localeCompare(b.browser)), 'each member once per family: two Safari devices are one member')
})

t.test('alarms: per type, most tracked, members by alarm and profile count, against an independent count', async (t) => {
  const s = await setup(t)
  const people = community(5)
  await seedCommunity(s, people)
  const members = [...people.filter(isMember), { id: ADMIN, type: 'discord:user', profiles: 1, alarms: {} } as Person]
  const { status, body } = await get(s, 'alarms')
  t.equal(status, 200)
  t.same(Object.keys(body.byType).sort(), [...ALARM_TYPES].sort(), 'every type as /api/alarm-types names it')
  for (const type of ALARM_TYPES) {
    t.equal(body.byType[type], members.reduce((n, p) => n + (p.alarms?.[type]?.length ?? 0), 0), `${type}: members' alarms only`)
  }
  t.ok(body.byType.pokemon > 0 && body.byType.raid > 0)

  const tracked = (type: EngineAlarmType, key: (row: Record<string, unknown>) => string | null) => {
    const found = new Map<string, { members: Set<string>, alarms: number }>()
    for (const p of members) {
      for (const row of p.alarms?.[type] ?? []) {
        const k = key(row)
        if (k === null) continue
        const entry = found.get(k) ?? { members: new Set(), alarms: 0 }
        entry.members.add(p.id)
        entry.alarms++
        found.set(k, entry)
      }
    }
    return found
  }
  const check = (type: string, expected: Map<string, { members: Set<string>, alarms: number }>, keyOf: (e: Record<string, number>) => string) => {
    const answered = (body.topTracked as Array<Record<string, number>>).filter((e) => e.type as unknown as string === type)
    t.equal(answered.length, expected.size, `${type}: every tracked one (fewer than 25)`)
    for (const e of answered) t.same([e.members, e.alarms], [expected.get(keyOf(e))?.members.size, expected.get(keyOf(e))?.alarms], `${type} ${keyOf(e)}`)
    t.ok(answered.every((e, i) => i === 0 || Number(answered[i - 1]?.members) >= Number(e.members)), `${type}: most members first`)
  }
  check('pokemon', tracked('pokemon', (r) => (r.pokemon_id === 0 ? null : String(r.pokemon_id))), (e) => String(e.id))
  check('raid', tracked('raid', (r) => (r.pokemon_id === 9000 ? null : String(r.pokemon_id))), (e) => String(e.id))
  check('quest', tracked('quest', (r) => (r.reward === 0 ? null : `${String(r.reward_type)}:${String(r.reward)}`)), (e) => `${e.rewardType}:${e.id}`)

  const totals = members.map((p) => Object.values(p.alarms ?? {}).reduce((n, rows) => n + rows.length, 0))
  for (const bucket of body.membersByAlarmCount as Array<{ from: number, to: number | null, members: number }>) {
    t.equal(bucket.members, totals.filter((n) => n >= bucket.from && (bucket.to === null || n <= bucket.to)).length, `${bucket.from}..${bucket.to ?? ''} alarms`)
  }
  t.equal((body.membersByAlarmCount as Array<{ members: number }>).reduce((n, b) => n + b.members, 0), members.length, 'every member in one bucket')
  const byProfiles = new Map<number, number>()
  for (const p of members) byProfiles.set(p.profiles ?? 1, (byProfiles.get(p.profiles ?? 1) ?? 0) + 1)
  t.same(body.membersByProfileCount, [...byProfiles].sort((a, b) => a[0] - b[0]).map(([profiles, n]) => ({ profiles, members: n })))
})

t.test('areas: members per fence (every engine fence, unknown areas said), pending member fences; no position', async (t) => {
  const s = await setup(t)
  const people = community(7)
  await seedCommunity(s, people)
  await s.app.db.pool.query(`INSERT INTO user_geofences (human_id, koji_name, display_name, status, polygon_json, submitted_at) VALUES
    ('a', 'pending_one', 'One', 'pending', '[[51.1,7.1],[51.2,7.1],[51.2,7.2]]', '2026-11-20 10:00:00'),
    ('b', 'pending_two', 'Two', 'pending', '[[51.1,7.1],[51.2,7.1],[51.2,7.2]]', '2026-11-22 10:00:00'),
    ('c', 'active_one', 'Three', 'active', '[[51.1,7.1],[51.2,7.1],[51.2,7.2]]', NULL)`)
  const { status, body, raw } = await get(s, 'areas')
  t.equal(status, 200)
  const members = people.filter(isMember)
  const count = (name: string) => members.filter((p) => (p.area ?? []).includes(name)).length
  const expected = [
    ...['Town', 'Village', 'Harbour', 'Quiet Hills'].map((name) => ({ name, members: count(name), known: true })),
    { name: 'nowhere land', members: count('Nowhere Land'), known: false }
  ].sort((a, b) => b.members - a.members || a.name.localeCompare(b.name))
  t.same(body.areas, expected)
  t.equal(count('Quiet Hills'), 0, 'a fence nobody selected is listed with 0')
  t.ok(count('Nowhere Land') > 0)
  t.equal(body.pendingFences, 2)
  t.equal(body.oldestPendingSince, '2026-11-20T10:00:00.000Z')
  t.notMatch(raw, /51\.1|7\.1\b|polygon|path/, 'no position, no polygon')
})

t.test('one area of the map: its members and the pokémon their active profiles track most, against an independent count', async (t) => {
  const s = await setup(t)
  const people = community(11)
  await seedCommunity(s, people)
  const members = people.filter(isMember)
  for (const [asked, name, known] of [['town', 'Town', true], ['Nowhere Land', 'nowhere land', false], ['Quiet Hills', 'Quiet Hills', true]] as const) {
    const inArea = members.filter((p) => (p.area ?? []).some((a) => a.toLowerCase() === asked.toLowerCase()))
    const bySpecies = new Map<number, { members: Set<string>, alarms: number }>()
    for (const p of inArea) {
      for (const row of p.alarms?.pokemon ?? []) {
        const id = Number(row.pokemon_id)
        if (id === 0) continue
        const entry = bySpecies.get(id) ?? { members: new Set(), alarms: 0 }
        entry.members.add(p.id)
        entry.alarms++
        bySpecies.set(id, entry)
      }
    }
    const top = [...bySpecies].map(([id, e]) => ({ id, members: e.members.size, alarms: e.alarms }))
      .sort((a, b) => b.members - a.members || b.alarms - a.alarms || a.id - b.id).slice(0, 3)
    const { status, body, raw } = await get(s, `areas/${encodeURIComponent(asked)}`)
    t.equal(status, 200, asked)
    t.match(body, { name, known, members: inArea.length }, `${asked}: named as the engine lists it, its members counted`)
    t.same(body.topTracked.map((e: { id: number, members: number, alarms: number }) => ({ id: e.id, members: e.members, alarms: e.alarms })), top, `${asked}: the species tracked most there`)
    t.notMatch(raw, /51\.1|7\.1\b|polygon|path/, 'no position')
  }
  t.ok(members.some((p) => (p.area ?? []).includes('Town')), 'the seed puts members in Town')
  t.equal((await get(s, 'areas/Atlantis')).status, 404, 'neither a fence nor anyone\'s area')

  // Kept 10 minutes for every admin, whatever the case of the name asked, then read again.
  const town = (await get(s, 'areas/Town')).body.members as number
  await seedHuman(s, { id: '300000000000000099', name: 'Newcomer', area: ['town'] })
  t.equal((await get(s, 'areas/TOWN')).body.members, town, 'a member who joined Town is not counted while the answer is kept')
  s.clock.advance(10 * 60_000)
  t.equal((await get(s, 'areas/town')).body.members, town + 1, 'after 10 minutes the area is read again')
  t.equal((await get(s, 'areas/Town', bearer(s.app, { userId: '200000000000000001' }))).status, 403, 'a member is refused')
  t.equal((await get(s, `areas/${'x'.repeat(256)}`)).status, 400, 'a name longer than a fence name')
})

t.test('admins only: a member is refused, an impersonation of a member is refused, no token is a 401', async (t) => {
  const s = await setup(t)
  await seedHuman(s, { id: '400000000000000001', name: 'Mia' })
  const started = await s.app.inject({ method: 'POST', url: '/api/admin/impersonate', headers: { ...admin(s), 'content-type': 'application/json' }, payload: JSON.stringify({ userId: '400000000000000001' }) })
  t.equal(started.statusCode, 200, started.body)
  const impersonation = { authorization: `Bearer ${started.json().token as string}` }
  for (const panel of ['members', 'alarms', 'areas', 'noise', 'sign-ins']) {
    t.equal((await get(s, panel, bearer(s.app, { userId: '400000000000000001' }))).status, 403, `${panel}: member`)
    const asImpersonated = await get(s, panel, impersonation)
    t.equal(asImpersonated.status, 403, `${panel}: impersonated member`)
    t.equal(asImpersonated.body.error, 'Administrator rights are required.')
    t.equal((await s.app.inject({ url: `/api/admin/insights/${panel}` })).statusCode, 401, `${panel}: no token`)
    t.equal((await get(s, panel)).status, 200, `${panel}: admin`)
  }
})

t.test('kept 10 minutes for the whole site, then answered at once from the old copy while a new one is computed', async (t) => {
  const s = await setup(t)
  await seedHuman(s, { id: '500000000000000001' })
  await seedHuman(s, { id: '100000000000000009' })
  const first = await get(s, 'members')
  t.equal(first.body.total, 3)
  t.equal(first.body.computedAt, '2026-11-26T12:00:00.000Z')
  await seedHuman(s, { id: '500000000000000002' })
  s.clock.advance(9 * 60_000)
  const other = bearer(s.app, { userId: '100000000000000009', isAdmin: true })
  const second = await get(s, 'members', other)
  t.same([second.body.total, second.body.computedAt], [3, '2026-11-26T12:00:00.000Z'], 'another admin, 9 minutes later: the same copy')

  s.clock.advance(60_000)
  const stale = await get(s, 'members')
  t.same([stale.body.total, stale.body.computedAt], [3, '2026-11-26T12:00:00.000Z'], 'at 10 minutes: the old copy at once, a new one is computed behind it')
  let fresh = stale
  for (let i = 0; i < 50 && fresh.body.total === 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    fresh = await get(s, 'members')
  }
  t.same([fresh.body.total, fresh.body.computedAt], [4, '2026-11-26T12:10:00.000Z'], 'then the new copy')
  t.equal((await get(s, 'members')).body.computedAt, '2026-11-26T12:10:00.000Z', 'kept again')
})

t.test('a failed background refresh keeps the old copy', async (t) => {
  const s = await setup(t)
  t.equal((await get(s, 'sign-ins')).status, 200)
  await s.app.db.pool.query('RENAME TABLE sign_ins TO sign_ins_away')
  t.teardown(async () => { await s.app.db.pool.query('RENAME TABLE sign_ins_away TO sign_ins').catch(() => {}) })
  s.clock.advance(10 * 60_000)
  for (let i = 0; i < 5; i++) {
    const res = await get(s, 'sign-ins')
    t.same([res.status, res.body.computedAt], [200, '2026-11-26T12:00:00.000Z'])
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  await s.app.db.pool.query('RENAME TABLE sign_ins_away TO sign_ins')
})

/** Golbat rows: pokemon seen within the last hour in Town, a handful of species. */
async function scannerWith (count: number): Promise<string> {
  const database = await golbatDatabase()
  const c = await rootConnection()
  try {
    await c.query(`USE \`${database}\``)
    await c.query('DELETE FROM pokemon')
    const rnd = random(21)
    const now = NOW / 1000
    const rows = Array.from({ length: count }, (_, i) => {
      const seen = now - Math.floor(rnd() * 3000)
      const atk = Math.floor(rnd() * 16)
      return [`p${i}`, TOWN.minLat + rnd() * 0.2, TOWN.minLon + rnd() * 0.2, [1, 25, 150, 133][Math.floor(rnd() * 4)], 0, atk, 15, 15, Math.round(((atk + 30) * 10000) / 45) / 100, 500, 20, 1, 3, 10, seen, seen + 1200, seen]
    })
    await c.batch(`INSERT INTO pokemon (id, lat, lon, pokemon_id, form, atk_iv, def_iv, sta_iv, iv, cp, level, gender, size, weight, first_seen_timestamp, expire_timestamp, expire_timestamp_verified, updated)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)`, rows.map((r) => r.slice(0, 17)))
  } finally {
    await c.end()
  }
  return database
}

t.test('noise: the same figures as the member\'s own estimates, loudest first, marked above the engine\'s limit', async (t) => {
  const database = await scannerWith(1500)
  const s = await setup(t, { SCANNER_DB_HOST: '127.0.0.1', SCANNER_DB_USER: 'root', SCANNER_DB_NAME: database, INSIGHTS_ALERT_LIMIT: '20', INSIGHTS_ALERT_LIMIT_SECONDS: '240' })
  const loud = '600000000000000001'
  const quiet = '600000000000000002'
  const paused = '600000000000000003'
  await seedHuman(s, { id: loud, name: 'Loud', area: ['town'], latitude: 51.1, longitude: 7.1 })
  await seedHuman(s, { id: quiet, name: 'Quiet', area: ['town'], latitude: 51.1, longitude: 7.1 })
  await seedHuman(s, { id: paused, name: 'Paused', area: ['town'], enabled: false })
  await insertAlarm(s.app.engineDb.pool, 'pokemon', { id: loud, pokemon_id: 0 })
  await insertAlarm(s.app.engineDb.pool, 'pokemon', { id: loud, pokemon_id: 25, min_iv: 50 })
  await insertAlarm(s.app.engineDb.pool, 'raid', { id: loud, pokemon_id: 9000, level: 5 })
  await insertAlarm(s.app.engineDb.pool, 'pokemon', { id: quiet, pokemon_id: 150, min_iv: 90 })
  await insertAlarm(s.app.engineDb.pool, 'pokemon', { id: paused, pokemon_id: 0 })

  const { status, body, raw } = await get(s, 'noise')
  t.equal(status, 200, raw)
  t.same([body.basis, body.windowHours, body.limit], ['scanner', 1, { alerts: 20, seconds: 240, perHour: 300 }])
  t.same(body.members.map((m: { userId: string }) => m.userId), [loud, quiet], 'loudest first; a paused member receives nothing and is not measured')
  t.same([body.measured, body.failed], [2, 0])
  for (const member of body.members as Array<{ userId: string, name: string, recentPerHour: number, overLimit: boolean }>) {
    let own = 0
    for (const type of ['pokemon', 'raid', 'egg', 'quest', 'invasion', 'lure']) {
      const res = await s.app.inject({ url: `/api/alarm-estimates?type=${type}`, headers: bearer(s.app, { userId: member.userId }) })
      t.equal(res.statusCode, 200)
      own += (res.json() as { total: { recent: number | null } }).total.recent ?? 0
    }
    t.equal(member.recentPerHour, own, `${member.name}: the member's own estimates over one hour`)
    t.equal(member.overLimit, own > 300, `${member.name}: marked by the limit`)
  }
  t.ok((body.members[0] as { recentPerHour: number }).recentPerHour > 300, 'the loud member is above the limit: the data is not trivially quiet')
  t.ok((body.members[1] as { recentPerHour: number }).recentPerHour > 0)
  t.notMatch(raw, /51\.1|latitude|longitude/, 'no position')
})

t.test('noise without a scanner: unavailable, nobody measured', async (t) => {
  const s = await setup(t)
  const { status, body } = await get(s, 'noise')
  t.equal(status, 200)
  t.same([body.basis, body.measured, body.members], ['unavailable', 0, []])
})
