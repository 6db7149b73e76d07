import { randomBytes, randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { SignJWT, exportJWK, generateKeyPair } from 'jose'
import { build, buildInstance, seedHuman } from './helper.js'
import { followLogin } from './fakes/browser-flow.js'
import { oidcClientEnv, startOidcProvider } from './fakes/oidc-provider.js'

/*
 * OpenID Connect Back-Channel Logout 1.0 against the real oidc-provider with its back-channel logout
 * feature on, RFC 9207 when the provider announces it, and the __Host- cookies on https. Tokens the
 * provider would never send are signed with a test key that the JWKS the service reads also lists.
 */

const USER = '800000000000000001'
const EVENT = 'http://schemas.openid.net/event/backchannel-logout'

t.test('back-channel logout, RFC 9207 and __Host- cookies', async (t) => {
  const op = await startOidcProvider({ redirectUris: ['http://localhost/api/auth/oidc/callback'], accounts: { [USER]: { preferred_username: 'Ash' } }, nextAccount: USER })
  t.teardown(() => op.close())

  // The provider's keys plus one test key, as one JWKS.
  const testKey = await generateKeyPair('RS256')
  const strangerKey = await generateKeyPair('RS256')
  const published = { ...(await exportJWK(testKey.publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' }
  const jwks = createServer((_req, res) => {
    fetch(`${op.issuer}/jwks`).then(async (r) => {
      const theirs = await r.json() as { keys: unknown[] }
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ keys: [...theirs.keys, published] }))
    }, () => { res.statusCode = 502; res.end() })
  })
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => jwks.close(() => resolve())))

  const s = await build(t, {
    env: {
      ...oidcClientEnv(op),
      OIDC_ISSUER: op.issuer,
      OIDC_JWKS_URL: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/`,
      OIDC_TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64')
    },
    config: { RATE_LIMIT_AUTH_MAX: 10_000, RATE_LIMIT_AUTH_READ_MAX: 10_000 }
  })
  const { app } = s
  // The provider's logout tokens carry the real time.
  s.clock.set(Date.now())
  await seedHuman(s, { id: USER, name: 'Ash' })
  await app.db.pool.query("INSERT INTO site_settings (`key`, value) VALUES ('enable_oidc', 'true')")
  app.siteSettings.evict('enable_oidc')
  await app.listen({ port: 0, host: '127.0.0.1' })
  op.backchannelLogoutUri = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/auth/oidc/backchannel-logout`

  const login = async () => (await followLogin({ serviceInject: (o) => app.inject(o) })).fragment
  const me = (token: string) => app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } })
  const refresh = (refreshToken: string) => app.inject({ method: 'POST', url: '/api/auth/oidc/refresh', payload: { refreshToken } })
  const post = (body: string, type = 'application/x-www-form-urlencoded') => app.inject({ method: 'POST', url: '/api/auth/oidc/backchannel-logout', headers: { 'content-type': type }, payload: body })
  const form = (token: string) => new URLSearchParams({ logout_token: token }).toString()
  const logoutToken = async (claims: Record<string, unknown>, opts: { key?: CryptoKey, aud?: string, iat?: number } = {}) =>
    new SignJWT({ events: { [EVENT]: {} }, jti: randomUUID(), ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key', typ: 'logout+jwt' })
      .setIssuer(op.issuer).setAudience(opts.aud ?? op.clientId).setIssuedAt(opts.iat ?? Math.floor(s.clock.now() / 1000))
      .sign(opts.key ?? testKey.privateKey)

  await t.test('the provider ends a session: its refresh token and its access token stop at once', async (t) => {
    const fragment = await login()
    const token = fragment.get('token') ?? ''
    const refreshToken = fragment.get('refresh_token') ?? ''
    t.equal((await me(token)).statusCode, 200)
    const [row] = await app.db.pool.query('SELECT provider_sid AS sid FROM oidc_sessions ORDER BY id DESC LIMIT 1') as Array<{ sid: string | null }>
    t.type(row?.sid, 'string', 'the id_token\'s sid is stored with the family')
    const client = await op.provider.Client.find(op.clientId) as unknown as { backchannelLogout: (sub: string, sid: string) => Promise<void> }
    await client.backchannelLogout(USER, row?.sid ?? '')
    t.equal((await me(token)).statusCode, 401, 'the access token is refused')
    t.equal((await refresh(refreshToken)).statusCode, 401, 'the refresh token is refused')
    const [ended] = await app.db.pool.query('SELECT revoked_reason AS reason FROM oidc_sessions ORDER BY id DESC LIMIT 1') as Array<{ reason: string }>
    t.equal(ended?.reason, 'backchannel_logout')
  })

  await t.test('a logout token is checked in every part; a replay is refused', async (t) => {
    const fragment = await login()
    const token = fragment.get('token') ?? ''
    const good = await logoutToken({ sub: 'nobody-here' })
    t.equal((await post(form(good))).statusCode, 200, 'a valid token for nobody ends nothing, answers 200')
    t.equal((await post(form(good))).statusCode, 400, 'the same jti again is a replay')
    const bad: Array<[string, string]> = [
      ['another audience', await logoutToken({ sub: USER }, { aud: 'someone-else' })],
      ['no events claim', await logoutToken({ sub: USER, events: undefined })],
      ['another event', await logoutToken({ sub: USER, events: { 'urn:other': {} } })],
      ['a nonce', await logoutToken({ sub: USER, nonce: 'n' })],
      ['neither sid nor sub', await logoutToken({})],
      ['a key the provider does not publish', await logoutToken({ sub: USER }, { key: strangerKey.privateKey })],
      ['too old', await logoutToken({ sub: USER }, { iat: Math.floor(s.clock.now() / 1000) - 3600 })],
      // Within jose's 30 s clock tolerance, which let it pass before.
      ['its exp passed', await logoutToken({ sub: USER, exp: Math.floor(s.clock.now() / 1000) - 5 }, { iat: Math.floor(s.clock.now() / 1000) - 20 })],
      ['not a JWT', 'abc.def.ghi']
    ]
    for (const [what, value] of bad) t.equal((await post(form(value))).statusCode, 400, what)
    t.not((await post(JSON.stringify({ logout_token: await logoutToken({ sub: USER }) }), 'application/json')).statusCode, 200, 'a form body only')
    t.equal((await me(token)).statusCode, 200, 'none of them ended the session')
    t.equal((await post(form(await logoutToken({ sub: USER })))).statusCode, 200)
    t.equal((await me(token)).statusCode, 401, 'by sub: every family of the subject ends')
  })

  await t.test('back-channel logout has its own rate-limit bucket: members\' sign-ins do not throttle the provider', async (t) => {
    const other = await buildInstance(t, s, { RATE_LIMIT_AUTH_MAX: 2, RATE_LIMIT_BACKCHANNEL_LOGOUT_MAX: 3 })
    for (let i = 0; i < 3; i++) await other.inject({ method: 'GET', url: '/api/auth/oidc/login' })
    t.equal((await other.inject({ method: 'GET', url: '/api/auth/oidc/login' })).statusCode, 429, 'sign-ins from the address are throttled')
    const logout = async () => (await other.inject({ method: 'POST', url: '/api/auth/oidc/backchannel-logout', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form(await logoutToken({ sub: 'nobody-here' })) })).statusCode
    t.same([await logout(), await logout(), await logout()], [200, 200, 200], 'the provider\'s logout posts still go through')
    t.equal(await logout(), 429, 'up to RATE_LIMIT_BACKCHANNEL_LOGOUT_MAX a minute')
  })

  await t.test('a callback without iss is refused when the provider announces RFC 9207', async (t) => {
    const flow = await followLogin({
      serviceInject: (o) => app.inject(o),
      beforeCallback: (url, cookies) => { url.searchParams.delete('iss'); return { url, cookies } }
    })
    t.match(flow.location, /\/login#error=oidc_provider_error$/)
  })

  await t.test('on https the flow cookies carry the __Host- prefix', async (t) => {
    const res = await app.inject({ method: 'GET', url: '/api/auth/oidc/login', headers: { host: 'alarms.example.org' } })
    const cookies = res.headers['set-cookie'] as string[]
    t.ok(cookies.length >= 2)
    for (const cookie of cookies) t.match(cookie, /^__Host-oidc_(state|verifier)=.*; Path=\/; HttpOnly; Secure; SameSite=Lax/, cookie.split('=')[0] ?? '')
    const local = await app.inject({ method: 'GET', url: '/api/auth/oidc/login', headers: { host: 'localhost' } })
    t.match((local.headers['set-cookie'] as string[])[0], /^oidc_state=.*Path=\/api\/auth\/oidc/, 'plain http keeps the plain name')
  })
})
