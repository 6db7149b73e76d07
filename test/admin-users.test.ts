import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, bearer, seedHuman, webhookHandle, type Test, type TestApp } from './helper.js'
import { ALARM_TABLES, insertAlarm, insertProfile, type EngineAlarmType } from './fakes/engine-db.js'
import { startChatPlatformFake } from './fakes/chat-platform.js'
import { ENGINE_CONFIG_MAX_BYTES } from '../plugins/domain/delegates.js'

const ADMIN = '100000000000000001'
const USER = '100000000000000002'
const OTHER = '100000000000000003'
const DELEGATE = '100000000000000004'
const WEBHOOK = 'https://discord.com/api/webhooks/11/token-a'

const asAdmin = (app: FastifyInstance) => bearer(app, { userId: ADMIN, isAdmin: true })
const asUser = (app: FastifyInstance, userId = USER) => bearer(app, { userId })

async function setup (t: Test, options: Parameters<typeof build>[1] = {}): Promise<TestApp> {
  const s = await build(t, options)
  await seed(s)
  return s
}

async function seed (s: TestApp): Promise<void> {
  await seedHuman(s, { id: ADMIN, name: 'Ada' })
  await seedHuman(s, { id: USER, name: 'Uma Smith', notes: 'first' })
  await seedHuman(s, { id: OTHER, name: 'Otto', enabled: false })
  await seedHuman(s, { id: DELEGATE, name: 'Dee' })
  await seedHuman(s, { id: WEBHOOK, name: 'Raid channel', type: 'webhook' })
}

// ---------------------------------------------------------------------------------------------------
// Guards

/** Admin paths any signed-in user may call: their own delegated webhooks, and acting as one of them. */
const OPEN_TO_USERS = new Set(['GET /api/admin/my-webhooks', 'POST /api/admin/impersonate'])
/**
 * Admin paths that answer a non-admin as if nothing were there: asking why another member got no alert
 * is "not found" to a member, as any other member's data is (docs/explanations.md).
 */
const NOT_FOUND_TO_USERS = new Set(['POST /api/admin/users/{id}/alarm-explanations', 'GET /api/admin/users/{id}/alarm-explanations/recent'])

t.test('every /api/admin route in the OpenAPI document answers 401 without a token and 403 (or 404) to a non-admin', async (t) => {
  const s = await setup(t)
  const doc = (await s.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> }
  const routes = Object.entries(doc.paths)
    .filter(([path]) => path.startsWith('/api/admin'))
    .flatMap(([path, methods]) => Object.keys(methods).map((method) => ({ method: method.toUpperCase(), path })))
  t.ok(routes.length >= 15, `${routes.length} admin routes documented`)
  for (const { method, path } of routes) {
    const url = path.replace(/\{[^}]+\}/g, 'x')
    const name = `${method} ${path.replace(/\/$/, '')}`
    const anonymous = await s.app.inject({ method: method as 'GET', url })
    t.equal(anonymous.statusCode, 401, `${name} without a token`)
    if (OPEN_TO_USERS.has(name)) continue
    const user = await s.app.inject({ method: method as 'GET', url, headers: asUser(s.app) })
    t.equal(user.statusCode, NOT_FOUND_TO_USERS.has(name) ? 404 : 403, `${name} as a non-admin`)
  }
})

// ---------------------------------------------------------------------------------------------------
// List, read, update

