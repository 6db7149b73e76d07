import t from 'tap'
import { ADMIN, DELEGATE, USER, OTHER, WEBHOOK, withCast, auth, tokenOf, me } from './fixtures/sessions-cast.js'
import { bearer } from './helper.js'
import { redact } from '../plugins/domain/audit-log.js'

/*
 * Sessions people can see and end, ended sign-ins refused on every request (and on a second instance
 * through Redis), impersonation bounds, and the admin audit log.
 */

t.test('admins end every session of a user, tokens without a family included; it is audited', async (t) => {
  const s = await withCast(t)
  const token = tokenOf(bearer(s.app, { userId: USER, sid: 't.u' }))
  const admin = bearer(s.app, { userId: ADMIN, isAdmin: true, sid: 't.admin' })
  const res = await s.app.inject({ method: 'DELETE', url: `/api/admin/users/sessions?id=${USER}`, headers: admin })
  t.equal(res.statusCode, 200)
  t.equal((await me(s.app, token)).statusCode, 401)
  const audit = await s.app.inject({ method: 'GET', url: '/api/admin/audit?action=sessions.end', headers: admin })
  t.match(audit.json(), { entries: [{ actorId: ADMIN, action: 'sessions.end', target: USER, status: 200, requestId: /./ }] })
})

t.test('the audit log: every admin action, filtered and paged, no secrets, admins only', async (t) => {
  const s = await withCast(t)
  const admin = bearer(s.app, { userId: ADMIN, isAdmin: true, sid: 't.admin' })
  t.equal((await s.app.inject({ method: 'PUT', url: `/api/admin/users/disable?id=${USER}`, headers: admin })).statusCode, 200)
  s.clock.advance(1000)
  t.equal((await s.app.inject({ method: 'PUT', url: `/api/admin/users/enable?id=${USER}`, headers: admin })).statusCode, 200)
  s.clock.advance(1000)
  t.equal((await s.app.inject({ method: 'PATCH', url: `/api/admin/users?id=${OTHER}`, headers: admin, payload: { notes: 'met at the raid' } })).statusCode, 200)
  t.equal((await s.app.inject({ method: 'POST', url: '/api/admin/webhook-delegates', headers: admin, payload: { webhookId: WEBHOOK, userId: DELEGATE } })).statusCode, 200)
  t.equal((await s.app.inject({ method: 'PUT', url: '/api/admin/users/disable?id=nobody', headers: admin })).statusCode, 404)
  const imp = await s.app.inject({ method: 'POST', url: '/api/admin/impersonate', headers: admin, payload: { userId: USER } })
  t.equal((await s.app.inject({ method: 'POST', url: '/api/auth/logout', headers: auth(imp.json().token) })).statusCode, 200)

  const all = await s.app.inject({ method: 'GET', url: '/api/admin/audit', headers: admin })
  t.equal(all.statusCode, 200)
  const actions = (all.json().entries as Array<{ action: string }>).map((e) => e.action)
  t.same(actions, ['impersonation.end', 'impersonation.start', 'delegate.grant', 'user.edit', 'user.enable', 'user.disable'], 'newest first; a refused action is not an action')
  const entries = all.json().entries as Array<Record<string, unknown>>
  t.match(entries.find((e) => e.action === 'user.edit'), { actorId: ADMIN, target: OTHER, details: { body: { notes: 'met at the raid' } } })
  t.match(entries.find((e) => e.action === 'impersonation.end'), { actorId: ADMIN, target: USER })
  // A webhook's address is its secret: the log keeps its origin and last four characters, wherever it appears.
  t.match(entries.find((e) => e.action === 'delegate.grant'), { details: { body: { webhookId: 'https://discord.com/…part', userId: DELEGATE } } })
  t.notOk(all.body.includes('secret-token'), 'no part of the webhook\'s token beyond its last four characters')

  const page1 = await s.app.inject({ method: 'GET', url: '/api/admin/audit?limit=2', headers: admin })
  t.equal(page1.json().entries.length, 2)
  const page2 = await s.app.inject({ method: 'GET', url: `/api/admin/audit?limit=2&before=${page1.json().nextCursor as number}`, headers: admin })
  t.same(page2.json().entries.map((e: { action: string }) => e.action), ['delegate.grant', 'user.edit'])
  t.same((await s.app.inject({ method: 'GET', url: `/api/admin/audit?target=${USER}&action=user.disable`, headers: admin })).json().entries.length, 1)
  t.same((await s.app.inject({ method: 'GET', url: `/api/admin/audit?actor=${OTHER}`, headers: admin })).json().entries, [])
  const from = new Date(s.clock.now() - 500).toISOString()
  t.same((await s.app.inject({ method: 'GET', url: `/api/admin/audit?from=${from}&action=user.enable`, headers: admin })).json().entries, [], 'the time filter')
  t.equal((await s.app.inject({ method: 'GET', url: '/api/admin/audit?from=yesterday', headers: admin })).statusCode, 400)
  t.equal((await s.app.inject({ method: 'GET', url: '/api/admin/audit', headers: bearer(s.app, { userId: USER }) })).statusCode, 403)

  t.same(redact({ key: 'discord_bot_token', value: 'abc' }), { key: 'discord_bot_token', value: '[redacted]' })
  t.same(redact({ clientSecret: 'x', nested: { password: 'y', name: 'ok' } }), { clientSecret: '[redacted]', nested: { password: '[redacted]', name: 'ok' } })
  t.same(redact({ url: 'https://discord.com/api/webhooks/1/abcdefgh' }), { url: 'https://discord.com/…efgh' })
  t.same(redact({ url: 'https://discord.com/…efgh' }), { url: 'https://discord.com/…efgh' }, 'masking a masked address changes nothing')

  s.clock.advance(366 * 86_400_000)
  t.equal(await s.app.auditLog.purgeStale(s.clock.now()), 6, 'past AUDIT_RETENTION_DAYS entries go')
})

t.test('every admin route that changes something writes an audit entry', async (t) => {
  const s = await withCast(t)
  t.same(s.app.auditLog.unauditedRoutes(), [])
})

t.test('the admin user edit refuses NUL, bidi-override and lone-surrogate characters, and records nothing', async (t) => {
  const s = await withCast(t)
  const admin = bearer(s.app, { userId: ADMIN, isAdmin: true, sid: 't.admin' })
  for (const payload of [{ name: 'a\u0000b' }, { notes: 'x\u202ey' }, { name: 'lone \ud800' }]) {
    t.equal((await s.app.inject({ method: 'PATCH', url: `/api/admin/users?id=${OTHER}`, headers: admin, payload })).statusCode, 400, JSON.stringify(payload))
  }
  t.same((await s.app.inject({ method: 'GET', url: '/api/admin/audit', headers: admin })).json().entries, [])
})
