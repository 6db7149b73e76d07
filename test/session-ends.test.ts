import t from 'tap'
import { ADMIN, DELEGATE, USER, OTHER, WEBHOOK, REDIS, withCast, auth, tokenOf, me, eventually } from './fixtures/sessions-cast.js'
import { bearer, buildInstance } from './helper.js'

/*
 * Sessions people can see and end, ended sign-ins refused on every request (and on a second instance
 * through Redis), impersonation bounds, and the admin audit log.
 */

t.test('an impersonation lasts at most an hour and ends with the actor\'s session', async (t) => {
  const a = await withCast(t, REDIS)
  const b = await buildInstance(t, a)
  const admin = tokenOf(bearer(a.app, { userId: ADMIN, isAdmin: true, sid: 't.admin' }))
  const started = await a.app.inject({ method: 'POST', url: '/api/admin/impersonate', headers: auth(admin), payload: { userId: USER } })
  t.equal(started.statusCode, 200)
  const acting = started.json().token as string
  const claims = JSON.parse(Buffer.from(acting.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>
  t.equal(claims.exp, Math.floor(a.clock.now() / 1000) + 3600, 'an hour, not the day of an ordinary sign-in')
  t.equal(claims.isid, 't.admin', 'bound to the admin\'s sign-in')
  t.equal((await me(a.app, acting)).statusCode, 200)
  t.equal((await me(b, acting)).statusCode, 200)

  t.equal((await a.app.inject({ method: 'POST', url: '/api/auth/logout', headers: auth(admin) })).statusCode, 200)
  t.equal((await me(a.app, acting)).statusCode, 401, 'the admin signed out: the impersonation ends')
  t.ok(await eventually(async () => (await me(b, acting)).statusCode === 401), 'on every instance')

  const old = tokenOf(bearer(a.app, { userId: USER, impersonatedBy: ADMIN }, 24 * 60))
  t.equal((await me(a.app, old)).statusCode, 401, 'a day-long impersonation token from before is refused')
  const demoted = tokenOf(bearer(a.app, { userId: USER, impersonatedBy: OTHER, sid: 't.x' }))
  t.equal((await me(a.app, demoted)).statusCode, 401, 'an actor who is no admin (any more) cannot act as the account')
})

t.test('a delegate\'s impersonation ends the moment the delegation is removed, on every instance', async (t) => {
  const a = await withCast(t, REDIS)
  const b = await buildInstance(t, a)
  const admin = bearer(a.app, { userId: ADMIN, isAdmin: true, sid: 't.admin' })
  t.equal((await a.app.inject({ method: 'POST', url: '/api/admin/webhook-delegates', headers: admin, payload: { webhookId: WEBHOOK, userId: DELEGATE } })).statusCode, 200)
  const delegate = bearer(a.app, { userId: DELEGATE, sid: 't.dee' })
  const started = await a.app.inject({ method: 'POST', url: '/api/admin/impersonate', headers: delegate, payload: { userId: WEBHOOK } })
  t.equal(started.statusCode, 200)
  const acting = started.json().token as string
  t.equal((await me(b, acting)).statusCode, 200, 'B has cached the delegation')

  t.equal((await a.app.inject({ method: 'DELETE', url: '/api/admin/webhook-delegates', headers: admin, payload: { webhookId: WEBHOOK, userId: DELEGATE } })).statusCode, 200)
  t.equal((await me(a.app, acting)).statusCode, 401, 'refused at once')
  t.ok(await eventually(async () => (await me(b, acting)).statusCode === 401), 'and on the other instance')
})