t.test('the user list pages, searches by name or id and filters by type and status', async (t) => {
  const s = await setup(t)
  for (let i = 0; i < 12; i++) await seedHuman(s, { id: `2000000000000000${String(i).padStart(2, '0')}`, name: `Trainer ${i}` })
  const list = async (query: string) => {
    const res = await s.app.inject({ method: 'GET', url: `/api/admin/users?${query}`, headers: asAdmin(s.app) })
    t.equal(res.statusCode, 200, query)
    return res.json() as { users: Array<{ id: string, name: string, enabled: boolean, adminDisable: boolean, avatarUrl: string | null }>, total: number }
  }
  const all = await list('pageSize=5&page=2')
  t.equal(all.total, 17)
  t.equal(all.users.length, 5)
  t.match(await list('pageSize=5&page=100'), { users: [], total: 17 }, 'past the end: no rows, the total still right')
  const names = (await list('pageSize=200')).users.map((u) => u.name)
  t.same(names, [...names].sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' })), 'ordered by name')

  t.same((await list('search=smith')).users.map((u) => u.id), [USER], 'name, anywhere, any case')
  t.same((await list(`search=${USER}`)).users.map((u) => u.id), [USER], 'exact id')
  t.equal((await list('search=20000000000000001')).total, 2, 'id prefix')
  t.equal((await list('search=%25')).total, 0, 'a % is searched for, not a wildcard')
  t.same((await list('type=webhook')).users.map((u) => u.id), [WEBHOOK])
  t.same((await list('status=paused')).users.map((u) => u.id), [OTHER])
  const row = (await list('search=Uma')).users[0]
  t.match(row, { enabled: true, adminDisable: false, avatarUrl: /^https:\/\/cdn\.discordapp\.com\/embed\/avatars\/[0-5]\.png$/ })
  t.equal((await list('type=webhook')).users[0]?.avatarUrl, null, 'no avatar for webhooks')

  for (const bad of ['pageSize=0', 'pageSize=1000', 'page=0', 'status=gone', 'search=', 'extra=1']) {
    const res = await s.app.inject({ method: 'GET', url: `/api/admin/users?${bad}`, headers: asAdmin(s.app) })
    t.equal(res.statusCode, 400, bad)
  }
})

t.test('avatars come from the chat platform in the background when a bot token is set', async (t) => {
  const platform = await startChatPlatformFake({ botToken: 'bot-token', users: [{ id: USER, username: 'uma', avatar: 'a1b2c3' }] })
  t.teardown(() => platform.close())
  const s = await setup(t, { env: { DISCORD_BOT_TOKEN: platform.botToken, DISCORD_API_URL: platform.url } })
  const avatarOf = async () => ((await s.app.inject({ method: 'GET', url: `/api/admin/users?search=${USER}`, headers: asAdmin(s.app) })).json() as { users: Array<{ avatarUrl: string }> }).users[0]?.avatarUrl
  t.match(await avatarOf(), /embed\/avatars/, 'the default at first: the list never waits for the platform')
  let url = ''
  for (let i = 0; i < 250 && !url.includes('a1b2c3'); i++) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    url = await avatarOf() ?? ''
  }
  t.equal(url, `https://cdn.discordapp.com/avatars/${USER}/a1b2c3.png`, 'then the looked-up avatar')
  const lookups = platform.requests.filter((r) => r.path.startsWith('/users/'))
  t.equal(lookups.length, 1, 'looked up once, then cached')
  t.equal(lookups[0]?.headers.authorization, 'Bot bot-token')
})

t.test('a failed avatar lookup leaves the default in the list and is retried after an hour, not on every list', async (t) => {
  const platform = await startChatPlatformFake({ botToken: 'bot-token', users: [{ id: USER, username: 'uma', avatar: 'a1b2c3' }] })
  t.teardown(() => platform.close())
  const s = await setup(t, { env: { DISCORD_BOT_TOKEN: platform.botToken, DISCORD_API_URL: platform.url } })
  platform.failures.userById = 'server_error'
  const list = async () => (await s.app.inject({ method: 'GET', url: `/api/admin/users?search=${USER}`, headers: asAdmin(s.app) }))
  const lookups = () => platform.requests.filter((r) => r.path.startsWith('/users/') && r.path !== '/users/@me').length
  const first = await list()
  t.equal(first.statusCode, 200)
  t.match((first.json() as { users: Array<{ avatarUrl: string }> }).users[0]?.avatarUrl, /embed\/avatars/)
  for (let i = 0; i < 250 && lookups() === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20))
  await new Promise((resolve) => setTimeout(resolve, 50))
  const afterFailure = lookups()
  t.ok(afterFailure > 0, 'the platform was asked')
  const again = await list()
  t.equal(again.statusCode, 200, 'the list still answers')
  t.match((again.json() as { users: Array<{ avatarUrl: string }> }).users[0]?.avatarUrl, /embed\/avatars/, 'the default, not an error')
  await new Promise((resolve) => setTimeout(resolve, 50))
  t.equal(lookups(), afterFailure, 'the failure is remembered: no lookup on the next list')

  delete platform.failures.userById
  s.clock.advance(3_600_001)
  let url = ''
  for (let i = 0; i < 250 && !url.includes('a1b2c3'); i++) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    url = ((await list()).json() as { users: Array<{ avatarUrl: string }> }).users[0]?.avatarUrl ?? ''
  }
  t.equal(url, `https://cdn.discordapp.com/avatars/${USER}/a1b2c3.png`, 'after an hour it is looked up again')
})

