import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { bearer, build, buildInstance, seedHuman, type Test, type TestApp } from './helper.js'

/*
 * Sessions people can see and end, ended sign-ins refused on every request (and on a second instance
 * through Redis), impersonation bounds, and the admin audit log.
 */

const ADMIN = '700000000000000001'
const DELEGATE = '700000000000000002'
const USER = '700000000000000003'
const OTHER = '700000000000000004'
const WEBHOOK = 'https://discord.com/api/webhooks/77/secret-token-part'
const REDIS = { REDIS_URL: 'redis://127.0.0.1:6379' }

async function setup (t: Test, env: Record<string, string> = {}): Promise<TestApp> {
  const s = await build(t, { env, config: { PORACLE_ADMIN_IDS: [ADMIN], RATE_LIMIT_AUTH_READ_MAX: 10_000, RATE_LIMIT_AUTH_MAX: 10_000 } })
  await seedHuman(s, { id: ADMIN, name: 'Ada' })
  await seedHuman(s, { id: DELEGATE, name: 'Dee' })
  await seedHuman(s, { id: USER, name: 'Uma' })
  await seedHuman(s, { id: OTHER, name: 'Otto' })
  await seedHuman(s, { id: WEBHOOK, name: 'Raid channel', type: 'webhook' })
  return s
}

const auth = (token: string) => ({ authorization: `Bearer ${token}` })
const tokenOf = (header: { authorization: string }) => header.authorization.slice('Bearer '.length)
const me = (app: FastifyInstance, token: string) => app.inject({ method: 'GET', url: '/api/auth/me', headers: auth(token) })

/** Polls until `check` holds (a Redis message takes a moment), at most about two seconds. */
async function eventually (check: () => Promise<boolean>): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return true
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return false
}

t.test('an impersonation lasts at most an hour and ends with the actor\'s session', async (t) => {
  const a = await setup(t, REDIS)
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
  const a = await setup(t, REDIS)
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
