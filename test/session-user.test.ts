import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, bearer, seedHuman, webhookHandle, type TestApp } from './helper.js'
import { insertProfile } from './fakes/engine-db.js'

const USER = '200000000000000011'
const WEBHOOK = 'https://discord.com/api/webhooks/1/secret-token'

function claimsOf (token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>
}

const me = (s: TestApp, headers: Record<string, string>) => s.app.inject({ method: 'GET', url: '/api/auth/me', headers })

/** An authenticated route outside /api/auth, as every feature route is. */
function probe (app: FastifyInstance): void {
  app.get('/api/_probe', { onRequest: app.auth.authenticate }, async () => ({ ok: true }))
}

t.test('/me reads the user live', async (t) => {
  const s = await build(t)
  await seedHuman(s, { id: USER, name: 'Ursula', profileName: 'Home' })
  const res = await me(s, bearer(s.app, { userId: USER, username: 'ursula', type: 'chat:user', avatarUrl: 'https://cdn.discordapp.com/avatars/x/y.png' }))
  t.equal(res.statusCode, 200)
  t.equal(res.headers['cache-control'], 'no-store', 'who is signed in is never cached')
  t.same(res.json(), {
    id: USER,
    username: 'ursula',
    type: 'chat:user',
    isAdmin: false,
    adminDisable: false,
    enabled: true,
    profileNo: 1,
    avatarUrl: 'https://cdn.discordapp.com/avatars/x/y.png',
    managedWebhooks: [],
    profileName: 'Home'
  }, 'no token when nothing changed')

  await s.app.engineDb.pool.query('UPDATE humans SET enabled = 0 WHERE id = ?', [USER])
  t.equal((await me(s, bearer(s.app, { userId: USER }))).json().enabled, false, 'paused alerts show as not enabled')
  t.equal((await s.app.inject({ method: 'GET', url: '/api/auth/me' })).statusCode, 401, 'anonymous')
})

t.test('/me re-issues the token when the engine switched the profile, keeping the expiry', async (t) => {
  const s = await build(t)
  await seedHuman(s, { id: USER })
  await insertProfile(s.app.engineDb.pool, { id: USER, profileNo: 2, name: 'Night' })
  const original = s.app.auth.mint({ userId: USER, username: 'u', type: 'chat:user', isAdmin: false, enabled: true, profileNo: 1 }, 60)
  s.clock.advance(20 * 60_000)
  await s.app.engineDb.pool.query('UPDATE humans SET current_profile_no = 2 WHERE id = ?', [USER])

  const res = await me(s, { authorization: `Bearer ${original.token}` })
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.equal(body.profileNo, 2)
  t.equal(body.profileName, 'Night')
  t.type(body.token, 'string')
  const claims = claimsOf(body.token)
  t.equal(claims.profileNo, '2')
  t.equal(claims.exp, original.expiresAt, 'the original expiry, not a fresh lifetime')
  t.equal(claims.userId, USER)

  const again = await me(s, { authorization: `Bearer ${body.token}` })
  t.notOk('token' in again.json(), 'no token once the claim matches')
})

t.test('/me re-resolves admin rights, but never demotes on an outage', async (t) => {
  const s = await build(t)
  await seedHuman(s, { id: USER, currentProfileNo: 1 })
  await insertProfile(s.app.engineDb.pool, { id: USER, profileNo: 2, name: 'Two' })

  s.engine.set({ admins: { discord: [USER], telegram: [] } })
  const promoted = await me(s, bearer(s.app, { userId: USER, isAdmin: false }))
  t.match(promoted.json(), { isAdmin: true, managedWebhooks: null }, 'promoted live')

  s.engine.set({ admins: { discord: [], telegram: [] } })
  s.app.identity.evictRoles(USER)
  await s.app.engineDb.pool.query('UPDATE humans SET current_profile_no = 2 WHERE id = ?', [USER])
  const demoted = await me(s, bearer(s.app, { userId: USER, isAdmin: true }))
  t.equal(demoted.json().isAdmin, false, 'demoted by a clean answer')
  t.equal(claimsOf(demoted.json().token).isAdmin, 'false', 'and the re-issued token follows')

  s.app.identity.evictRoles(USER)
  s.engine.failWith({ path: /getAdministrationRoles|config\/poracleWeb/ })
  const outage = await me(s, bearer(s.app, { userId: USER, isAdmin: true, profileNo: 1 }))
  t.equal(outage.statusCode, 200)
  t.equal(outage.json().isAdmin, true, 'kept during an outage')
  t.equal(claimsOf(outage.json().token).isAdmin, 'true', 'the re-issued token keeps the claim')
})