t.test('a user by id comes from the engine; update writes the editable columns and nothing else', async (t) => {
  const s = await setup(t)
  const one = await s.app.inject({ method: 'GET', url: `/api/admin/users/by-id?id=${USER}`, headers: asAdmin(s.app) })
  t.equal(one.statusCode, 200)
  t.match(one.json(), { id: USER, name: 'Uma Smith', notes: 'first', area: [], communityMembership: [], areaRestriction: null })
  t.equal((await s.app.inject({ method: 'GET', url: '/api/admin/users/by-id?id=nobody', headers: asAdmin(s.app) })).statusCode, 404)

  const patch = (id: string, payload: unknown) => s.app.inject({ method: 'PATCH', url: `/api/admin/users?id=${encodeURIComponent(id)}`, headers: asAdmin(s.app), payload: payload as object })
  const res = await patch(USER, { name: 'Uma S.', notes: 'second', language: 'de', areaRestriction: ['North', 'south'], communityMembership: ['Town'] })
  t.equal(res.statusCode, 200)
  t.match(res.json(), { name: 'Uma S.', notes: 'second', language: 'de', areaRestriction: ['north', 'south'], communityMembership: ['town'] })

  const [before] = await s.app.engineDb.pool.query('SELECT * FROM humans WHERE id = ?', [USER]) as unknown[]
  for (const bad of [{}, { name: '' }, { language: 'not a language' }, { admin_disable: 1 }, { notes: 'x'.repeat(256) }, { areaRestriction: 'north' }]) {
    const r = await patch(USER, bad)
    t.equal(r.statusCode, 400, JSON.stringify(bad).slice(0, 40))
  }
  t.equal((await patch('nobody', { notes: 'x' })).statusCode, 404)
  const [after] = await s.app.engineDb.pool.query('SELECT * FROM humans WHERE id = ?', [USER]) as unknown[]
  t.same(after, before, 'refused input changed nothing')
})

t.test('update also sets the active profile\'s location and areas through the engine, under the user\'s lock', async (t) => {
  const s = await setup(t)
  s.engine.set({ fences: [{ name: 'North', path: [[51, 7], [51, 7.2], [51.2, 7.2], [51.2, 7]] }, { name: 'South', path: [[48, 9], [48, 9.5], [49, 9.5], [49, 9]] }] })
  const patch = (payload: unknown) => s.app.inject({ method: 'PATCH', url: `/api/admin/users?id=${USER}`, headers: asAdmin(s.app), payload: payload as object })
  const res = await patch({ location: { latitude: 51.1, longitude: 7.1 }, area: ['North'] })
  t.equal(res.statusCode, 200)
  t.match(res.json(), { area: ['north'] })
  t.ok(Math.abs(res.json().latitude - 51.1) < 1e-5 && Math.abs(res.json().longitude - 7.1) < 1e-5, 'the new location')
  t.ok(s.engine.requests.some((r) => r.path === `/api/humans/${USER}/setLocation/51.1/7.1`), 'location through the engine')
  for (const bad of [{ location: { latitude: 91, longitude: 0 } }, { location: { latitude: 1 } }, { area: 'north' }]) {
    t.equal((await patch(bad)).statusCode, 400, JSON.stringify(bad))
  }
})

t.test('the overview counts each profile\'s alarms per type and lists the areas the user may choose', async (t) => {
  const s = await setup(t)
  s.engine.set({ fences: [{ name: 'North', path: [[51, 7], [51, 7.2], [51.2, 7.2], [51.2, 7]] }] })
  await insertProfile(s.app.engineDb.pool, { id: USER, profileNo: 2, name: 'Away', area: [], latitude: 0, longitude: 0 })
  await insertAlarm(s.app.engineDb.pool, 'pokemon', { id: USER, pokemon_id: 25 })
  await insertAlarm(s.app.engineDb.pool, 'pokemon', { id: USER, pokemon_id: 26 })
  await insertAlarm(s.app.engineDb.pool, 'raid', { id: USER, level: 5, profile_no: 2 })
  const res = await s.app.inject({ method: 'GET', url: `/api/admin/users/overview?id=${USER}`, headers: asAdmin(s.app) })
  t.equal(res.statusCode, 200)
  const body = res.json() as { profiles: Array<{ profileNo: number, name: string, active: boolean, counts: Record<string, number> }>, areas: Array<{ name: string }> }
  t.same(body.profiles.map((p) => [p.profileNo, p.active, p.counts.pokemon, p.counts.raid]), [[1, true, 2, 0], [2, false, 0, 1]])
  t.equal(body.profiles[1]?.name, 'Away')
  t.ok(body.areas.some((a) => a.name.toLowerCase() === 'north'), 'the choosable areas')
  t.equal((await s.app.inject({ method: 'GET', url: '/api/admin/users/overview?id=nobody', headers: asAdmin(s.app) })).statusCode, 404)
  t.equal((await s.app.inject({ method: 'GET', url: `/api/admin/users/overview?id=${USER}`, headers: asUser(s.app) })).statusCode, 403)
})

// ---------------------------------------------------------------------------------------------------
// Block, pause

