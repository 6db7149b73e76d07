import { createHmac } from 'node:crypto'
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, bearer, JWT_SECRET } from './helper.js'

const b64 = (value: object | string) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')

/** Signs a token by hand, to forge every way a token can be wrong. */
function handMade (payload: object, { secret = JWT_SECRET, alg = 'HS256' }: { secret?: string, alg?: string } = {}): string {
  const head = `${b64({ alg, typ: 'JWT' })}.${b64(payload)}`
  if (alg === 'none') return `${head}.`
  return `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`
}

function claims (now: number, extra: object = {}) {
  return { userId: 'u1', username: 'u1', type: 'discord:user', isAdmin: 'false', enabled: 'true', profileNo: '1', iss: 'PoracleWeb', aud: 'PoracleWeb.App', iat: Math.floor(now / 1000), exp: Math.floor(now / 1000) + 600, ...extra }
}

function whoami (app: FastifyInstance): void {
  app.get('/api/_whoami', { onRequest: app.auth.authenticate }, async (request) => request.user)
  app.post('/api/_reissue', { onRequest: app.auth.authenticate }, async (request) => app.auth.reissue(request, { profileNo: 3 }))
}

t.test('a minted token carries the reference claims and is accepted', async (t) => {
  const { app, clock } = await build(t, { routes: whoami })
  const minted = app.auth.mint({ userId: 'https://discord.com/api/webhooks/1/x', username: 'hook', type: 'webhook', isAdmin: true, enabled: true, profileNo: 2, managedWebhooks: ['a', 'b'], avatarUrl: 'https://cdn.example/a.png' }, 30)
  t.equal(minted.expiresIn, 1800)
  t.equal(minted.expiresAt, Math.floor(clock.now() / 1000) + 1800)
  const [, payload] = minted.token.split('.')
  const wire = JSON.parse(Buffer.from(payload as string, 'base64url').toString())
  t.match(wire, { userId: 'https://discord.com/api/webhooks/1/x', isAdmin: 'true', enabled: 'true', profileNo: '2', managedWebhooks: 'a,b', iss: 'PoracleWeb', aud: 'PoracleWeb.App' })
  t.notOk('sub' in wire, 'no sub claim')
  const res = await app.inject({ method: 'GET', url: '/api/_whoami', headers: { authorization: `Bearer ${minted.token}` } })
  t.equal(res.statusCode, 200)
  t.match(res.json(), { userId: 'https://discord.com/api/webhooks/1/x', isAdmin: true, profileNo: 2, managedWebhooks: ['a', 'b'] })
})

t.test('every broken token is a 401 JSON answer', async (t) => {
  const { app, clock } = await build(t, { routes: whoami })
  const now = clock.now()
  const cases: Record<string, Record<string, string>> = {
    missing: {},
    'not bearer': { authorization: `Basic ${b64('a:b')}` },
    'empty bearer': { authorization: 'Bearer ' },
    malformed: { authorization: 'Bearer not.a.jwt' },
    'wrong signature': { authorization: `Bearer ${handMade(claims(now), { secret: 'another-secret-of-sufficient-length-0000' })}` },
    'alg none': { authorization: `Bearer ${handMade(claims(now), { alg: 'none' })}` },
    'wrong issuer': { authorization: `Bearer ${handMade(claims(now, { iss: 'Someone' }))}` },
    'wrong audience': { authorization: `Bearer ${handMade(claims(now, { aud: 'Other.App' }))}` },
    expired: { authorization: `Bearer ${handMade(claims(now, { exp: Math.floor(now / 1000) - 31 }))}` },
    'no exp': { authorization: `Bearer ${handMade(claims(now, { exp: undefined }))}` },
    'exp "never"': { authorization: `Bearer ${handMade(claims(now, { exp: 'never' }))}` },
    'exp as a numeric string': { authorization: `Bearer ${handMade(claims(now, { exp: String(Math.floor(now / 1000) + 600) }))}` },
    'no iat': { authorization: `Bearer ${handMade(claims(now, { iat: undefined }))}` },
    'iat as a string': { authorization: `Bearer ${handMade(claims(now, { iat: 'yesterday' }))}` },
    'no iss': { authorization: `Bearer ${handMade(claims(now, { iss: undefined }))}` },
    'no aud': { authorization: `Bearer ${handMade(claims(now, { aud: undefined }))}` },
    'nbf in the future': { authorization: `Bearer ${handMade(claims(now, { nbf: Math.floor(now / 1000) + 120 }))}` },
    'nbf as a string': { authorization: `Bearer ${handMade(claims(now, { nbf: 'now' }))}` }
  }
  for (const [name, headers] of Object.entries(cases)) {
    const res = await app.inject({ method: 'GET', url: '/api/_whoami', headers })
    t.equal(res.statusCode, 401, name)
    t.type(res.json().error, 'string', `${name}: JSON error`)
  }
  const withinTolerance = await app.inject({ method: 'GET', url: '/api/_whoami', headers: { authorization: `Bearer ${handMade(claims(now, { exp: Math.floor(now / 1000) - 10 }))}` } })
  t.equal(withinTolerance.statusCode, 200, 'clock tolerance of at most 30 s')
})

