import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, bearer, seedHuman, type Test, type TestApp } from './helper.js'

/** The admin's webhook list with each webhook's delegates, and the rule that only people can be delegates. */

const ADMIN = '100000000000000001'
const DELEGATE = '100000000000000002'
const MEMBER = '100000000000000003'
const WEBHOOK = 'https://discord.com/api/webhooks/11/token-a'
const PAUSED_WEBHOOK = 'https://example.org/hooks/quests?key=secret-b'

const asAdmin = (app: FastifyInstance) => bearer(app, { userId: ADMIN, isAdmin: true })

async function setup (t: Test): Promise<TestApp> {
  const s = await build(t)
  await seedHuman(s, { id: ADMIN, name: 'Ada' })
  await seedHuman(s, { id: DELEGATE, name: 'Dee' })
  await seedHuman(s, { id: MEMBER, name: 'Mo' })
  await seedHuman(s, { id: WEBHOOK, name: 'Raid channel', type: 'webhook' })
  await seedHuman(s, { id: PAUSED_WEBHOOK, name: 'Quest feed', type: 'webhook', enabled: false })
  return s
}

const list = (s: TestApp, headers = asAdmin(s.app)) => s.app.inject({ method: 'GET', url: '/api/admin/webhooks', headers })
const grant = (s: TestApp, method: 'POST' | 'DELETE', payload: unknown, headers = asAdmin(s.app)) =>
  s.app.inject({ method, url: '/api/admin/webhook-delegates', headers, payload: payload as object })
const grants = async (s: TestApp) => await s.app.db.pool.query('SELECT webhook_id AS webhookId, user_id AS userId FROM webhook_delegates ORDER BY webhook_id, user_id') as Array<{ webhookId: string, userId: string }>

t.test('the webhook list: every webhook with its state and its delegates by name, people left out', async (t) => {
  const s = await setup(t)
  const empty = await list(s)
  t.equal(empty.statusCode, 200)
  t.match(empty.json(), [
    { id: PAUSED_WEBHOOK, name: 'Quest feed', type: 'webhook', enabled: false, adminDisable: false, delegates: [] },
    { id: WEBHOOK, name: 'Raid channel', type: 'webhook', enabled: true, delegates: [] }
  ], 'ordered by name; no chat users')
  t.equal(empty.json().length, 2)

  t.equal((await grant(s, 'POST', { webhookId: WEBHOOK, userId: DELEGATE })).statusCode, 200)
  t.equal((await grant(s, 'POST', { webhookId: WEBHOOK, userId: MEMBER })).statusCode, 200)
  t.equal((await grant(s, 'POST', { webhookId: PAUSED_WEBHOOK, userId: DELEGATE })).statusCode, 200)
  // A grant whose account was removed behind the service's back (engine-side delete) still shows, unnamed.
  await s.app.db.pool.query('INSERT INTO webhook_delegates (webhook_id, user_id) VALUES (?, ?)', [WEBHOOK, '199999999999999999'])
  const filled = (await list(s)).json() as Array<{ id: string, delegates: unknown[] }>
  t.same(filled.map((w) => [w.id, w.delegates]), [
    [PAUSED_WEBHOOK, [{ id: DELEGATE, name: 'Dee' }]],
    [WEBHOOK, [{ id: DELEGATE, name: 'Dee' }, { id: MEMBER, name: 'Mo' }, { id: '199999999999999999', name: null }]]
  ])
  t.notOk(s.rawLogs().includes('token-a') || s.rawLogs().includes('secret-b'), 'webhook addresses are not logged')
})

t.test('the webhook list is for admins only', async (t) => {
  const s = await setup(t)
  await grant(s, 'POST', { webhookId: WEBHOOK, userId: DELEGATE })
  t.equal((await s.app.inject({ method: 'GET', url: '/api/admin/webhooks' })).statusCode, 401, 'no token')
  const delegate = await list(s, bearer(s.app, { userId: DELEGATE }))
  t.equal(delegate.statusCode, 403, 'a delegate sees their own webhooks through my-webhooks, not everyone\'s')
  t.notOk(delegate.body.includes('token-a'), 'and no address leaks in the refusal')
})