t.test('block: the next API call is 403 at once (no cache expiry), unblock lifts it; no self-block', async (t) => {
  const s = await setup(t)
  const call = () => s.app.inject({ method: 'GET', url: '/api/admin/my-webhooks', headers: asUser(s.app) })
  t.equal((await call()).statusCode, 200, 'not blocked, and now cached as such')
  const blocked = await s.app.inject({ method: 'PUT', url: `/api/admin/users/disable?id=${USER}`, headers: asAdmin(s.app) })
  t.equal(blocked.statusCode, 200)
  t.match(blocked.json(), { id: USER, adminDisable: true })
  t.equal((await call()).statusCode, 403, 'blocked on the very next call')
  t.equal((await s.app.inject({ method: 'PUT', url: `/api/admin/users/enable?id=${USER}`, headers: asAdmin(s.app) })).statusCode, 200)
  t.equal((await call()).statusCode, 200, 'unblocked on the very next call')

  const self = await s.app.inject({ method: 'PUT', url: `/api/admin/users/disable?id=${ADMIN}`, headers: asAdmin(s.app) })
  t.equal(self.statusCode, 400)
  t.equal(self.json().error, 'You cannot block your own account.')
  t.equal((await s.app.inject({ method: 'PUT', url: '/api/admin/users/disable?id=nobody', headers: asAdmin(s.app) })).statusCode, 404)
  const [admin] = await s.app.engineDb.pool.query('SELECT admin_disable FROM humans WHERE id = ?', [ADMIN]) as Array<{ admin_disable: number }>
  t.equal(admin?.admin_disable, 0)
})

t.test('on PoracleJS, block is the direct admin_disable and disabled_date write', async (t) => {
  const s = await setup(t, { engineMode: 'js' })
  const res = await s.app.inject({ method: 'PUT', url: `/api/admin/users/disable?id=${USER}`, headers: asAdmin(s.app) })
  t.equal(res.statusCode, 200)
  const [row] = await s.app.engineDb.pool.query('SELECT admin_disable, disabled_date FROM humans WHERE id = ?', [USER]) as Array<{ admin_disable: number, disabled_date: string | null }>
  t.equal(row?.admin_disable, 1)
  t.equal(row?.disabled_date, '2026-11-26 12:00:00')
  t.notOk(s.engine.requests.some((r) => r.path.endsWith('/adminDisabled')), 'no engine route asked')
  await s.app.inject({ method: 'PUT', url: `/api/admin/users/enable?id=${USER}`, headers: asAdmin(s.app) })
  const [back] = await s.app.engineDb.pool.query('SELECT admin_disable, disabled_date FROM humans WHERE id = ?', [USER]) as Array<{ admin_disable: number, disabled_date: string | null }>
  t.same(back, { admin_disable: 0, disabled_date: null })
})

t.test('pause and resume stop and start the user\'s alerts through the engine', async (t) => {
  const s = await setup(t)
  const paused = await s.app.inject({ method: 'PUT', url: `/api/admin/users/pause?id=${encodeURIComponent(WEBHOOK)}`, headers: asAdmin(s.app) })
  t.equal(paused.statusCode, 200)
  t.match(paused.json(), { id: WEBHOOK, enabled: false })
  const resumed = await s.app.inject({ method: 'PUT', url: `/api/admin/users/resume?id=${encodeURIComponent(WEBHOOK)}`, headers: asAdmin(s.app) })
  t.match(resumed.json(), { enabled: true })
  t.equal((await s.app.inject({ method: 'PUT', url: '/api/admin/users/pause?id=nobody', headers: asAdmin(s.app) })).statusCode, 404)
})

// ---------------------------------------------------------------------------------------------------
// Delete alarms, purge

const ENGINE_TABLES = [...Object.values(ALARM_TABLES), 'weather', 'summary_schedules', 'profiles', 'humans']
const SERVICE_TABLES: Record<string, string> = {
  user_geofences: 'human_id = ?',
  webhook_delegates: 'user_id = ? OR webhook_id = ?',
  quick_pick_definitions: "owner_user_id = ? AND scope = 'user'",
  quick_pick_applied_states: 'user_id = ?',
  oidc_sessions: 'user_id = ?'
}

/** Rows per table that belong to `userId`, in both databases. */
async function footprint (s: TestApp, userId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const table of ENGINE_TABLES) {
    const [row] = await s.app.engineDb.pool.query(`SELECT COUNT(*) AS n FROM \`${table}\` WHERE id = ?`, [userId]) as Array<{ n: number }>
    counts[table] = Number(row?.n)
  }
  for (const [table, where] of Object.entries(SERVICE_TABLES)) {
    const [row] = await s.app.db.pool.query(`SELECT COUNT(*) AS n FROM \`${table}\` WHERE ${where}`, [userId, userId]) as Array<{ n: number }>
    counts[table] = Number(row?.n)
  }
  return counts
}

