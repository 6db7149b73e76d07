import { createHash, randomBytes } from 'node:crypto'
import t from 'tap'
import Fastify, { type LightMyRequestResponse } from 'fastify'
import { sign } from '@fastify/cookie'
import { siteSettings } from '../db/schema/service.js'
import configPlugin, { loadConfig, type Config } from '../plugins/base/config.js'
import oidcClientPlugin from '../plugins/domain/oidc-client.js'
import clockPlugin from '../plugins/base/clock.js'
import { cookieSecret } from '../plugins/edge/cookies.js'
import { build, bearer, seedHuman, JWT_SECRET, type Test, type TestApp } from './helper.js'
import { CookieJar, followLogin, type FollowLoginOptions, type LoginFlow } from './fakes/browser-flow.js'
import { startChatPlatformFake } from './fakes/chat-platform.js'
import { startOidcProvider, type AccountClaims, type OidcProviderHandle, type OidcProviderOptions } from './fakes/oidc-provider.js'

/*
 * External OIDC sign-in against the real oidc-provider on 127.0.0.1. Building the app costs about a
 * second, so most tests share one default SSO site (`mainSite()`, reset before each use) and the
 * configuration variants each get one app that several assertions share.
 */

const ALICE_ID = '111111111111111111'
const BOB_ID = '222222222222222222'
/** An admin by PORACLE_ADMIN_IDS on the shared site. */
const CAROL_ID = '333333333333333333'
const SELF = 'http://localhost'
const PUBLIC = 'https://alarms.example.org'
const CALLBACK = `${SELF}/api/auth/oidc/callback`
const ALICE = { chat_id: ALICE_ID, preferred_username: 'alice', picture: 'https://cdn.example/alice.png', email: 'alice@example.org' }
const ACCOUNTS: Record<string, AccountClaims> = { alice: ALICE, bob: { chat_id: BOB_ID }, carol: { chat_id: CAROL_ID } }
const ENCRYPTION_KEY = randomBytes(32).toString('base64')

interface Setup extends TestApp {
  op: OidcProviderHandle
  login: (opts?: Partial<FollowLoginOptions>) => Promise<LoginFlow>
  /** GET through inject, addressed as SELF. */
  get: (url: string, headers?: Record<string, string>) => Promise<LightMyRequestResponse>
  setting: (key: string, value: string | null) => Promise<void>
}

interface SetupOptions {
  env?: Record<string, string>
  /** Variables that name the provider started for the app (its issuer, its end-session URL). */
  envFrom?: (op: OidcProviderHandle) => Record<string, string>
  config?: Partial<Config>
  provider?: Partial<OidcProviderOptions>
  /** false: no OIDC variables at all. */
  configured?: boolean
  logLevel?: string
  /** true: alice registered and the site in SSO mode. */
  sso?: boolean
}

async function setup (t: Test, opts: SetupOptions = {}): Promise<Setup> {
  const op = await startOidcProvider({
    redirectUris: [CALLBACK, `${PUBLIC}/api/auth/oidc/callback`, 'https://localhost/api/auth/oidc/callback'],
    postLogoutRedirectUris: [`${SELF}/login?loggedout=1`, `${PUBLIC}/login?loggedout=1`],
    accounts: ACCOUNTS,
    nextAccount: 'alice',
    ...opts.provider
  })
  t.teardown(() => op.close())
  const oidc = opts.configured === false
    ? {}
    : {
        OIDC_PROVIDER_NAME: 'Community SSO',
        OIDC_AUTHORIZATION_URL: op.authorizationUrl,
        OIDC_TOKEN_URL: op.tokenUrl,
        OIDC_USERINFO_URL: op.userinfoUrl,
        OIDC_CLIENT_ID: op.clientId,
        OIDC_CLIENT_SECRET: op.clientSecret,
        OIDC_TOKEN_AUTH_METHOD: op.tokenEndpointAuthMethod
      }
  const testApp = await build(t, {
    env: { OIDC_TOKEN_ENCRYPTION_KEY: ENCRYPTION_KEY, ...oidc, ...opts.env, ...opts.envFrom?.(op) },
    config: { RATE_LIMIT_AUTH_MAX: 1000, ...opts.config },
    ...(opts.logLevel !== undefined && { logLevel: opts.logLevel })
  })
  const { app } = testApp
  const extra: Omit<Setup, keyof TestApp> = {
    op,
    login: (extra = {}) => followLogin({ serviceInject: (o) => app.inject(o), ...extra }),
    get: (url, headers = {}) => app.inject({ method: 'GET', url, headers: { host: 'localhost', ...headers } }),
    setting: async (key, value) => {
      await app.db.db.insert(siteSettings).values({ key, value }).onDuplicateKeyUpdate({ set: { value } })
      app.siteSettings.evict(key)
    }
  }
  // Assigned onto testApp, not spread: `logs` is a getter that must stay live.
  const s: Setup = Object.assign(testApp, extra)
  if (opts.sso === true) {
    await seedHuman(s, { id: ALICE_ID, name: 'Alice in the engine' })
    await s.setting('enable_oidc', 'true')
  }
  return s
}

let shared: Promise<Setup> | undefined

/** The default SSO site, built once for the file and put back to its starting point on every call. */
async function mainSite (): Promise<Setup> {
  shared ??= setup(t, { config: { PORACLE_ADMIN_IDS: [CAROL_ID] } })
  const s = await shared
  const { op, app, engine } = s
  op.userinfoOverride = null
  op.tokenOverride = null
  op.tokenEndpointAuthMethod = 'client_secret_post'
  op.nextAccount = 'alice'
  op.accounts.clear()
  for (const [id, claims] of Object.entries(ACCOUNTS)) {
    op.accounts.set(id, claims)
    op.enableAccount(id)
  }
  for (const list of [op.authorizationRequests, op.tokenRequests, op.userinfoRequests, op.revocations, op.grantErrors]) list.length = 0
  engine.reset()
  engine.set({ admins: { discord: [], telegram: [] } })
  await app.db.pool.query('DELETE FROM site_settings')
  await app.engineDb.pool.query('DELETE FROM profiles')
  await app.engineDb.pool.query('DELETE FROM humans')
  app.siteSettings.evict()
  for (const id of [ALICE_ID, BOB_ID, CAROL_ID]) app.identity.evictRoles(id)
  await seedHuman(s, { id: ALICE_ID, name: 'Alice in the engine' })
  await s.setting('enable_oidc', 'true')
  return s
}