t.test('expiry follows the service clock', async (t) => {
  const { app, clock } = await build(t, { routes: whoami })
  const headers = bearer(app, { userId: 'u1' }, 10)
  t.equal((await app.inject({ method: 'GET', url: '/api/_whoami', headers })).statusCode, 200)
  clock.advance(10 * 60_000 + 31_000)
  t.equal((await app.inject({ method: 'GET', url: '/api/_whoami', headers })).statusCode, 401)
})

t.test('reissue changes claims but keeps the original expiry', async (t) => {
  const { app, clock } = await build(t, { routes: whoami })
  const original = app.auth.mint({ userId: 'u1', username: 'u1', type: 'chat:user', isAdmin: false, enabled: true, profileNo: 1, impersonatedBy: 'admin1' }, 30)
  clock.advance(20 * 60_000)
  const res = await app.inject({ method: 'POST', url: '/api/_reissue', headers: { authorization: `Bearer ${original.token}` } })
  const reissued = res.json()
  t.equal(reissued.expiresAt, original.expiresAt, 'a 30-minute token stays a 30-minute token')
  t.equal(reissued.expiresIn, 600)
  const who = await app.inject({ method: 'GET', url: '/api/_whoami', headers: { authorization: `Bearer ${reissued.token}` } })
  t.match(who.json(), { profileNo: 3, impersonatedBy: 'admin1', userId: 'u1' })
})

t.test('admin routes refuse non-admins with 403', async (t) => {
  const { app } = await build(t)
  const res = await app.inject({ method: 'PUT', url: '/api/settings/site_name', headers: bearer(app, { userId: 'u1' }), payload: { value: 'x' } })
  t.equal(res.statusCode, 403)
  t.same(res.json(), { error: 'Administrator rights are required.' })
  const anon = await app.inject({ method: 'PUT', url: '/api/settings/site_name', payload: { value: 'x' } })
  t.equal(anon.statusCode, 401)
})

t.test('a verified token is remembered only as long as verifying again would accept it', async (t) => {
  const { app, clock } = await build(t, { routes: whoami })
  const now = clock.now()
  const ask = async (token: string) => (await app.inject({ method: 'GET', url: '/api/_whoami', headers: { authorization: `Bearer ${token}` } })).statusCode

  const token = handMade(claims(now, { exp: Math.floor(now / 1000) + 60 }))
  t.equal(await ask(token), 200)
  t.equal(await ask(token), 200, 'again, from memory')
  clock.advance(89_000)
  t.equal(await ask(token), 200, 'within exp + 30 s')
  clock.advance(1_000)
  t.equal(await ask(token), 401, 'refused at exp + 30 s although it was verified before')

  const later = handMade(claims(now, { nbf: Math.floor(clock.now() / 1000) + 120 }))
  t.equal(await ask(later), 401, 'not yet valid')
  clock.advance(91_000)
  t.equal(await ask(later), 200, 'valid from nbf - 30 s')
  clock.set(now)
  t.equal(await ask(later), 401, 'a clock set back refuses it again')

  const tampered = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`
  clock.set(now)
  t.equal(await ask(tampered), 401, 'a different signature is verified, not looked up')
})