/** Everything a user can own: alarms of every type in two profiles, and each kind of service row. */
async function furnish (s: TestApp, userId: string): Promise<void> {
  await insertProfile(s.app.engineDb.pool, { id: userId, profileNo: 2 })
  for (const type of Object.keys(ALARM_TABLES) as EngineAlarmType[]) {
    await insertAlarm(s.app.engineDb.pool, type, { id: userId, profile_no: 1 })
    await insertAlarm(s.app.engineDb.pool, type, { id: userId, profile_no: 2 })
  }
  await s.app.engineDb.pool.query("INSERT INTO weather (id, ping, template, `condition`, cell, profile_no) VALUES (?, '', 1, 1, 'c1', 1)", [userId])
  await s.app.engineDb.pool.query("INSERT INTO summary_schedules (id, alert_type) VALUES (?, 'quest')", [userId])
  const svc = s.app.db.pool
  // Fence names are unique across users (they are engine area names).
  await svc.query('INSERT INTO user_geofences (human_id, koji_name, display_name) VALUES (?, ?, ?)', [userId, `home ${userId.slice(-4)}`, `Home ${userId.slice(-4)}`])
  await svc.query('INSERT INTO webhook_delegates (webhook_id, user_id) VALUES (?, ?)', [WEBHOOK, userId])
  await svc.query("INSERT INTO quick_pick_definitions (id, name, scope, owner_user_id, filters_json) VALUES (?, 'Mine', 'user', ?, '{}')", [`mine-${userId.slice(-4)}`, userId])
  await svc.query("INSERT INTO quick_pick_applied_states (user_id, profile_no, quick_pick_id, tracked_uids_json) VALUES (?, 1, 'hundo', '[1]')", [userId])
  await svc.query("INSERT INTO oidc_sessions (token_hash, family_id, family_issued_at, user_id, subject, encrypted_refresh_token, encryption_key_id, expires_at) VALUES (?, ?, '2026-11-26 12:00:00', ?, 's', 'x', 'k', '2026-12-26 12:00:00')", [`h-${userId}`, `f-${userId.slice(-8)}`, userId])
}

t.test('delete all alarms removes every type in every profile of that user only', async (t) => {
  const s = await setup(t)
  await furnish(s, USER)
  await furnish(s, OTHER)
  const otherBefore = await footprint(s, OTHER)
  const res = await s.app.inject({ method: 'DELETE', url: `/api/admin/users/alarms?id=${USER}`, headers: asAdmin(s.app) })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { deleted: 21 }, 'twenty alarms and the weather one')
  const after = await footprint(s, USER)
  for (const table of [...Object.values(ALARM_TABLES), 'weather']) t.equal(after[table], 0, table)
  t.equal(after.profiles, 2, 'profiles stay')
  t.equal(after.summary_schedules, 1, 'summary schedules are not alarms: they stay')
  t.same(await footprint(s, OTHER), otherBefore, 'the other user is untouched')
  t.ok(s.engine.reloads.length > 0, 'the engine was told to reload')
})

t.test('purge removes everything of the user in both databases and nothing of anyone else', async (t) => {
  const s = await setup(t)
  await furnish(s, USER)
  await furnish(s, OTHER)
  await s.app.db.pool.query('INSERT INTO webhook_delegates (webhook_id, user_id) VALUES (?, ?)', [USER, DELEGATE])
  const otherBefore = await footprint(s, OTHER)
  t.ok(Object.values(await footprint(s, USER)).every((n) => n > 0), 'the user owns rows in every table')

  const res = await s.app.inject({ method: 'DELETE', url: `/api/admin/users?id=${USER}`, headers: asAdmin(s.app) })
  t.equal(res.statusCode, 204)
  t.ok(Object.values(await footprint(s, USER)).every((n) => n === 0), 'nothing of the user is left')
  t.same(await footprint(s, OTHER), otherBefore, 'the other user is untouched')
  t.equal((await s.app.inject({ method: 'DELETE', url: `/api/admin/users?id=${USER}`, headers: asAdmin(s.app) })).statusCode, 404, 'gone')

  const self = await s.app.inject({ method: 'DELETE', url: `/api/admin/users?id=${ADMIN}`, headers: asAdmin(s.app) })
  t.equal(self.statusCode, 400)
  t.equal(self.json().error, 'You cannot delete your own account.')
})

