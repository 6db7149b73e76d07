import t from 'tap'
import type { FastifyRequest } from 'fastify'
import { build, bearer, seedHuman, type Test, type TestApp } from './helper.js'
import { startChatPlatformFake, type ChatPlatformFake } from './fakes/chat-platform.js'
import { followLogin, type FollowLoginOptions, type LoginFlow } from './fakes/browser-flow.js'
import type { Config } from '../plugins/base/config.js'

const ALICE = { id: '200000000000000001', username: 'alice', avatar: 'a_0123abcd' }
const BOB = { id: '200000000000000002', username: 'bob', avatar: null }
const GUILD = '300000000000000001'
const ROLE = '400000000000000001'

interface Setup extends TestApp {
  platform: ChatPlatformFake
  login: (opts?: Partial<FollowLoginOptions>) => Promise<LoginFlow>
  setting: (key: string, value: string) => Promise<void>
}

async function setup (t: Test, opts: { env?: Record<string, string>, config?: Partial<Config>, configured?: boolean } = {}): Promise<Setup> {
  const platform = await startChatPlatformFake({ users: [ALICE, BOB], nextUser: ALICE.id })
  t.teardown(() => platform.close())
  const credentials = opts.configured === false
    ? {}
    : { DISCORD_CLIENT_ID: platform.clientId, DISCORD_CLIENT_SECRET: platform.clientSecret }
  const testApp = await build(t, {
    env: { DISCORD_API_URL: platform.url, DISCORD_BOT_TOKEN: platform.botToken, DISCORD_GUILD_ID: GUILD, ...credentials, ...opts.env },
    config: { RATE_LIMIT_AUTH_MAX: 1000, ...opts.config }
  })
  const { app } = testApp
  // Object.assign keeps TestApp's `logs` getter live (a spread would copy today's lines once).
  return Object.assign(testApp, {
    platform,
    login: (extra: Partial<FollowLoginOptions> = {}) => followLogin({
      serviceInject: (o) => app.inject(o),
      startPath: '/api/auth/discord/login',
      callbackPath: '/api/auth/discord/callback',
      ...extra
    }),
    setting: async (key: string, value: string) => { await app.siteSettings.set(key, { value }, {} as FastifyRequest) }
  })
}

function payload (token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>
}

/** The error code a finished flow landed on, asserting it is a redirect to the login page. */
function errorOf (t: Test, flow: LoginFlow, origin = 'http://localhost'): string | null {
  t.equal(flow.finalResponse.status, 302, 'the callback redirects')
  t.ok(flow.location?.startsWith(`${origin}/login#error=`), `to the login page (${flow.location ?? 'none'})`)
  return flow.fragment.get('error')
}

t.test('a registered user signs in: token of the configured lifetime, chat:user, CDN avatar', async (t) => {
  const s = await setup(t)
  await seedHuman(s, { id: ALICE.id, name: 'Alice in the engine', currentProfileNo: 1 })
  const flow = await s.login()

  const authorize = new URL(flow.loginResponse.location ?? '')
  t.equal(`${authorize.origin}${authorize.pathname}`, s.platform.authorizeUrl)
  t.same(Object.fromEntries([...authorize.searchParams].filter(([k]) => k !== 'state')), {
    client_id: s.platform.clientId,
    redirect_uri: 'http://localhost/api/auth/discord/callback',
    response_type: 'code',
    scope: 'identify',
    prompt: 'none'
  })
  t.match(authorize.searchParams.get('state'), /^[A-Za-z0-9_-]{43}$/)
  const cookie = flow.loginResponse.headers.getSetCookie()[0] ?? ''
  t.match(cookie, /HttpOnly/)
  t.match(cookie, /SameSite=Lax/)
  t.match(cookie, /Max-Age=600/)
  t.match(cookie, /Path=\/api\/auth\/discord/)
  t.notMatch(cookie, /Secure/, 'no Secure flag over http')

  t.equal(flow.finalResponse.status, 302)
  t.ok(flow.location?.startsWith('http://localhost/auth/discord/callback#token='))
  const token = flow.fragment.get('token') ?? ''
  const claims = payload(token)
  t.match(claims, {
    userId: ALICE.id,
    username: 'alice',
    type: 'chat:user',
    isAdmin: 'false',
    enabled: 'true',
    profileNo: '1',
    avatarUrl: `https://cdn.discordapp.com/avatars/${ALICE.id}/${ALICE.avatar}.png`
  })
  t.equal(claims.exp, Math.floor(s.clock.now() / 1000) + s.config.JWT_EXPIRATION_MINUTES * 60)
  t.match(flow.callbackResponse?.headers.getSetCookie().join(';'), /discord_oauth=;/, 'the state cookie is cleared')
  const exchange = s.platform.requests.find((r) => r.path === '/oauth2/token')
  t.equal(new URLSearchParams(exchange?.body).get('redirect_uri'), 'http://localhost/api/auth/discord/callback', 'the same redirect URI is used for the exchange')
  t.notOk(s.rawLogs().includes(token), 'the token is never logged')

  const me = await s.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } })
  t.equal(me.statusCode, 200)
  t.match(me.json(), { id: ALICE.id, type: 'chat:user', avatarUrl: claims.avatarUrl })
})