t.test('/me shows delegations live, and keeps the claim\'s during an outage', async (t) => {
  const s = await build(t)
  await seedHuman(s, { id: USER })
  await s.app.db.pool.query('INSERT INTO webhook_delegates (webhook_id, user_id) VALUES (?, ?)', [WEBHOOK, USER])
  t.same((await me(s, bearer(s.app, { userId: USER }))).json().managedWebhooks, [webhookHandle(WEBHOOK)], 'a grant made after sign-in appears, as its handle')
  s.app.identity.evictRoles(USER)
  s.engine.failWith({ path: /getAdministrationRoles/ })
  const claimed = webhookHandle('https://discord.com/api/webhooks/2/old')
  const degraded = await me(s, bearer(s.app, { userId: USER, managedWebhooks: [claimed] }))
  t.same(degraded.json().managedWebhooks, [claimed, webhookHandle(WEBHOOK)].sort(), 'union of the claim and what was learnt')
})

t.test('/me: a deleted account is a 401, also while impersonating', async (t) => {
  const s = await build(t)
  for (const claims of [{ userId: 'gone' }, { userId: 'gone', impersonatedBy: 'admin1' }]) {
    const res = await me(s, bearer(s.app, claims))
    t.equal(res.statusCode, 401)
    t.same(res.json(), { error: 'This account no longer exists.' })
  }
})

t.test('/me: a blocked account is a 401, but data for an admin impersonating it', async (t) => {
  const s = await build(t)
  await seedHuman(s, { id: USER, adminDisable: true })
  const own = await me(s, bearer(s.app, { userId: USER }))
  t.equal(own.statusCode, 401)
  t.same(own.json(), { error: 'This account has been blocked by an administrator.' })

  s.engine.set({ admins: { discord: [USER], telegram: [] } })
  const viewed = await me(s, bearer(s.app, { userId: USER, impersonatedBy: 'admin1', isAdmin: false }))
  t.equal(viewed.statusCode, 200)
  t.match(viewed.json(), { id: USER, adminDisable: true, enabled: false, isAdmin: false, managedWebhooks: [] }, 'never elevated while impersonating')
})

t.test('/me: engine unreachable is a clear 503', async (t) => {
  const s = await build(t)
  s.engine.failWith({ drop: true })
  const res = await me(s, bearer(s.app, { userId: USER }))
  t.equal(res.statusCode, 503)
  t.same(res.json(), { error: 'The alarm engine is unreachable right now. Please try again in a moment.' })
})

t.test('blocked accounts get 403 everywhere outside /api/auth, read through a one-minute cache', async (t) => {
  const s = await build(t, { routes: probe })
  await seedHuman(s, { id: USER })
  const headers = bearer(s.app, { userId: USER }, 600)
  const get = (url: string) => s.app.inject({ method: 'GET', url, headers })

  t.equal((await get('/api/_probe')).statusCode, 200)
  await s.app.engineDb.pool.query('UPDATE humans SET admin_disable = 1 WHERE id = ?', [USER])
  t.equal((await get('/api/_probe')).statusCode, 200, 'still allowed from the cache')
  s.clock.advance(59_000)
  t.equal((await get('/api/_probe')).statusCode, 200, 'within the minute')
  s.clock.advance(2_000)
  const blocked = await get('/api/_probe')
  t.equal(blocked.statusCode, 403, 'after the minute')
  t.same(blocked.json(), { error: 'This account has been blocked by an administrator.', code: 'account_blocked' })
  t.equal((await get('/api/settings')).statusCode, 403, 'a real feature route too')
  t.equal((await s.app.inject({ method: 'POST', url: '/api/auth/logout', headers })).statusCode, 200, '/api/auth stays open')
  t.equal((await get('/api/health')).statusCode, 200, 'anonymous routes are not concerned')

  await s.app.engineDb.pool.query('UPDATE humans SET admin_disable = 0 WHERE id = ?', [USER])
  t.equal((await get('/api/_probe')).statusCode, 403, 'unblocking waits for the cache too')
  s.app.blockedAccounts.evict(USER)
  t.equal((await get('/api/_probe')).statusCode, 200, 'eviction applies it at once')
  await s.app.engineDb.pool.query('UPDATE humans SET admin_disable = 1 WHERE id = ?', [USER])
  s.app.blockedAccounts.evict(USER)
  t.equal((await get('/api/_probe')).statusCode, 403, 'and blocking too')
})