t.test('a purge failing at its last step leaves both databases exactly as they were', async (t) => {
  const s = await setup(t)
  await furnish(s, USER)
  const before = await footprint(s, USER)
  // A real failure inside the engine's transaction, after every alarm and profile row was deleted.
  await s.app.engineDb.pool.query('DROP TRIGGER IF EXISTS refuse_purge')
  await s.app.engineDb.pool.query(`CREATE TRIGGER refuse_purge BEFORE DELETE ON humans FOR EACH ROW
    BEGIN IF OLD.id = '${USER}' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused by test trigger'; END IF; END`)
  t.teardown(async () => { await s.app.engineDb.pool.query('DROP TRIGGER IF EXISTS refuse_purge').catch(() => {}) })

  const res = await s.app.inject({ method: 'DELETE', url: `/api/admin/users?id=${USER}`, headers: asAdmin(s.app) })
  t.equal(res.statusCode, 500)
  t.same(res.json(), { error: 'An unexpected error occurred.' }, 'no internals in the body')
  t.same(await footprint(s, USER), before, 'every row is still there')
})

// ---------------------------------------------------------------------------------------------------
// Webhooks

t.test('webhooks are created through the engine; duplicates, bad URLs and engine refusals change nothing', async (t) => {
  const s = await setup(t)
  const url = 'https://discord.com/api/webhooks/33/token-c'
  const create = (payload: unknown) => s.app.inject({ method: 'POST', url: '/api/admin/webhooks', headers: asAdmin(s.app), payload: payload as object })
  const res = await create({ name: 'Quest channel', url })
  t.equal(res.statusCode, 201)
  t.match(res.json(), { id: url, name: 'Quest channel', type: 'webhook', enabled: true, adminDisable: false })
  t.equal((await create({ name: 'Again', url })).statusCode, 409)

  const count = async () => Number(((await s.app.engineDb.pool.query('SELECT COUNT(*) AS n FROM humans') as Array<{ n: number }>)[0])?.n)
  const before = await count()
  for (const bad of [{ name: 'x', url: 'ftp://example.org/hook' }, { name: 'x', url: 'javascript:alert(1)' }, { name: ' ', url: 'https://example.org/h' }, { url: 'https://example.org/h' }]) {
    t.equal((await create(bad)).statusCode, 400, JSON.stringify(bad))
  }
  s.engine.failWith({ path: '/api/humans', status: 500 })
  const refused = await create({ name: 'Broken', url: 'https://example.org/hook/1' })
  t.equal(refused.statusCode, 502)
  t.equal(refused.json().error, 'The alarm engine rejected the webhook. Nothing was created.')
  t.equal(await count(), before, 'nothing was created')
  t.notOk(s.rawLogs().includes('token-c'), 'webhook tokens are not logged')
})

t.test('on PoracleJS webhook creation answers 501 naming the engine', async (t) => {
  const s = await setup(t, { engineMode: 'js' })
  const res = await s.app.inject({ method: 'POST', url: '/api/admin/webhooks', headers: asAdmin(s.app), payload: { name: 'Hook', url: 'https://example.org/hook/2' } })
  t.equal(res.statusCode, 501)
  t.match(res.json().error, /PoracleJS/)
})

// ---------------------------------------------------------------------------------------------------
// Delegates

t.test('delegate grants: validated, no duplicates, and my-webhooks follows a grant change at once', async (t) => {
  const s = await setup(t)
  const grant = (method: 'POST' | 'DELETE', payload: unknown) => s.app.inject({ method, url: '/api/admin/webhook-delegates', headers: asAdmin(s.app), payload: payload as object })
  const mine = async () => ((await s.app.inject({ method: 'GET', url: '/api/admin/my-webhooks', headers: asUser(s.app, DELEGATE) })).json() as Array<{ id: string }>).map((w) => w.id)

  t.same(await mine(), [], 'nothing yet (and now cached for a minute)')
  const added = await grant('POST', { webhookId: WEBHOOK, userId: DELEGATE })
  t.equal(added.statusCode, 200)
  t.same(added.json(), [DELEGATE])
  t.same(await mine(), [webhookHandle(WEBHOOK)], 'the grant shows at once (by its handle): the cached delegation was evicted')
  t.equal((await grant('POST', { webhookId: WEBHOOK, userId: DELEGATE })).statusCode, 409, 'duplicate')
  t.equal((await grant('POST', { webhookId: USER, userId: DELEGATE })).statusCode, 400, 'not a webhook')
  t.equal((await grant('POST', { webhookId: 'https://example.org/none', userId: DELEGATE })).statusCode, 400, 'no such webhook')
  t.equal((await grant('POST', { webhookId: WEBHOOK, userId: 'nobody' })).statusCode, 400, 'no such user')
  t.equal((await grant('POST', { webhookId: WEBHOOK, userId: '' })).statusCode, 400, 'empty')
  t.same((await s.app.inject({ method: 'GET', url: '/api/admin/webhook-delegates/all', headers: asAdmin(s.app) })).json(), { [WEBHOOK]: [DELEGATE] }, 'nothing else was stored')
  t.same((await s.app.inject({ method: 'GET', url: `/api/admin/webhook-delegates?webhookId=${encodeURIComponent(WEBHOOK)}`, headers: asAdmin(s.app) })).json(), [DELEGATE])

  const removed = await grant('DELETE', { webhookId: WEBHOOK, userId: DELEGATE })
  t.same(removed.json(), [])
  t.same(await mine(), [], 'the removal shows at once')
  t.equal((await grant('DELETE', { webhookId: WEBHOOK, userId: DELEGATE })).statusCode, 404)

  const admin = await s.app.inject({ method: 'GET', url: '/api/admin/my-webhooks', headers: asAdmin(s.app) })
  s.engine.set({ admins: { discord: [ADMIN], telegram: [] } })
  s.app.identity.evictRoles(ADMIN)
  t.equal(admin.statusCode, 200)
  t.same(((await s.app.inject({ method: 'GET', url: '/api/admin/my-webhooks', headers: asAdmin(s.app) })).json() as Array<{ id: string }>).map((w) => w.id), [WEBHOOK], 'admins manage every webhook')
})