t.test('grants: a webhook cannot be a delegate; refused grants and revokes change nothing', async (t) => {
  const s = await setup(t)
  t.equal((await grant(s, 'POST', { webhookId: WEBHOOK, userId: DELEGATE })).statusCode, 200)
  const before = await grants(s)

  const hookAsDelegate = await grant(s, 'POST', { webhookId: WEBHOOK, userId: PAUSED_WEBHOOK })
  t.equal(hookAsDelegate.statusCode, 400)
  t.equal(hookAsDelegate.json().error, 'A webhook cannot manage another webhook.')
  t.equal((await grant(s, 'POST', { webhookId: 'https://example.org/none', userId: MEMBER })).statusCode, 400, 'unknown webhook')
  t.equal((await grant(s, 'POST', { webhookId: MEMBER, userId: DELEGATE })).statusCode, 400, 'a person is not a webhook')
  t.equal((await grant(s, 'POST', { webhookId: WEBHOOK, userId: DELEGATE, extra: true })).statusCode, 400, 'unknown field')
  t.equal((await grant(s, 'POST', { webhookId: WEBHOOK, userId: 42 })).statusCode, 400, 'a number is not an id')
  t.equal((await grant(s, 'POST', { webhookId: WEBHOOK })).statusCode, 400, 'missing user')
  t.equal((await grant(s, 'POST', { webhookId: WEBHOOK, userId: MEMBER }, bearer(s.app, { userId: DELEGATE }))).statusCode, 403, 'a delegate cannot grant')
  t.equal((await grant(s, 'DELETE', { webhookId: WEBHOOK, userId: DELEGATE }, bearer(s.app, { userId: DELEGATE }))).statusCode, 403, 'nor revoke, even their own grant')
  const unknown = await grant(s, 'DELETE', { webhookId: 'https://example.org/none', userId: DELEGATE })
  t.equal(unknown.statusCode, 404, 'revoking on an unknown webhook')
  t.equal((await grant(s, 'DELETE', { webhookId: WEBHOOK, userId: MEMBER })).statusCode, 404, 'revoking a grant that does not exist')
  t.equal((await grant(s, 'DELETE', { webhookId: '', userId: DELEGATE })).statusCode, 400, 'empty webhook id')
  t.same(await grants(s), before, 'no refused call changed a grant')

  const revoked = await grant(s, 'DELETE', { webhookId: WEBHOOK, userId: DELEGATE })
  t.same(revoked.json(), [], 'the revoke answers the remaining delegates')
  t.same((await list(s)).json().find((w: { id: string }) => w.id === WEBHOOK).delegates, [])
})

t.test('deleting a webhook through the user purge removes it from the list and its grants with it', async (t) => {
  const s = await setup(t)
  await grant(s, 'POST', { webhookId: WEBHOOK, userId: DELEGATE })
  const deleted = await s.app.inject({ method: 'DELETE', url: `/api/admin/users?id=${encodeURIComponent(WEBHOOK)}`, headers: asAdmin(s.app) })
  t.equal(deleted.statusCode, 204)
  t.same(((await list(s)).json() as Array<{ id: string }>).map((w) => w.id), [PAUSED_WEBHOOK])
  t.same(await grants(s), [], 'its delegations went with it')
  const mine = await s.app.inject({ method: 'GET', url: '/api/admin/my-webhooks', headers: bearer(s.app, { userId: DELEGATE }) })
  t.same(mine.json(), [], 'the delegate no longer manages it')
})

t.test('creating a webhook refuses control and bidi characters at their field, and creates nothing', async (t) => {
  const s = await setup(t)
  const create = (payload: unknown) => s.app.inject({ method: 'POST', url: '/api/admin/webhooks', headers: asAdmin(s.app), payload: payload as object })
  const hidden = await create({ name: 'Raid\u202Echannel', url: 'https://discord.com/api/webhooks/44/token-d' })
  t.equal(hidden.statusCode, 400)
  t.match(hidden.json().details, [{ field: '/name', message: /bidirectional/ }])
  const control = await create({ name: 'Raids', url: 'https://discord.com/api/webhooks/44/token\u0000-d' })
  t.equal(control.statusCode, 400)
  t.match(control.json().details, [{ field: '/url', message: /control characters/ }])
  t.equal((await create({ name: 'Raids', url: 'discord.com/api/webhooks/44/token-d' })).statusCode, 400, 'no scheme')
  t.equal((await create({ name: ' ', url: 'https://discord.com/api/webhooks/44/token-d' })).statusCode, 400, 'a blank name')
  t.equal((await create({ name: 'Raids', url: 'https://discord.com/api/webhooks/44/token-d' })).statusCode, 201, 'the same, written properly')
  const rows = await s.app.engineDb.pool.query("SELECT name FROM humans WHERE type = 'webhook' ORDER BY name") as Array<{ name: string }>
  t.same(rows.map((r) => r.name), ['Quest feed', 'Raid channel', 'Raids'], 'only the proper one was created')
})
