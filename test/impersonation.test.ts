import t from 'tap'
import { build, bearer, seedHuman, webhookHandle, type Test, type TestApp } from './helper.js'

const ADMIN = '100000000000000001'
const DELEGATE = '100000000000000002'
const USER = '100000000000000003'
const TG_USER = '512345678'
const WEBHOOK = 'https://discord.com/api/webhooks/11/token-a'
const OTHER_WEBHOOK = 'https://discord.com/api/webhooks/22/token-b'

function claimsOf (token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>
}

async function setup (t: Test): Promise<TestApp> {
  // The admin is one to the engine too: an impersonation is checked against the actor's live rights.
  const s = await build(t, { config: { PORACLE_ADMIN_IDS: [ADMIN] } })
  await seedHuman(s, { id: ADMIN, name: 'Ada' })
  await seedHuman(s, { id: DELEGATE, name: 'Dee' })
  await seedHuman(s, { id: USER, name: 'Uma', currentProfileNo: 1 })
  await seedHuman(s, { id: TG_USER, name: '', type: 'telegram:user' })
  await seedHuman(s, { id: WEBHOOK, name: 'Raid channel', type: 'webhook' })
  await seedHuman(s, { id: OTHER_WEBHOOK, name: 'Other channel', type: 'webhook' })
  return s
}

const impersonate = (s: TestApp, claims: Parameters<typeof bearer>[1], payload: unknown) =>
  s.app.inject({ method: 'POST', url: '/api/admin/impersonate', headers: { ...bearer(s.app, claims), 'content-type': 'application/json' }, payload: JSON.stringify(payload) })