t.test('a grant changed behind the service\'s back is picked up when the delegation cache expires', async (t) => {
  const s = await setup(t)
  const mine = async () => ((await s.app.inject({ method: 'GET', url: '/api/admin/my-webhooks', headers: asUser(s.app, DELEGATE) })).json() as Array<{ id: string }>).map((w) => w.id)
  t.same(await mine(), [])
  await s.app.db.pool.query('INSERT INTO webhook_delegates (webhook_id, user_id) VALUES (?, ?)', [WEBHOOK, DELEGATE])
  s.clock.advance(59_000)
  t.same(await mine(), [], 'still cached within the minute')
  s.clock.advance(2_000)
  t.same(await mine(), [webhookHandle(WEBHOOK)], 'resolved again after it')
})

t.test('the engine\'s own delegates are read from local.json under DTS_SOURCE_DIR, and anything unusable is {}', async (t) => {
  const dir = t.testdir({})
  const s = await setup(t, { env: { DTS_SOURCE_DIR: dir }, logLevel: 'warn' })
  const read = async () => {
    const res = await s.app.inject({ method: 'GET', url: '/api/admin/poracle-delegates', headers: asAdmin(s.app) })
    t.equal(res.statusCode, 200)
    return res.json() as unknown
  }
  t.same(await read(), {}, 'no local.json')

  mkdirSync(join(dir, 'config'))
  writeFileSync(join(dir, 'config', 'local.json'), JSON.stringify({ delegateAdministration: [{ id: WEBHOOK, admins: [DELEGATE] }] }))
  t.same(await read(), { [WEBHOOK]: [DELEGATE] }, 'config/local.json, with the id/admins spelling')

  writeFileSync(join(dir, 'local.json'), JSON.stringify({
    discord: { token: ['bot-token-secret'] },
    delegateAdministration: [
      { webhookId: WEBHOOK, discordIds: [DELEGATE, ' ', 7], admins: [USER] },
      { webhookId: WEBHOOK, discordIds: [DELEGATE] },
      { webhookId: 'https://example.org/hook/2', discordIds: [] },
      { discordIds: [USER] },
      'nonsense',
      null
    ]
  }))
  t.same(await read(), { [WEBHOOK]: [DELEGATE, USER] }, 'local.json wins; entries merged, blanks and entries without a webhook or users skipped')

  writeFileSync(join(dir, 'local.json'), '{"discord": {"token": ["bot-token-secret"]}, "delegateAdministration": [')
  t.same(await read(), {}, 'malformed JSON')
  t.notMatch(s.rawLogs(), /bot-token-secret/, 'the file\'s text never reaches the log')
  t.ok(s.logs.some((l) => /not valid JSON/.test(String(l.msg))), 'the reason is logged')

  writeFileSync(join(dir, 'local.json'), JSON.stringify({ delegateAdministration: { [WEBHOOK]: [DELEGATE] } }))
  t.same(await read(), {}, 'delegateAdministration that is not a list')
  writeFileSync(join(dir, 'local.json'), `{"delegateAdministration": [], "pad": "${'x'.repeat(ENGINE_CONFIG_MAX_BYTES)}"}`)
  t.same(await read(), {}, 'a file past the size limit is not read')
  t.ok(s.logs.some((l) => /larger than/.test(String(l.reason))), 'and says why')

  const user = await s.app.inject({ method: 'GET', url: '/api/admin/poracle-delegates', headers: asUser(s.app) })
  t.equal(user.statusCode, 403, 'admins only')
  t.same((await s.app.inject({ method: 'GET', url: '/api/admin/webhook-delegates/all', headers: asAdmin(s.app) })).json(), {}, 'the service\'s own grants are a separate list')
})