const claimsOf = (s: Setup, flow: LoginFlow) => s.app.jwt.verify<Record<string, unknown>>(flow.fragment.get('token') ?? '')
const authorizeParams = (flow: LoginFlow) => new URL(flow.loginResponse.location ?? '').searchParams
const setCookies = (flow: LoginFlow) => flow.loginResponse.headers.getSetCookie()
/** A browser-flow hook that changes the callback request before it is sent. */
const tamper = (change: (url: URL, cookies: Map<string, string>) => void) => ({
  beforeCallback: (url: URL, cookies: Map<string, string>) => {
    change(url, cookies)
    return { url, cookies }
  }
})

/** Asserts a refused sign-in: a redirect to the login page with that code and nothing else. */
function refused (t: Test, flow: LoginFlow, code: string, origin = SELF): void {
  t.equal(flow.finalResponse.status, 302, `${code}: a redirect, never an API error`)
  t.equal(flow.location, `${origin}/login#error=${code}`)
}

function signedIn (t: Test, flow: LoginFlow, origin = SELF): void {
  t.equal(flow.finalResponse.status, 302)
  t.ok(flow.location?.startsWith(`${origin}/auth/oidc/callback#token=`), 'to the front end with a token')
}

t.test('a registered user signs in: the authorize request, the cookies, the token', async (t) => {
  const s = await mainSite()
  const flow = await s.login()

  t.equal(flow.loginResponse.status, 302)
  const params = authorizeParams(flow)
  t.ok(flow.loginResponse.location?.startsWith(`${s.op.authorizationUrl}?`), 'to the configured authorize endpoint')
  t.equal(params.get('client_id'), s.op.clientId)
  t.equal(params.get('redirect_uri'), CALLBACK)
  t.equal(params.get('response_type'), 'code')
  t.equal(params.get('scope'), 'openid profile email')
  t.match(params.get('state'), /^[A-Za-z0-9_-]{43}$/)
  t.equal(params.get('code_challenge_method'), 'S256')
  t.equal(params.get('prompt'), null, 'no prompt parameter')
  t.equal(params.get('nonce'), null)

  const cookies = setCookies(flow)
  for (const name of ['oidc_state', 'oidc_verifier']) {
    const line = cookies.find((c) => c.startsWith(`${name}=`)) ?? ''
    t.match(line, /HttpOnly/, `${name} HttpOnly`)
    t.match(line, /SameSite=Lax/, `${name} SameSite=Lax`)
    t.match(line, /Max-Age=600/, `${name} lives ten minutes`)
    t.match(line, /Path=\/api\/auth\/oidc/)
    t.notMatch(line, /Secure/, 'not Secure on plain http')
  }

  // PKCE: the verifier that reached the token endpoint is the one behind the challenge.
  const [exchange] = s.op.tokenRequests
  t.match(exchange, { grantType: 'authorization_code', authMethod: 'post', status: 200 })
  t.equal(createHash('sha256').update(exchange?.codeVerifier ?? '').digest('base64url'), params.get('code_challenge'))
  t.equal(exchange?.params.get('redirect_uri'), CALLBACK)
  t.equal(exchange?.params.get('client_secret'), s.op.clientSecret, 'client_secret_post: the secret in the form body')
  t.match(s.op.userinfoRequests, [{ status: 200 }])

  signedIn(t, flow)
  t.equal(flow.fragment.get('refresh_token'), null, 'no refresh session without OIDC_USE_REFRESH_TOKENS')
  t.equal(flow.finalResponse.headers.get('cache-control'), 'no-store')
  const claims = claimsOf(s, flow)
  t.match(claims, { userId: ALICE_ID, username: 'alice', type: 'chat:user', isAdmin: 'false', enabled: 'true', profileNo: '1', avatarUrl: ALICE.picture })
  t.equal(Number(claims.exp) - Number(claims.iat), 1440 * 60, 'JWT_EXPIRATION_MINUTES')

  const cleared = flow.callbackResponse?.headers.getSetCookie() ?? []
  for (const name of ['oidc_state', 'oidc_verifier']) {
    t.ok(cleared.some((c) => c.startsWith(`${name}=;`) && /Expires=Thu, 01 Jan 1970/.test(c)), `${name} cleared by the callback`)
  }
})

t.test('the browser\'s binding value from the start comes back in the success fragment (login CSRF), and stays out of the log', async (t) => {
  const s = await mainSite()
  const binding = 'b1nd1ng-of-this-tab-0123456789'
  const flow = await s.login({ startPath: `/api/auth/oidc/login?binding=${binding}` })
  t.equal(flow.fragment.get('binding'), binding)
  t.type(flow.fragment.get('token'), 'string')
  t.equal((await s.login()).fragment.get('binding'), null, 'a start naming none: none comes back (the page refuses it)')
  t.equal((await s.get('/api/auth/oidc/login?binding=short')).statusCode, 400, 'a malformed value is refused')
})