t.test('no avatar hash: no avatar claim', async (t) => {
  const s = await setup(t)
  await seedHuman(s, { id: BOB.id })
  s.platform.nextUser = BOB.id
  const flow = await s.login()
  const claims = payload(flow.fragment.get('token') ?? '')
  t.equal(claims.userId, BOB.id)
  t.notOk('avatarUrl' in claims)
})

t.test('the browser goes back to the Referer origin only when it is an allowed CORS origin', async (t) => {
  const s = await setup(t)
  await seedHuman(s, { id: ALICE.id })
  const allowed = await s.login({ headers: { referer: 'https://alarms.example.org/login?x=1' } })
  t.ok(allowed.location?.startsWith('https://alarms.example.org/auth/discord/callback#token='), 'allowed origin')
  for (const referer of ['https://evil.example/login', 'not a url', 'javascript:alert(1)', 'https://alarms.example.org.evil.example/']) {
    const flow = await s.login({ headers: { referer } })
    t.ok(flow.location?.startsWith('http://localhost/auth/discord/callback#token='), `${referer}: falls back to the service origin`)
  }
  s.platform.nextUser = undefined
  const refused = await s.login({ headers: { referer: 'https://alarms.example.org/' } })
  t.equal(errorOf(t, refused, 'https://alarms.example.org'), 'discord_provider_error', 'errors go back to the allowed origin too')
})

t.test('PUBLIC_URL builds the callback URL and https makes the cookie Secure', async (t) => {
  const s = await setup(t, { env: { PUBLIC_URL: 'https://alarms.example.org' } })
  await seedHuman(s, { id: ALICE.id })
  const flow = await s.login({ serviceUrl: 'https://alarms.example.org' })
  t.equal(new URL(flow.loginResponse.location ?? '').searchParams.get('redirect_uri'), 'https://alarms.example.org/api/auth/discord/callback')
  t.match(flow.loginResponse.headers.getSetCookie()[0], /Secure/)
  t.ok(flow.location?.startsWith('https://alarms.example.org/auth/discord/callback#token='))
})

t.test('not configured: login is a 404 JSON, the callback redirects with discord_disabled', async (t) => {
  const s = await setup(t, { configured: false })
  const login = await s.app.inject({ method: 'GET', url: '/api/auth/discord/login' })
  t.equal(login.statusCode, 404)
  t.same(login.json(), { error: 'Discord sign-in is not configured.' })
  const callback = await s.app.inject({ method: 'GET', url: '/api/auth/discord/callback?code=x&state=y', headers: { host: 'localhost' } })
  t.equal(callback.statusCode, 302)
  t.equal(callback.headers.location, 'http://localhost/login#error=discord_disabled')
})

t.test('state: missing, wrong, cookie missing or forged, expired, reused', async (t) => {
  const s = await setup(t)
  await seedHuman(s, { id: ALICE.id })
  const cases: Record<string, NonNullable<FollowLoginOptions['beforeCallback']>> = {
    'state parameter missing': (url, cookies) => { url.searchParams.delete('state'); return { url, cookies } },
    'state parameter wrong': (url, cookies) => { url.searchParams.set('state', 'A'.repeat(43)); return { url, cookies } },
    'state parameter of another length': (url, cookies) => { url.searchParams.set('state', 'short'); return { url, cookies } },
    'no cookie': (url) => ({ url, cookies: new Map() }),
    'unsigned cookie': (url, cookies) => {
      const value = decodeURIComponent(cookies.get('discord_oauth') ?? '')
      return { url, cookies: new Map([['discord_oauth', encodeURIComponent(value.slice(0, value.lastIndexOf('.')))]]) }
    },
    'forged signature': (url, cookies) => {
      const value = decodeURIComponent(cookies.get('discord_oauth') ?? '')
      return { url, cookies: new Map([['discord_oauth', encodeURIComponent(`${value.slice(0, value.lastIndexOf('.'))}.${'x'.repeat(43)}`)]]) }
    }
  }
  for (const [name, beforeCallback] of Object.entries(cases)) {
    const flow = await s.login({ beforeCallback })
    t.equal(errorOf(t, flow), 'discord_invalid_state', name)
  }

  const expired = await s.login({ beforeCallback: (url, cookies) => { s.clock.advance(601_000); return { url, cookies } } })
  t.equal(errorOf(t, expired), 'discord_invalid_state', 'older than ten minutes')

  const first = await s.login()
  t.ok(first.fragment.get('token'), 'first use signs in')
  const replay = await first.replayCallback()
  t.equal(replay.status, 302)
  t.equal(new URL(replay.location ?? '').hash, '#error=discord_invalid_state', 'the same state and cookie cannot be used twice')
})