t.test('an admin acts as any user: the token names the target and the impersonator', async (t) => {
  const s = await setup(t)
  const res = await impersonate(s, { userId: ADMIN, isAdmin: true, managedWebhooks: [WEBHOOK] }, { userId: USER })
  t.equal(res.statusCode, 200)
  t.equal(res.headers['cache-control'], 'no-store', 'a token to act as someone is never cached')
  const claims = claimsOf(res.json().token)
  t.match(claims, { userId: USER, username: 'Uma', type: 'discord:user', isAdmin: 'false', enabled: 'true', profileNo: '1', impersonatedBy: ADMIN })
  t.notOk('managedWebhooks' in claims, 'no delegation rides along')
  t.equal(claims.exp, Math.floor(s.clock.now() / 1000) + 60 * 60, 'an hour at most')

  const tg = claimsOf((await impersonate(s, { userId: ADMIN, isAdmin: true }, { userId: TG_USER })).json().token)
  t.match(tg, { userId: TG_USER, username: TG_USER, type: 'telegram:user' }, 'stored type; the id when there is no name')

  const viaQuery = await s.app.inject({ method: 'POST', url: `/api/admin/users/impersonate?id=${encodeURIComponent(WEBHOOK)}`, headers: bearer(s.app, { userId: ADMIN, isAdmin: true }) })
  t.equal(viaQuery.statusCode, 200)
  t.equal(viaQuery.headers['cache-control'], 'no-store')
  t.match(claimsOf(viaQuery.json().token), { userId: WEBHOOK, type: 'webhook', username: 'Raid channel', impersonatedBy: ADMIN })

  const me = await s.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${res.json().token}` } })
  t.match(me.json(), { id: USER, isAdmin: false }, 'the token works as the target')
  t.notOk(s.rawLogs().includes('token-a'), 'webhook secrets are not logged')
})

t.test('a missing target is a 404; a non-admin on the admin-only route is a 403', async (t) => {
  const s = await setup(t)
  const missing = await impersonate(s, { userId: ADMIN, isAdmin: true }, { userId: 'nobody' })
  t.equal(missing.statusCode, 404)
  t.equal((await s.app.inject({ method: 'POST', url: '/api/admin/users/impersonate?id=nobody', headers: bearer(s.app, { userId: ADMIN, isAdmin: true }) })).statusCode, 404)
  t.equal((await s.app.inject({ method: 'POST', url: `/api/admin/users/impersonate?id=${USER}`, headers: bearer(s.app, { userId: DELEGATE }) })).statusCode, 403)
  t.equal((await s.app.inject({ method: 'POST', url: `/api/admin/users/impersonate?id=${USER}` })).statusCode, 401)
})

t.test('delegates act only as the webhooks they manage, resolved live', async (t) => {
  const s = await setup(t)
  await s.app.db.pool.query('INSERT INTO webhook_delegates (webhook_id, user_id) VALUES (?, ?)', [WEBHOOK, DELEGATE])
  const ok = await impersonate(s, { userId: DELEGATE }, { userId: WEBHOOK })
  t.equal(ok.statusCode, 200, 'delegate of that webhook')
  t.match(claimsOf(ok.json().token), { userId: webhookHandle(WEBHOOK), impersonatedBy: DELEGATE, isAdmin: 'false' }, 'the token names the handle')
  t.notMatch(JSON.stringify(claimsOf(ok.json().token)), 'token-a', 'never the address')
  const byHandle = await impersonate(s, { userId: DELEGATE }, { userId: webhookHandle(WEBHOOK) })
  t.equal(byHandle.statusCode, 200, 'the delegate names the webhook by its handle')
  t.equal(claimsOf(byHandle.json().token).userId, webhookHandle(WEBHOOK))
  t.equal((await impersonate(s, { userId: DELEGATE }, { userId: webhookHandle(OTHER_WEBHOOK) })).statusCode, 403, 'the handle of a webhook not delegated')
  t.equal((await impersonate(s, { userId: DELEGATE }, { userId: `${webhookHandle(WEBHOOK).slice(0, -1)}x` })).statusCode, 403, 'a forged handle')

  const other = await impersonate(s, { userId: DELEGATE }, { userId: OTHER_WEBHOOK })
  t.equal(other.statusCode, 403, 'delegate of another webhook')
  t.equal((await impersonate(s, { userId: DELEGATE }, { userId: USER })).statusCode, 403, 'not a user')
  t.equal((await impersonate(s, { userId: DELEGATE }, { userId: 'nobody' })).statusCode, 403, 'existence is not revealed to non-admins')
  t.equal((await impersonate(s, { userId: USER, managedWebhooks: [WEBHOOK] }, { userId: WEBHOOK })).statusCode, 403, 'a grant in the token alone is not enough')

  s.engine.setAdministrationRoles(USER, { discord: { webhooks: [OTHER_WEBHOOK] } })
  s.app.identity.evictRoles(USER)
  t.equal((await impersonate(s, { userId: USER }, { userId: OTHER_WEBHOOK })).statusCode, 200, 'delegation granted by the engine')

  await s.app.db.pool.query('DELETE FROM webhook_delegates WHERE webhook_id = ? AND user_id = ?', [WEBHOOK, DELEGATE])
  t.equal((await impersonate(s, { userId: DELEGATE }, { userId: WEBHOOK })).statusCode, 200, 'a removed grant is remembered at most a minute')
  s.app.identity.evictRoles(DELEGATE)
  t.equal((await impersonate(s, { userId: DELEGATE }, { userId: WEBHOOK })).statusCode, 403, 'and gone once the cache is evicted')

  await s.app.db.pool.query('INSERT INTO webhook_delegates (webhook_id, user_id) VALUES (?, ?)', [WEBHOOK, DELEGATE])
  t.equal((await impersonate(s, { userId: DELEGATE }, { userId: WEBHOOK })).statusCode, 403, 'a new grant also waits for the cache')
  s.clock.advance(60_001)
  t.equal((await impersonate(s, { userId: DELEGATE }, { userId: WEBHOOK })).statusCode, 200, 'at most a minute')
})

t.test('a delegate never sees the webhook\'s address: answers and tokens name it by its handle', async (t) => {
  const s = await setup(t)
  await s.app.db.pool.query('INSERT INTO webhook_delegates (webhook_id, user_id) VALUES (?, ?)', [WEBHOOK, DELEGATE])
  const seen: string[] = []
  const call = async (token: string, method: 'GET' | 'POST', url: string, payload?: unknown) => {
    const res = await s.app.inject({ method, url, headers: { authorization: `Bearer ${token}`, ...(payload !== undefined && { 'content-type': 'application/json' }) }, ...(payload !== undefined && { payload: JSON.stringify(payload) }) })
    seen.push(`${url} ${res.statusCode} ${res.body}`)
    return res
  }
  const delegate = bearer(s.app, { userId: DELEGATE }).authorization.slice('Bearer '.length)
  const mine = await call(delegate, 'GET', '/api/admin/my-webhooks')
  t.match(mine.json(), [{ id: webhookHandle(WEBHOOK), name: 'Raid channel' }], 'my webhooks: the handle and the name')
  const me = await call(delegate, 'GET', '/api/auth/me')
  t.same(me.json().managedWebhooks, [webhookHandle(WEBHOOK)], 'the delegation list: handles')

  const token = (await call(delegate, 'POST', '/api/admin/impersonate', { userId: webhookHandle(WEBHOOK) })).json().token as string
  const asWebhook = await call(token, 'GET', '/api/auth/me')
  t.match(asWebhook.json(), { id: webhookHandle(WEBHOOK), username: 'Raid channel', type: 'webhook' }, 'acting for it: known by its handle')
  const created = await call(token, 'POST', '/api/monsters', { pokemon_id: 25, min_iv: 90 })
  t.equal(created.statusCode, 201, 'alarms are made for the webhook')
  t.match((await s.app.engineDb.pool.query('SELECT id FROM monsters WHERE pokemon_id = 25')) as unknown[], [{ id: WEBHOOK }], 'in the engine, under its address')
  const listed = await call(token, 'GET', '/api/monsters')
  t.match(listed.json(), [{ id: webhookHandle(WEBHOOK), pokemon_id: 25 }], 'the alarm\'s owner shows as the handle')
  await call(token, 'GET', '/api/profiles')
  await call(token, 'GET', '/api/location')
  await call(token, 'GET', '/api/dashboard')
  await call(token, 'GET', '/api/profile-overview')
  for (const line of seen) t.notOk(line.includes('token-a') || line.includes('webhooks/11'), `no address in ${line.slice(0, 60)}`)

  await s.app.db.pool.query('DELETE FROM webhook_delegates WHERE webhook_id = ? AND user_id = ?', [WEBHOOK, DELEGATE])
  s.app.identity.evictRoles(DELEGATE)
  t.equal((await call(token, 'GET', '/api/monsters')).statusCode, 401, 'the grant withdrawn: the handle resolves to nothing and the token ends')
})

t.test('an engine admin without the claim is resolved live; an impersonation token cannot impersonate', async (t) => {
  const s = await setup(t)
  s.engine.set({ admins: { discord: [DELEGATE], telegram: [] } })
  t.equal((await impersonate(s, { userId: DELEGATE }, { userId: USER })).statusCode, 200)
  const nested = await impersonate(s, { userId: USER, impersonatedBy: ADMIN }, { userId: WEBHOOK })
  t.equal(nested.statusCode, 403)
  t.same(nested.json(), { error: 'Stop acting as another account first.' })
})

t.test('bad input is a 4xx', async (t) => {
  const s = await setup(t)
  const admin = { userId: ADMIN, isAdmin: true }
  for (const payload of [{}, { userId: '' }, { userId: 5 }, { userId: null }, [], 'x', null, { userId: USER, extra: 1 }, { userId: 'x'.repeat(501) }]) {
    const res = await impersonate(s, admin, payload)
    t.equal(res.statusCode, 400, JSON.stringify(payload).slice(0, 40))
  }
  for (const query of ['', '?id=', `?id=${'x'.repeat(501)}`]) {
    const res = await s.app.inject({ method: 'POST', url: `/api/admin/users/impersonate${query}`, headers: bearer(s.app, admin) })
    t.equal(res.statusCode, 400, `query ${query.slice(0, 10)}`)
  }
  s.engine.failWith({ drop: true })
  t.equal((await impersonate(s, admin, { userId: USER })).statusCode, 503, 'engine unreachable')
})