t.test('optional variables: OIDC_ISSUER, identity and username claims, identity type, lifetime', async (t) => {
  const s = await setup(t, {
    sso: true,
    envFrom: (op) => ({ OIDC_ISSUER: op.issuer }),
    env: { OIDC_IDENTITY_CLAIM: 'member_id', OIDC_USERNAME_CLAIM: 'nickname', OIDC_IDENTITY_TYPE: 'sso:member', JWT_EXPIRATION_MINUTES: '90' },
    provider: { customClaims: ['member_id'], accounts: { alice: { member_id: ALICE_ID, chat_id: BOB_ID, picture: 'javascript:alert(1)' } } }
  })
  const flow = await s.login()
  signedIn(t, flow)
  const claims = claimsOf(s, flow)
  t.equal(claims.userId, ALICE_ID, 'the configured claim, not chat_id')
  t.equal(claims.username, 'Alice in the engine', 'no username claim: the engine name')
  t.equal(claims.avatarUrl, undefined, 'only http(s) avatars')
  t.equal(claims.type, 'sso:member')
  t.equal(Number(claims.exp) - Number(claims.iat), 90 * 60)
})

t.test('token endpoint client authentication', async (t) => {
  t.test('client_secret_basic reaches the token endpoint as a Basic header; a post-only provider refuses it', async (t) => {
    const s = await setup(t, { sso: true, provider: { tokenEndpointAuthMethod: 'client_secret_basic', clientSecret: 'basic secret & special/chars+=%:' } })
    signedIn(t, await s.login())
    t.match(s.op.tokenRequests, [{ grantType: 'authorization_code', authMethod: 'basic', status: 200 }])
    t.equal(s.op.tokenRequests[0]?.params.get('client_secret'), null, 'no secret in the body')

    s.op.tokenEndpointAuthMethod = 'client_secret_post'
    refused(t, await s.login(), 'oidc_token_exchange_failed')
    t.match(s.op.tokenRequests.at(-1), { authMethod: 'basic', status: 401 })
  })

  t.test('client_secret_post against a provider that expects Basic', async (t) => {
    const s = await mainSite()
    s.op.tokenEndpointAuthMethod = 'client_secret_basic'
    refused(t, await s.login(), 'oidc_token_exchange_failed')
    t.match(s.op.tokenRequests, [{ authMethod: 'post', status: 401 }])
    t.same(s.op.userinfoRequests, [], 'no userinfo call after a failed exchange')
  })
})

t.test('oidc_token_exchange_failed: a wrong secret, a 405, a non-JSON answer, a 5xx', async (t) => {
  const wrong = await setup(t, { sso: true, env: { OIDC_CLIENT_SECRET: 'not-the-registered-secret' } })
  refused(t, await wrong.login(), 'oidc_token_exchange_failed')
  t.match(wrong.op.tokenRequests, [{ authMethod: 'post', status: 401 }])

  const s = await mainSite()
  for (const override of [
    { status: 405, body: 'Method Not Allowed' },
    { status: 200, body: '<html>not a token endpoint</html>', contentType: 'text/html' },
    { status: 503, body: { error: 'temporarily_unavailable' } }
  ]) {
    s.op.tokenOverride = override
    refused(t, await s.login(), 'oidc_token_exchange_failed')
  }
})

t.test('oidc_userinfo_failed: failing, 405, non-JSON, not an object, another subject', async (t) => {
  const s = await mainSite()
  for (const override of [
    { status: 500, body: { error: 'server_error' } },
    { status: 405, body: 'Method Not Allowed' },
    { status: 200, body: '<html>login page</html>', contentType: 'text/html' },
    { status: 200, body: '["alice"]', contentType: 'application/json' },
    { status: 200, body: { sub: 'mallory', chat_id: ALICE_ID } }
  ]) {
    s.op.userinfoOverride = override
    refused(t, await s.login(), 'oidc_userinfo_failed')
  }
})

t.test('identity mapping', async (t) => {
  const s = await mainSite()
  s.op.userinfoOverride = { body: { preferred_username: 'alice', email: 'alice@example.org' } }
  refused(t, await s.login(), 'oidc_no_identity')
  s.op.userinfoOverride = { body: { chat_id: ' ', nickname: 'alice' } }
  refused(t, await s.login(), 'oidc_no_identity')

  s.op.userinfoOverride = { body: `{"sub":"alice","chat_id":${ALICE_ID},"preferred_username":"alice"}`, contentType: 'application/json' }
  t.equal(claimsOf(s, await s.login()).userId, ALICE_ID, 'a numeric claim keeps every digit of a chat-platform id')

  s.op.userinfoOverride = null
  s.op.accounts.set(BOB_ID, { preferred_username: 'bob' })
  s.op.nextAccount = BOB_ID
  await seedHuman(s, { id: BOB_ID })
  t.match(claimsOf(s, await s.login()), { userId: BOB_ID, username: 'bob' }, 'without the claim, sub is the user id')
})

t.test('the shared pipeline: unknown user, blocked account, engine down', async (t) => {
  const s = await mainSite()
  s.op.nextAccount = 'bob'
  refused(t, await s.login(), 'user_not_registered')
  await seedHuman(s, { id: BOB_ID, adminDisable: true })
  refused(t, await s.login(), 'account_blocked')
  s.engine.failWith({ drop: true })
  refused(t, await s.login(), 'engine_unavailable')
})

t.test('sign-in mode gate: non-admins only in SSO mode, admins always', async (t) => {
  const s = await mainSite()
  await seedHuman(s, { id: CAROL_ID })
  await seedHuman(s, { id: BOB_ID })
  for (const value of [null, 'false', 'TRUE']) {
    await s.setting('enable_oidc', value)
    refused(t, await s.login(), 'oidc_disabled')
  }

  s.op.nextAccount = 'carol'
  t.match(claimsOf(s, await s.login()), { userId: CAROL_ID, isAdmin: 'true' }, 'PORACLE_ADMIN_IDS bypasses the gate')
  s.op.nextAccount = 'bob'
  s.engine.set({ admins: { discord: [BOB_ID], telegram: [] } })
  t.match(claimsOf(s, await s.login()), { userId: BOB_ID, isAdmin: 'true' }, 'an admin of the engine\'s configuration bypasses it')
})