t.test('without DTS_SOURCE_DIR the engine\'s delegates are {}', async (t) => {
  const s = await setup(t)
  const res = await s.app.inject({ method: 'GET', url: '/api/admin/poracle-delegates', headers: asAdmin(s.app) })
  t.equal(res.statusCode, 200)
  t.same(res.json(), {})
})

// ---------------------------------------------------------------------------------------------------
// Several instances

async function twoInstances (t: Test, env: Record<string, string>): Promise<[TestApp, TestApp]> {
  const a = await build(t, { env })
  const b = await build(t, { env })
  await seed(a)
  return [a, b]
}

t.test('with Redis, a block and a grant made on one instance take effect on the other at once', async (t) => {
  const [a, b] = await twoInstances(t, { REDIS_URL: 'redis://127.0.0.1:6379' })
  const onB = () => b.app.inject({ method: 'GET', url: '/api/admin/my-webhooks', headers: asUser(b.app, DELEGATE) })
  t.same((await onB()).json(), [], 'B has cached "not blocked, no webhooks"')

  t.equal((await a.app.inject({ method: 'POST', url: '/api/admin/webhook-delegates', headers: asAdmin(a.app), payload: { webhookId: WEBHOOK, userId: DELEGATE } })).statusCode, 200)
  let seen: unknown = []
  for (let i = 0; i < 500 && JSON.stringify(seen) === '[]'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10))
    seen = (await onB()).json()
  }
  t.match(seen, [{ id: webhookHandle(WEBHOOK) }], 'B sees the grant made on A')

  t.equal((await a.app.inject({ method: 'PUT', url: `/api/admin/users/disable?id=${DELEGATE}`, headers: asAdmin(a.app) })).statusCode, 200)
  let status = 200
  for (let i = 0; i < 500 && status === 200; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10))
    status = (await onB()).statusCode
  }
  t.equal(status, 403, 'B refuses the account blocked on A (its clock never moved, so only the eviction can do it)')
})

t.test('without Redis, the other instance keeps its cached answer until the TTL (as the README says)', async (t) => {
  const [a, b] = await twoInstances(t, {})
  const onB = () => b.app.inject({ method: 'GET', url: '/api/admin/my-webhooks', headers: asUser(b.app, DELEGATE) })
  t.equal((await onB()).statusCode, 200)
  t.equal((await a.app.inject({ method: 'PUT', url: `/api/admin/users/disable?id=${DELEGATE}`, headers: asAdmin(a.app) })).statusCode, 200)
  await new Promise((resolve) => setTimeout(resolve, 200))
  t.equal((await onB()).statusCode, 200, 'still the cached answer')
  b.clock.advance(61_000)
  t.equal((await onB()).statusCode, 403, 'refused once the entry expired')
})

t.test('avatars by id and the configured admins', async (t) => {
  const s = await setup(t, { env: { PORACLE_ADMIN_IDS: ADMIN } })
  const avatars = await s.app.inject({ method: 'POST', url: '/api/admin/users/avatars', headers: asAdmin(s.app), payload: [USER, ' ', USER, 'nobody'] })
  t.equal(avatars.statusCode, 200)
  t.same(Object.keys(avatars.json() as object), [USER], 'known users only, each once, blanks skipped')
  t.match((avatars.json() as Record<string, string>)[USER], /^https:\/\/cdn\.discordapp\.com\/embed\/avatars\/[0-5]\.png$/)
  t.equal((await s.app.inject({ method: 'POST', url: '/api/admin/users/avatars', headers: asAdmin(s.app), payload: Array.from({ length: 201 }, (_, i) => String(i)) })).statusCode, 400, 'at most 200 ids')
  t.equal((await s.app.inject({ method: 'POST', url: '/api/admin/users/avatars', headers: asUser(s.app), payload: [USER] })).statusCode, 403)

  s.engine.set({ admins: { discord: [OTHER], telegram: [] } })
  const admins = await s.app.inject({ method: 'GET', url: '/api/admin/poracle-admins', headers: asAdmin(s.app) })
  t.same(admins.json(), [ADMIN, OTHER].sort(), 'the configured ids and the engine\'s')
  s.engine.failWith({ path: '/api/config/poracleWeb' })
  t.same((await s.app.inject({ method: 'GET', url: '/api/admin/poracle-admins', headers: asAdmin(s.app) })).json(), [ADMIN], 'an engine failure leaves the configured ones')
})