t.test('platform failures map to the reference codes', async (t) => {
  const s = await setup(t)
  await seedHuman(s, { id: ALICE.id })

  s.platform.nextUser = undefined
  t.equal(errorOf(t, await s.login()), 'discord_provider_error', 'user cancelled at the platform')
  s.platform.nextUser = ALICE.id

  t.equal(errorOf(t, await s.login({ beforeCallback: (url, cookies) => { url.searchParams.delete('code'); return { url, cookies } } })), 'missing_code')
  t.equal(errorOf(t, await s.login({ beforeCallback: (url, cookies) => { url.searchParams.set('code', ''); return { url, cookies } } })), 'missing_code', 'empty code')
  t.equal(errorOf(t, await s.login({ beforeCallback: (url, cookies) => { url.searchParams.set('code', 'not-issued'); return { url, cookies } } })), 'token_exchange_failed', 'unknown code')

  for (const mode of ['server_error', 'garbage', 'rate_limited'] as const) {
    s.platform.failures.token = mode
    t.equal(errorOf(t, await s.login()), 'token_exchange_failed', `token endpoint ${mode}`)
  }
  delete s.platform.failures.token
  for (const mode of ['server_error', 'garbage', 'rate_limited'] as const) {
    s.platform.failures.user = mode
    t.equal(errorOf(t, await s.login()), 'discord_user_fetch_failed', `users/@me ${mode}`)
  }
  delete s.platform.failures.user
  t.ok((await s.login()).fragment.get('token'), 'recovers')
  t.notOk(/"(code|access_token|client_secret)"/.test(s.rawLogs()), 'no code, access token or secret in the logs')
  t.notOk(s.rawLogs().includes(s.platform.clientSecret))
})

t.test('a wrong client secret is a token_exchange_failed', async (t) => {
  const s = await setup(t, { env: { DISCORD_CLIENT_SECRET: 'not-the-secret' } })
  await seedHuman(s, { id: ALICE.id })
  t.equal(errorOf(t, await s.login()), 'token_exchange_failed')
})

t.test('identity pipeline: unregistered, blocked, engine down, the enable_discord gate and admin bypass', async (t) => {
  const s = await setup(t)
  t.equal(errorOf(t, await s.login()), 'user_not_registered')

  await seedHuman(s, { id: ALICE.id, adminDisable: true })
  t.equal(errorOf(t, await s.login()), 'account_blocked')
  await s.app.engineDb.pool.query('UPDATE humans SET admin_disable = 0 WHERE id = ?', [ALICE.id])

  s.engine.failWith({ path: /humans\/one/ })
  t.equal(errorOf(t, await s.login()), 'engine_unavailable')
  s.engine.reset()

  await s.setting('enable_discord', 'false')
  t.equal(errorOf(t, await s.login()), 'discord_disabled', 'non-admins are refused')
  s.engine.set({ admins: { discord: [ALICE.id], telegram: [] } })
  s.app.identity.evictRoles(ALICE.id)
  const admin = await s.login()
  t.match(payload(admin.fragment.get('token') ?? ''), { userId: ALICE.id, isAdmin: 'true' }, 'admins bypass the gate')
})