t.test('role gating with the chat platform', async (t) => {
  const GUILD = '300000000000000001'
  const ROLE = '400000000000000001'

  t.test('each outcome of the member lookup; admins and other identity types are not gated', async (t) => {
    const platform = await startChatPlatformFake()
    t.teardown(() => platform.close())
    const s = await setup(t, { sso: true, env: { DISCORD_API_URL: platform.url, DISCORD_BOT_TOKEN: platform.botToken, DISCORD_GUILD_ID: GUILD } })
    await s.setting('enable_roles', 'true')
    await s.setting('allowed_role_ids', `"${ROLE}", 500000000000000001`)

    platform.setMember(GUILD, ALICE_ID, ['999', ROLE])
    signedIn(t, await s.login())
    platform.setMember(GUILD, ALICE_ID, ['999'])
    refused(t, await s.login(), 'missing_required_role')
    platform.removeMember(GUILD, ALICE_ID)
    refused(t, await s.login(), 'not_in_guild')
    platform.failures.member = 'server_error'
    refused(t, await s.login(), 'role_check_failed')
    delete platform.failures.member
    platform.guilds.delete(GUILD)
    refused(t, await s.login(), 'role_check_failed')
    t.ok(platform.requests.every((r) => r.headers.authorization === `Bot ${platform.botToken}`), 'asked with the bot token')

    await seedHuman(s, { id: BOB_ID, type: 'telegram:user' })
    s.op.nextAccount = 'bob'
    signedIn(t, await s.login())
    s.op.nextAccount = 'carol'
    await seedHuman(s, { id: CAROL_ID })
    s.engine.set({ admins: { discord: [CAROL_ID], telegram: [] } })
    signedIn(t, await s.login())

    s.op.nextAccount = 'alice'
    await s.setting('allowed_role_ids', 'moderators, "admins"')
    refused(t, await s.login(), 'role_check_failed')
  })

  t.test('no bot token: fails closed', async (t) => {
    const s = await mainSite()
    await s.setting('enable_roles', 'true')
    await s.setting('allowed_role_ids', ROLE)
    refused(t, await s.login(), 'role_check_failed')
  })
})

t.test('state: missing, wrong, duplicated, forged, reused, expired', async (t) => {
  const s = await mainSite()
  refused(t, await s.login(tamper((url) => url.searchParams.delete('state'))), 'oidc_invalid_state')
  refused(t, await s.login(tamper((url) => url.searchParams.set('state', 'A'.repeat(43)))), 'oidc_invalid_state')
  refused(t, await s.login(tamper((url) => url.searchParams.append('state', url.searchParams.get('state') ?? ''))), 'oidc_invalid_state')
  refused(t, await s.login(tamper((_url, cookies) => cookies.delete('oidc_state'))), 'oidc_invalid_state')
  refused(t, await s.login(tamper((_url, cookies) => {
    cookies.set('oidc_state', (cookies.get('oidc_state') ?? '').replace(/.$/, (c) => c === 'A' ? 'B' : 'A'))
  })), 'oidc_invalid_state')
  t.same(s.op.tokenRequests, [], 'no code was redeemed for any of them')

  const flow = await s.login()
  signedIn(t, flow)
  const replay = await flow.replayCallback()
  t.equal(replay.location, `${SELF}/login#error=oidc_invalid_state`, 'a replayed callback is refused')
  t.equal(s.op.tokenRequests.length, 1, 'and never reaches the provider')

  refused(t, await s.login(tamper(() => { s.clock.advance(601_000) })), 'oidc_invalid_state')
})

t.test('PKCE: the verifier is required and checked by the provider', async (t) => {
  const s = await mainSite()
  refused(t, await s.login(tamper((_url, cookies) => cookies.delete('oidc_verifier'))), 'oidc_invalid_state')
  t.same(s.op.tokenRequests, [], 'a missing verifier fails before the exchange')

  const wrong = randomBytes(32).toString('base64url')
  refused(t, await s.login(tamper((_url, cookies) => cookies.set('oidc_verifier', sign(wrong, cookieSecret(JWT_SECRET))))), 'oidc_token_exchange_failed')
  t.match(s.op.tokenRequests, [{ codeVerifier: wrong, status: 400 }], 'the provider refused a wrong verifier')
  t.match(s.op.grantErrors, [{ error: 'invalid_grant' }])

  const off = await setup(t, { sso: true, env: { OIDC_USE_PKCE: 'false' } })
  const flow = await off.login()
  t.equal(authorizeParams(flow).get('code_challenge'), null, 'OIDC_USE_PKCE=false: no challenge')
  t.notOk(setCookies(flow).some((c) => /^oidc_verifier=[^;]/.test(c)), 'and no verifier cookie')
  refused(t, flow, 'oidc_provider_error')
})

t.test('oidc_provider_error and missing_code', async (t) => {
  const s = await mainSite()
  s.op.disableAccount('alice')
  refused(t, await s.login(), 'oidc_provider_error')
  s.op.enableAccount('alice')

  refused(t, await s.login(tamper((url) => url.searchParams.delete('code'))), 'missing_code')
  refused(t, await s.login(tamper((url) => url.searchParams.set('code', ''))), 'missing_code')
  refused(t, await s.login(tamper((url) => url.searchParams.append('code', 'again'))), 'missing_code')
})

t.test('issuer handling', async (t) => {
  const s = await mainSite()
  const flow = await s.login()
  t.equal(new URL(flow.callbackUrl ?? '').searchParams.get('iss'), s.op.issuer, 'no OIDC_ISSUER: the callback iss is the issuer')
  signedIn(t, flow)
  signedIn(t, await s.login(tamper((url) => url.searchParams.delete('iss'))))
  t.pass('no iss in the callback: the id_token names the issuer')
  refused(t, await s.login(tamper((url) => url.searchParams.set('iss', 'https://attacker.example'))), 'oidc_token_exchange_failed')
  t.pass('a forged iss is caught by the id_token check')

  const other = await setup(t, { sso: true, envFrom: (op) => ({ OIDC_ISSUER: `${op.issuer}/` }) })
  refused(t, await other.login(), 'oidc_provider_error')
  t.same(other.op.tokenRequests, [], 'OIDC_ISSUER differs from the callback iss: refused before the code is spent')
})