t.test('an impersonation token is checked as the impersonated account', async (t) => {
  const s = await build(t, { routes: probe })
  await seedHuman(s, { id: USER, adminDisable: true })
  await seedHuman(s, { id: 'admin1' })
  const res = await s.app.inject({ method: 'GET', url: '/api/_probe', headers: bearer(s.app, { userId: USER, impersonatedBy: 'admin1' }) })
  t.equal(res.statusCode, 403)
  t.equal((await s.app.inject({ method: 'GET', url: '/api/_probe', headers: bearer(s.app, { userId: 'admin1', isAdmin: true }) })).statusCode, 200)
})

t.test('the block check fails open on an engine outage, with a warning, remembered only briefly', async (t) => {
  const s = await build(t, { routes: probe })
  await seedHuman(s, { id: USER, adminDisable: true })
  const headers = bearer(s.app, { userId: USER })
  s.engine.failWith({ drop: true })
  t.equal((await s.app.inject({ method: 'GET', url: '/api/_probe', headers })).statusCode, 200)
  t.ok(s.logs.some((l) => l.level === 40 && /block check skipped/.test(String(l.msg))), 'a warning is logged')
  const asked = s.engine.requests.length
  t.equal((await s.app.inject({ method: 'GET', url: '/api/_probe', headers })).statusCode, 200)
  t.equal(s.engine.requests.length, asked, 'a down engine is not asked again on every request')
  s.engine.reset()
  s.clock.advance(10_001)
  t.equal((await s.app.inject({ method: 'GET', url: '/api/_probe', headers })).statusCode, 403, 'asked again ten seconds later, once the engine is back')
})

t.test('POST /alerts/toggle pauses and resumes the caller\'s own alerts', async (t) => {
  const s = await build(t)
  await seedHuman(s, { id: USER })
  const toggle = (claims: { userId: string }) => s.app.inject({ method: 'POST', url: '/api/auth/alerts/toggle', headers: bearer(s.app, claims) })
  const enabled = async () => ((await s.app.engineDb.pool.query('SELECT enabled FROM humans WHERE id = ?', [USER])) as Array<{ enabled: number }>)[0]?.enabled

  const off = await toggle({ userId: USER })
  t.equal(off.statusCode, 200)
  t.same(off.json(), { enabled: false })
  t.equal(await enabled(), 0)
  t.same((await toggle({ userId: USER })).json(), { enabled: true })
  t.equal(await enabled(), 1)

  const missing = await toggle({ userId: 'nobody' })
  t.equal(missing.statusCode, 404)
  await s.app.engineDb.pool.query('UPDATE humans SET admin_disable = 1 WHERE id = ?', [USER])
  const blocked = await toggle({ userId: USER })
  t.equal(blocked.statusCode, 400)
  t.same(blocked.json(), { error: 'Your account has been disabled by an administrator.' })
  s.engine.failWith({ drop: true })
  t.equal((await toggle({ userId: USER })).statusCode, 503)
  t.equal((await s.app.inject({ method: 'POST', url: '/api/auth/alerts/toggle' })).statusCode, 401)
})

t.test('POST /logout answers 200 for a signed-in user and 401 otherwise', async (t) => {
  const s = await build(t)
  const res = await s.app.inject({ method: 'POST', url: '/api/auth/logout', headers: bearer(s.app, { userId: USER }) })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { message: 'Logged out successfully.' })
  t.equal((await s.app.inject({ method: 'POST', url: '/api/auth/logout' })).statusCode, 401)
})

t.test('the auth-read limit covers /me, toggle and logout', async (t) => {
  const s = await build(t, { config: { RATE_LIMIT_AUTH_READ_MAX: 2 } })
  const headers = bearer(s.app, { userId: USER })
  await s.app.inject({ method: 'POST', url: '/api/auth/logout', headers })
  await s.app.inject({ method: 'GET', url: '/api/auth/me', headers })
  t.equal((await s.app.inject({ method: 'POST', url: '/api/auth/alerts/toggle', headers })).statusCode, 429)
})