t.test('guild role gating: not in guild, missing role, check failures, admin bypass', async (t) => {
  const s = await setup(t)
  await seedHuman(s, { id: ALICE.id })
  await s.setting('enable_roles', 'true')
  await s.setting('allowed_role_ids', `"${ROLE}", 999000000000000001`)

  t.equal(errorOf(t, await s.login()), 'role_check_failed', 'the bot is not in the guild')
  s.platform.setMember(GUILD, BOB.id, [ROLE])
  t.equal(errorOf(t, await s.login()), 'not_in_guild')
  s.platform.setMember(GUILD, ALICE.id, ['123'])
  t.equal(errorOf(t, await s.login()), 'missing_required_role')
  s.platform.setMember(GUILD, ALICE.id, ['123', ROLE])
  t.ok((await s.login()).fragment.get('token'), 'one allowed role is enough')

  s.platform.failures.member = 'server_error'
  t.equal(errorOf(t, await s.login()), 'role_check_failed', 'member lookup fails')
  s.engine.set({ admins: { discord: [ALICE.id], telegram: [] } })
  s.app.identity.evictRoles(ALICE.id)
  t.ok((await s.login()).fragment.get('token'), 'admins bypass role gating')
  s.engine.set({ admins: { discord: [], telegram: [] } })
  delete s.platform.failures.member
  s.app.identity.evictRoles(ALICE.id)

  await s.setting('allowed_role_ids', 'everyone, "admins"')
  t.equal(errorOf(t, await s.login()), 'role_check_failed', 'no usable role id fails closed')
})

t.test('bad input at the callback is always a redirect, never a 4xx or 5xx', async (t) => {
  const s = await setup(t)
  const urls = [
    '/api/auth/discord/callback',
    '/api/auth/discord/callback?state=a&state=b',
    '/api/auth/discord/callback?code=a&code=b&state=c',
    `/api/auth/discord/callback?code=${'x'.repeat(5000)}&state=s`,
    '/api/auth/discord/callback?error=access_denied',
    '/api/auth/discord/callback?%zz=1',
    '/api/auth/discord/callback?code[]=1'
  ]
  for (const url of urls) {
    const res = await s.app.inject({ method: 'GET', url, headers: { host: 'localhost', cookie: 'discord_oauth=garbage; other=1' } })
    t.equal(res.statusCode, 302, url.slice(0, 80))
    t.match(res.headers.location, /^http:\/\/localhost\/login#error=(discord_invalid_state|discord_invalid_request)$/)
  }
})

t.test('an unexpected failure still redirects, with server_error, and is logged', async (t) => {
  const s = await setup(t)
  s.app.identity.signIn = async () => { throw new Error('database went away') }
  t.equal(errorOf(t, await s.login()), 'server_error')
  t.ok(s.logs.some((l) => l.level === 50 && /unexpectedly/.test(String(l.msg))), 'logged as an error')
})

t.test('both routes share the per-IP auth limit; a limited callback still redirects', async (t) => {
  const s = await setup(t, { config: { RATE_LIMIT_AUTH_MAX: 2 } })
  t.equal((await s.app.inject({ method: 'GET', url: '/api/auth/discord/login' })).statusCode, 302)
  t.equal((await s.app.inject({ method: 'GET', url: '/api/auth/discord/login' })).statusCode, 302)
  const limited = await s.app.inject({ method: 'GET', url: '/api/auth/discord/login' })
  t.equal(limited.statusCode, 429)
  const callback = await s.app.inject({ method: 'GET', url: '/api/auth/discord/callback?code=a&state=b', headers: { host: 'localhost' } })
  t.equal(callback.statusCode, 302)
  t.equal(callback.headers.location, 'http://localhost/login#error=rate_limited')
})

t.test('the chat platform and Telegram cannot both be switched off', async (t) => {
  const s = await setup(t)
  const headers = bearer(s.app, { userId: 'admin1', isAdmin: true })
  const put = (key: string, value: string | null) => s.app.inject({ method: 'PUT', url: `/api/settings/${key}`, headers, payload: { value } })

  t.equal((await put('enable_discord', 'false')).statusCode, 200, 'one off is fine')
  const refused = await put('enable_telegram', 'false')
  t.equal(refused.statusCode, 400)
  t.same(refused.json(), { error: 'Discord and Telegram sign-in cannot both be disabled.' })
  t.equal(await s.app.siteSettings.get('enable_telegram'), undefined, 'nothing was written')
  t.equal((await put('enable_telegram', 'true')).statusCode, 200, 'switching on is always fine')

  t.equal((await put('enable_discord', null)).statusCode, 200, 'back to the default (on)')
  t.equal((await put('enable_telegram', 'false')).statusCode, 200)
  t.equal((await put('enable_discord', 'false')).statusCode, 400, 'the guard works from either side')
  t.equal(await s.app.siteSettings.get('enable_discord'), undefined)
})