t.test('redirect URI', async (t) => {
  t.test('from PUBLIC_URL', async (t) => {
    const s = await setup(t, { sso: true, env: { PUBLIC_URL: PUBLIC } })
    const flow = await s.login({ serviceUrl: PUBLIC })
    t.equal(authorizeParams(flow).get('redirect_uri'), `${PUBLIC}/api/auth/oidc/callback`)
    t.ok(setCookies(flow).every((c) => c.includes('; Secure')), 'cookies Secure on https')
    signedIn(t, flow, PUBLIC)
  })

  t.test('from a trusted proxy\'s forwarded protocol', async (t) => {
    const s = await setup(t, { sso: true, env: { PROXY_KNOWN_PROXIES: '127.0.0.1' } })
    const flow = await s.login({ serviceUrl: 'https://localhost', headers: { 'x-forwarded-proto': 'https' } })
    t.equal(authorizeParams(flow).get('redirect_uri'), 'https://localhost/api/auth/oidc/callback')
    signedIn(t, flow, 'https://localhost')
  })

  t.test('plain http and a warning when the proxy is not trusted', async (t) => {
    const s = await mainSite()
    const flow = await s.login({ headers: { 'x-forwarded-proto': 'https' } })
    t.equal(authorizeParams(flow).get('redirect_uri'), CALLBACK)
    t.ok(s.logs.some((l) => /X-Forwarded-Proto received from an untrusted peer/.test(String(l.msg))), 'warning logged')
  })
})

t.test('the offline-access scope rule', async (t) => {
  const base = { JWT_SECRET, CORS_ORIGIN: PUBLIC, OIDC_CLIENT_ID: 'c', OIDC_AUTHORIZATION_URL: 'https://op.example/auth', OIDC_TOKEN_URL: 'https://op.example/token', OIDC_USERINFO_URL: 'https://op.example/me' }
  const cases: Array<[string, Record<string, string>, string]> = [
    ['refresh on, scope absent: appended', { OIDC_USE_REFRESH_TOKENS: 'true' }, 'openid profile email offline_access'],
    ['refresh on, scope present: not repeated', { OIDC_USE_REFRESH_TOKENS: 'true', OIDC_SCOPES: 'openid offline_access profile' }, 'openid offline_access profile'],
    ['refresh off, scope absent: not added', {}, 'openid profile email'],
    ['refresh off, scope present: as configured', { OIDC_SCOPES: 'openid  offline_access' }, 'openid offline_access'],
    ['refresh on, empty variable: nothing appended', { OIDC_USE_REFRESH_TOKENS: 'true', OIDC_OFFLINE_ACCESS_SCOPE: '' }, 'openid profile email'],
    ['refresh on, another scope name', { OIDC_USE_REFRESH_TOKENS: 'true', OIDC_OFFLINE_ACCESS_SCOPE: 'offline' }, 'openid profile email offline']
  ]
  for (const [name, env, scope] of cases) {
    const app = Fastify()
    await app.register(configPlugin, { config: loadConfig({ ...base, ...env }) })
    await app.register(clockPlugin)
    await app.register(oidcClientPlugin)
    t.equal(app.oidcClient.scope(), scope, name)
    await app.close()
  }
  // The rule as it reaches the provider is checked on a real app in 'refresh sessions on, break-glass on'.
})

t.test('the client calls used for renewal: refresh, userinfo, mapIdentity, revoke', async (t) => {
  const redirectUri = 'http://127.0.0.1:9/cb'
  const op = await startOidcProvider({
    redirectUris: [redirectUri],
    accounts: { alice: ALICE },
    nextAccount: 'alice',
    tokenEndpointAuthMethod: 'client_secret_basic'
  })
  t.teardown(() => op.close())
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(configPlugin, {
    config: loadConfig({
      JWT_SECRET,
      CORS_ORIGIN: PUBLIC,
      OIDC_CLIENT_ID: op.clientId,
      OIDC_CLIENT_SECRET: op.clientSecret,
      OIDC_TOKEN_AUTH_METHOD: 'client_secret_basic',
      OIDC_AUTHORIZATION_URL: op.authorizationUrl,
      OIDC_TOKEN_URL: op.tokenUrl,
      OIDC_USERINFO_URL: op.userinfoUrl,
      OIDC_REVOCATION_URL: op.revocationUrl,
      OIDC_SCOPES: 'openid profile offline_access'
    })
  })
  await app.register(clockPlugin)
  await app.register(oidcClientPlugin)
  const client = app.oidcClient

  // Through the provider as a browser would, up to the redirect back.
  const { url, state, verifier } = await client.startLogin(redirectUri)
  const jar = new CookieJar()
  let next = new URL(url)
  while (!next.href.startsWith(redirectUri)) {
    const res = await fetch(next, { redirect: 'manual', headers: { cookie: jar.header(next.origin) ?? '' } })
    jar.store(next.origin, res.headers.getSetCookie())
    next = new URL(res.headers.get('location') ?? '', next)
  }
  next.searchParams.delete('iss')
  const callback = await client.validateCallback(next.searchParams, state)
  t.equal(callback.issuer, '', 'no iss and no OIDC_ISSUER: not known yet')
  const login = await client.exchangeCode(callback.params, { issuer: callback.issuer, redirectUri, ...(verifier !== undefined && { verifier }) })
  t.equal(login.issuer, op.issuer, 'taken from the id_token of the configured token endpoint')
  t.equal(login.idTokenSubject, 'alice')
  t.type(login.refreshToken, 'string')

  const renewed = await client.refresh(login.refreshToken ?? '', login.issuer)
  t.equal(renewed.idTokenSubject, 'alice')
  t.type(renewed.refreshToken, 'string', 'the provider rotated it')
  t.match(op.tokenRequests.map((r) => [r.grantType, r.authMethod, r.status]), [['authorization_code', 'basic', 200], ['refresh_token', 'basic', 200]])
  const info = await client.userinfo(renewed.accessToken, 'alice')
  t.same(client.mapIdentity(info), { userId: ALICE_ID, subject: 'alice', username: 'alice', avatarUrl: ALICE.picture })
  await t.rejects(client.userinfo(renewed.accessToken, 'bob'), { name: 'OidcClientError', reason: 'oidc_userinfo_failed', failure: 'subject_mismatch' })
  t.throws(() => client.mapIdentity({ name: 'nobody' }), { name: 'SignInError', reason: 'oidc_no_identity' })

  await t.rejects(client.refresh(renewed.refreshToken ?? '', 'https://other.example'),
    { name: 'OidcClientError', reason: 'oidc_token_exchange_failed', failure: 'OAUTH_JWT_CLAIM_COMPARISON_FAILED' }, 'an id_token from another issuer')
  await client.revoke(renewed.refreshToken ?? '')
  await t.rejects(client.refresh(login.refreshToken ?? '', login.issuer),
    { name: 'OidcClientError', reason: 'oidc_token_exchange_failed', providerError: 'invalid_grant', transient: false }, 'a replayed provider token')
  t.match(op.revocations, [{ token: renewed.refreshToken, tokenTypeHint: 'refresh_token', authMethod: 'basic', status: 200 }])
})

t.test('refresh sessions on, break-glass on: login, providers, oidc-config, single logout', async (t) => {
  const s = await setup(t, {
    sso: true,
    envFrom: (op) => ({
      OIDC_AUTHORIZATION_URL: `${op.authorizationUrl}?tenant=main`,
      OIDC_END_SESSION_URL: `${op.endSessionUrl}?ui_locales=en`
    }),
    env: {
      OIDC_USE_REFRESH_TOKENS: 'true',
      AUTH_FORCE_LOCAL: 'true',
      OIDC_CLIENT_ID: 'alarm-web-client-1234',
      DISCORD_CLIENT_ID: '100000000000000001',
      DISCORD_CLIENT_SECRET: 'discord-secret',
      TELEGRAM_BOT_USERNAME: '@ConfigBot',
      TELEGRAM_BOT_TOKEN: 'telegram-token'
    },
    provider: { clientId: 'alarm-web-client-1234' }
  })

  t.test('the authorize request', async (t) => {
    const login = await s.get('/api/auth/oidc/login')
    t.equal(login.statusCode, 302, 'break-glass changes what the login page shows, not the endpoints')
    const params = new URL(login.headers.location as string).searchParams
    t.equal(params.get('scope'), 'openid profile email offline_access', 'offline access asked for')
    t.equal(params.get('tenant'), 'main', 'the configured query string is kept')
  })

  t.test('the callback hands the provider\'s refresh token to the refresh sessions', async (t) => {
    const flow = await s.login()
    signedIn(t, flow)
    t.match(flow.fragment.get('refresh_token'), /^[A-Za-z0-9_-]{43}$/, 'an opaque token for the browser')
    const claims = claimsOf(s, flow)
    t.equal(Number(claims.exp) - Number(claims.iat), 30 * 60, 'a short JWT (OIDC_ACCESS_TOKEN_MINUTES)')

    s.op.issueRefreshTokens = false
    const without = await s.login()
    t.equal(without.fragment.get('refresh_token'), null, 'no provider refresh token: no family')
    const plain = claimsOf(s, without)
    t.equal(Number(plain.exp) - Number(plain.iat), 1440 * 60, 'and the normal lifetime')
    s.op.issueRefreshTokens = true
  })

  t.test('providers: SSO reported off under AUTH_FORCE_LOCAL', async (t) => {
    await s.setting('telegram_bot', 'SettingBot')
    const res = await s.get('/api/auth/providers')
    t.equal(res.statusCode, 200)
    t.same(res.json(), {
      oidc: { configured: true, enabledByAdmin: false, providerName: 'Community SSO', endSession: true, refresh: true },
      discord: { configured: true, enabledByAdmin: true },
      telegram: { configured: true, enabledByAdmin: true, botUsername: 'ConfigBot' }
    })
  })

  t.test('oidc-config: admin only, client id and secret masked, forceLocal and refresh settings', async (t) => {
    const url = '/api/settings/oidc-config'
    t.equal((await s.get(url)).statusCode, 401)
    t.equal((await s.get(url, bearer(s.app, { userId: ALICE_ID }))).statusCode, 403)
    const res = await s.get(url, bearer(s.app, { userId: 'admin', isAdmin: true }))
    t.equal(res.statusCode, 200)
    t.notOk(res.body.includes(s.op.clientSecret), 'the secret never leaves')
    t.notOk(res.body.includes('alarm-web-client-1234'), 'the client id is masked too')
    t.same(res.json(), {
      configured: true,
      enabled: true,
      forceLocal: true,
      providerName: 'Community SSO',
      issuer: '',
      authorizationUrl: `${s.op.authorizationUrl}?tenant=main`,
      tokenUrl: s.op.tokenUrl,
      userInfoUrl: s.op.userinfoUrl,
      endSessionUrl: `${s.op.endSessionUrl}?ui_locales=en`,
      revocationUrl: '',
      clientId: '••••••••',
      clientSecret: '••••••••',
      scopes: 'openid profile email',
      requestedScopes: 'openid profile email offline_access',
      identityClaim: 'chat_id',
      usernameClaim: 'preferred_username',
      avatarClaim: 'picture',
      identityType: 'chat:user',
      usePkce: true,
      tokenEndpointAuthMethod: 'client_secret_post',
      useRefreshTokens: true,
      accessTokenMinutes: 30,
      refreshTokenLifetimeDays: 30,
      revokedRetentionDays: 2,
      offlineAccessScope: 'offline_access'
    })
  })

  t.test('single logout, then switched off', async (t) => {
    const res = await s.get('/api/auth/oidc/logout')
    t.equal(res.statusCode, 302)
    const location = new URL(res.headers.location as string)
    t.equal(`${location.origin}${location.pathname}`, s.op.endSessionUrl)
    t.equal(location.searchParams.get('ui_locales'), 'en', 'the configured query string is kept')
    t.equal(location.searchParams.get('post_logout_redirect_uri'), `${SELF}/login?loggedout=1`)
    t.equal(location.searchParams.get('client_id'), 'alarm-web-client-1234')
    const page = await fetch(location)
    t.equal(page.status, 200, 'the provider accepts the registered post-logout URI')
    t.notMatch(await page.text(), /invalid_request|redirect_uri/, 'no error page')

    const back = await s.get('/api/auth/oidc/logout', { referer: `${PUBLIC}/settings` })
    t.equal(new URL(back.headers.location as string).searchParams.get('post_logout_redirect_uri'), `${PUBLIC}/login?loggedout=1`, 'to the allowed origin')

    const foreign = await s.get('/api/auth/oidc/logout', { host: 'evil.example' })
    t.equal(new URL(foreign.headers.location as string).searchParams.get('post_logout_redirect_uri'), `${PUBLIC}/login?loggedout=1`,
      'a host outside the configured origins never decides a redirect')
    t.equal(s.logs.filter((l) => /neither PUBLIC_URL nor in CORS_ORIGIN/.test(String(l.msg))).length, 1, 'said once')
    const login = await s.get('/api/auth/oidc/login', { host: 'evil.example' })
    t.equal(new URL(login.headers.location as string).searchParams.get('redirect_uri'), `${PUBLIC}/api/auth/oidc/callback`, 'nor the login redirect_uri')

    await s.setting('enable_oidc_slo', 'false')
    t.equal((await s.get('/api/auth/oidc/logout')).headers.location, `${SELF}/login?loggedout=1`, 'enable_oidc_slo=false: local only')
    t.equal((await s.get('/api/auth/oidc/logout', { host: 'evil.example' })).headers.location, `${PUBLIC}/login?loggedout=1`, 'the local logout too')
    t.equal((await s.get('/api/auth/providers')).json().oidc.endSession, false)
  })
})

t.test('OIDC not configured', async (t) => {
  const admin = (s: Setup) => bearer(s.app, { userId: 'admin', isAdmin: true })
  for (const [name, opts, missing] of [
    ['no OIDC variables', { configured: false, env: { OIDC_END_SESSION_URL: 'http://127.0.0.1:9/session/end', TELEGRAM_ENABLED: 'true' } },
      ['OIDC_ENABLED is false', 'OIDC_CLIENT_ID', 'OIDC_AUTHORIZATION_URL', 'OIDC_TOKEN_URL', 'OIDC_USERINFO_URL']],
    ['OIDC_ENABLED=false', { env: { OIDC_ENABLED: 'false', OIDC_END_SESSION_URL: 'http://127.0.0.1:9/session/end' } }, ['OIDC_ENABLED is false']]
  ] as Array<[string, SetupOptions, string[]]>) {
    t.test(name, async (t) => {
      const s = await setup(t, { ...opts, sso: true })
      const login = await s.get('/api/auth/oidc/login')
      t.equal(login.statusCode, 404)
      t.same(login.json(), { error: 'External login provider is not configured.' })
      const callback = await s.get('/api/auth/oidc/callback?code=abc&state=def')
      t.equal(callback.statusCode, 302)
      t.equal(callback.headers.location, `${SELF}/login#error=oidc_disabled`)
      t.equal((await s.get('/api/auth/oidc/logout')).headers.location, `${SELF}/login?loggedout=1`, 'logout is local only')
      t.match((await s.get('/api/auth/providers')).json(), {
        oidc: { configured: false, enabledByAdmin: true, endSession: false, refresh: false },
        discord: { configured: false, enabledByAdmin: true },
        telegram: { configured: false, enabledByAdmin: true, botUsername: '' }
      }, 'TELEGRAM_ENABLED without a bot token is not configured')

      const put = (payload: object) => s.app.inject({ method: 'PUT', url: '/api/settings/enable_oidc', headers: admin(s), payload })
      const refusedSwitch = await put({ value: 'true', confirm: true })
      t.equal(refusedSwitch.statusCode, 409, 'SSO mode needs a configured provider')
      t.same(refusedSwitch.json().missing, missing)
      t.match(refusedSwitch.json().error, new RegExp(`missing: ${missing[0]}`))
      t.equal((await put({ value: 'false' })).statusCode, 200, 'switching back needs nothing')
    })
  }
})

t.test('the SSO switch: confirmation required, switching back free', async (t) => {
  const s = await mainSite()
  await s.setting('enable_oidc', null)
  const put = (payload: object) =>
    s.app.inject({ method: 'PUT', url: '/api/settings/enable_oidc', headers: bearer(s.app, { userId: 'admin', isAdmin: true }), payload })
  const unconfirmed = await put({ value: 'true' })
  t.equal(unconfirmed.statusCode, 400)
  t.match(unconfirmed.json(), { error: /send everyone straight to the sign-in provider/, confirmRequired: true })
  t.equal((await put({ value: 'true', confirm: false })).statusCode, 400)
  t.equal(await s.app.siteSettings.get('enable_oidc'), undefined, 'nothing written')
  t.equal((await put({ value: 'true', confirm: true })).statusCode, 200)
  t.equal(await s.app.siteSettings.get('enable_oidc'), 'true')
  t.equal((await put({ value: 'false' })).statusCode, 200, 'back to Local without confirmation')
  t.equal((await put({ value: null })).statusCode, 200)
  t.equal((await put({ value: 'true' })).statusCode, 400, 'and on again only with it')
})

t.test('providers in Local and SSO mode', async (t) => {
  const s = await mainSite()
  const providers = async () => (await s.get('/api/auth/providers')).json()
  t.same(await providers(), {
    oidc: { configured: true, enabledByAdmin: true, providerName: 'Community SSO', endSession: false, refresh: false },
    discord: { configured: false, enabledByAdmin: true },
    telegram: { configured: false, enabledByAdmin: true, botUsername: '' }
  }, 'SSO mode')
  await s.setting('enable_oidc', 'false')
  await s.setting('enable_discord', 'false')
  await s.setting('enable_telegram', 'true')
  await s.setting('telegram_bot', ' @AlarmBot ')
  t.same(await providers(), {
    oidc: { configured: true, enabledByAdmin: false, providerName: 'Community SSO', endSession: false, refresh: false },
    discord: { configured: false, enabledByAdmin: false },
    telegram: { configured: false, enabledByAdmin: true, botUsername: 'AlarmBot' }
  }, 'Local mode')
})

t.test('return origin: the Referer only when it is an allowed CORS origin', async (t) => {
  const s = await mainSite()
  signedIn(t, await s.login({ headers: { referer: `${PUBLIC}/login` } }), PUBLIC)
  signedIn(t, await s.login({ headers: { referer: 'https://evil.example/login' } }), SELF)
  t.pass('a foreign Referer is ignored: no open redirect')

  await s.setting('enable_oidc', 'false')
  refused(t, await s.login({ headers: { referer: `${PUBLIC}/some/page?x=1` } }), 'oidc_disabled', PUBLIC)
  refused(t, await s.login({ headers: { referer: 'https://alarms.example.org.evil.example/' } }), 'oidc_disabled', SELF)
  refused(t, await s.login({ headers: { referer: 'javascript:alert(1)//alarms.example.org' } }), 'oidc_disabled', SELF)
})

t.test('bad input: a redirect with a code from the callback, a 4xx elsewhere, never a 500', async (t) => {
  const s = await mainSite()
  for (const query of ['', '?code=%zz&state=%', '?state[]=x&code[]=y', '?code=a&code=b&state=c&state=d', `?code=${'x'.repeat(5000)}`, '?error=%00%0d%0a&state=1', '?iss=javascript:alert(1)']) {
    const res = await s.get(`/api/auth/oidc/callback${query}`)
    t.equal(res.statusCode, 302, `callback${query.slice(0, 40)}`)
    t.match(res.headers.location, /^http:\/\/localhost\/login#error=[a-z_]+$/)
  }
  const garbage = { referer: 'javascript:alert(1)', cookie: 'oidc_state=%%%; oidc_verifier=' }
  for (const url of ['/api/auth/oidc/login', '/api/auth/oidc/logout', '/api/auth/oidc/callback?code=x&state=y']) {
    const res = await s.get(url, garbage)
    t.equal(res.statusCode, 302, url)
    t.ok(String(res.headers.location).startsWith(url.includes('login') ? s.op.authorizationUrl : `${SELF}/login`))
  }
  t.equal((await s.get('/api/auth/providers?x[]=1')).statusCode, 200)
  t.equal((await s.get('/api/settings/oidc-config', { authorization: 'Bearer garbage' })).statusCode, 401)
  const admin = bearer(s.app, { userId: 'admin', isAdmin: true })
  for (const payload of [{ value: 5 }, { value: 'true', confirm: 'yes' }, { nope: 1 }]) {
    const res = await s.app.inject({ method: 'PUT', url: '/api/settings/enable_oidc', headers: admin, payload })
    t.equal(res.statusCode, 400, JSON.stringify(payload))
  }
})

t.test('secrets in logs and the rate limit', async (t) => {
  const s = await setup(t, { sso: true, logLevel: 'trace', config: { RATE_LIMIT_AUTH_MAX: 12 }, env: { OIDC_SCOPES: 'openid profile offline_access' } })

  t.test('no code, token, state, verifier or secret in any log line', async (t) => {
    const flow = await s.login()
    const failed = await s.login(tamper((url) => url.searchParams.set('iss', 'https://attacker.example')))
    s.op.userinfoOverride = { status: 500, body: { error: 'boom' } }
    refused(t, await s.login(), 'oidc_userinfo_failed')
    s.op.userinfoOverride = null
    const callback = new URL(flow.callbackUrl ?? '')
    const secrets = {
      code: callback.searchParams.get('code'),
      'code of the failed exchange': new URL(failed.callbackUrl ?? '').searchParams.get('code'),
      state: callback.searchParams.get('state'),
      verifier: s.op.tokenRequests[0]?.codeVerifier,
      'access token': s.op.userinfoRequests[0]?.accessToken,
      'access token of the failed userinfo': s.op.userinfoRequests.at(-1)?.accessToken,
      jwt: flow.fragment.get('token'),
      'client secret': s.op.clientSecret
    }
    const logs = s.rawLogs()
    t.match(logs, /OIDC sign-in"/, 'the flows were logged')
    for (const [name, value] of Object.entries(secrets)) {
      t.ok(typeof value === 'string' && value.length > 10, `${name} captured`)
      t.notOk(logs.includes(value as string), `${name} never logged`)
    }
  })

  t.test('a rate-limited callback is a redirect too', async (t) => {
    let res
    for (let i = 0; i < 12; i++) res = await s.get('/api/auth/oidc/callback?code=x&state=y')
    t.equal(res?.headers.location, `${SELF}/login#error=rate_limited`)
    t.equal(res?.statusCode, 302)
  })
})
