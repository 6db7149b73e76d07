import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import * as oauth from 'oauth4webapi'
import { CookieJar, followLogin, type ServiceInject } from './fakes/browser-flow.js'
import { startChatPlatformFake, type ChatPlatformFake } from './fakes/chat-platform.js'
import {
  startOidcProvider,
  type OidcProviderHandle,
  type OidcProviderOptions,
  type TokenEndpointAuthMethod,
} from './fakes/oidc-provider.js'

// The relying party's redirect URI in the provider-only tests; nothing listens there, the flow stops at it.
const REDIRECT_URI = 'http://127.0.0.1:9/cb'
const ALICE = { chat_id: '111111111111111111', preferred_username: 'alice', picture: 'https://cdn.example/alice.png', email: 'alice@example.org' }
const insecure = { [oauth.allowInsecureRequests]: true }
const invalidGrant = { code: oauth.RESPONSE_BODY_ERROR, error: 'invalid_grant' }

async function startProvider (t: Test, opts: Partial<OidcProviderOptions> = {}): Promise<OidcProviderHandle> {
  const op = await startOidcProvider({
    redirectUris: [REDIRECT_URI],
    postLogoutRedirectUris: ['http://127.0.0.1:9/login?loggedout=1'],
    accounts: { alice: ALICE, bob: { chat_id: '222222222222222222' } },
    nextAccount: 'alice',
    ...opts,
  })
  t.teardown(() => op.close())
  return op
}

function relyingParty (op: OidcProviderHandle, method: TokenEndpointAuthMethod = op.tokenEndpointAuthMethod) {
  const as: oauth.AuthorizationServer = {
    issuer: op.issuer,
    authorization_endpoint: op.authorizationUrl,
    token_endpoint: op.tokenUrl,
    userinfo_endpoint: op.userinfoUrl,
    revocation_endpoint: op.revocationUrl,
    end_session_endpoint: op.endSessionUrl,
  }
  const client: oauth.Client = { client_id: op.clientId }
  const auth = method === 'client_secret_basic' ? oauth.ClientSecretBasic(op.clientSecret) : oauth.ClientSecretPost(op.clientSecret)
  return { as, client, auth }
}

/** Follows the authorization request through the provider until it redirects to `redirectUri`. */
async function authorize (url: URL, redirectUri = REDIRECT_URI): Promise<URL> {
  const jar = new CookieJar()
  let next = url
  for (let hop = 0; hop < 10; hop++) {
    const cookie = jar.header(next.origin)
    const res = await fetch(next, { redirect: 'manual', headers: cookie === undefined ? {} : { cookie } })
    jar.store(next.origin, res.headers.getSetCookie())
    const location = res.headers.get('location')
    if (location === null) throw new Error(`provider answered ${res.status}: ${await res.text()}`)
    next = new URL(location, next)
    if (next.href.startsWith(redirectUri)) return next
  }
  throw new Error('too many redirects')
}

interface LoginOptions {
  scope?: string
  loginHint?: string
  method?: TokenEndpointAuthMethod
  pkce?: boolean
}

async function authorizationUrl (op: OidcProviderHandle, opts: LoginOptions, state: string, verifier: string): Promise<URL> {
  const url = new URL(op.authorizationUrl)
  url.searchParams.set('client_id', op.clientId)
  url.searchParams.set('redirect_uri', REDIRECT_URI)
  url.searchParams.set('response_type', 'code')
  url.searchParams.set('scope', opts.scope ?? 'openid profile email offline_access')
  url.searchParams.set('state', state)
  if (opts.pkce !== false) {
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier))
    url.searchParams.set('code_challenge_method', 'S256')
  }
  if (opts.loginHint !== undefined) url.searchParams.set('login_hint', opts.loginHint)
  return url
}

/** Code + PKCE login; resolves to the processed token response. */
async function login (op: OidcProviderHandle, opts: LoginOptions = {}) {
  const { as, client, auth } = relyingParty(op, opts.method)
  const state = oauth.generateRandomState()
  const verifier = oauth.generateRandomCodeVerifier()
  const callback = await authorize(await authorizationUrl(op, opts, state, verifier))
  const params = oauth.validateAuthResponse(as, client, callback, state)
  const response = await oauth.authorizationCodeGrantRequest(as, client, auth, params, REDIRECT_URI, verifier, insecure)
  return { callback, verifier, tokens: await oauth.processAuthorizationCodeResponse(as, client, response) }
}

async function refresh (op: OidcProviderHandle, refreshToken: string, method?: TokenEndpointAuthMethod) {
  const { as, client, auth } = relyingParty(op, method)
  const response = await oauth.refreshTokenGrantRequest(as, client, auth, refreshToken, insecure)
  return oauth.processRefreshTokenResponse(as, client, response)
}

async function userinfo (op: OidcProviderHandle, accessToken: string, expectedSubject: string) {
  const { as, client } = relyingParty(op)
  return oauth.processUserInfoResponse(as, client, expectedSubject, await oauth.userInfoRequest(as, client, accessToken, insecure))
}

t.test('oidc provider', async (t) => {
  t.test('code + PKCE login, then userinfo with the custom claim', async (t) => {
    const op = await startProvider(t)
    const { callback, verifier, tokens } = await login(op)

    t.equal(callback.searchParams.get('iss'), op.issuer, 'callback carries iss (RFC 9207)')
    t.equal(tokens.token_type, 'bearer')
    t.equal(tokens.expires_in, 3600)
    t.type(tokens.refresh_token, 'string', 'offline_access without prompt=consent yields a refresh token')
    t.equal(tokens.scope, 'openid profile email offline_access')
    t.equal(oauth.getValidatedIdTokenClaims(tokens)?.sub, 'alice')

    t.same(await userinfo(op, tokens.access_token, 'alice'), { sub: 'alice', ...ALICE }, 'userinfo')
    t.match(op.tokenRequests, [{ grantType: 'authorization_code', authMethod: 'post', codeVerifier: verifier, status: 200 }])
    t.equal(op.tokenRequests[0]?.params.get('redirect_uri'), REDIRECT_URI)
    t.equal(op.authorizationRequests[0]?.get('prompt'), null, 'the recorded request is the one the client sent')
    t.match(op.userinfoRequests, [{ accessToken: tokens.access_token, status: 200 }])
    t.same(op.serverErrors, [])
  })

  t.test('login_hint picks the account; no account or a disabled one is refused', async (t) => {
    const op = await startProvider(t)
    op.nextAccount = undefined
    const { tokens } = await login(op, { loginHint: 'bob' })
    t.equal(oauth.getValidatedIdTokenClaims(tokens)?.sub, 'bob')
    t.match(await userinfo(op, tokens.access_token, 'bob'), { chat_id: '222222222222222222' })

    await t.rejects(login(op), { code: oauth.AUTHORIZATION_RESPONSE_ERROR, error: 'access_denied' }, 'no login_hint and no nextAccount')
    op.disableAccount('bob')
    await t.rejects(login(op, { loginHint: 'bob' }), { code: oauth.AUTHORIZATION_RESPONSE_ERROR, error: 'access_denied' }, 'disabled account cannot sign in')
  })

  t.test('PKCE is required', async (t) => {
    const op = await startProvider(t)
    const { as, client } = relyingParty(op)
    const state = oauth.generateRandomState()
    const callback = await authorize(await authorizationUrl(op, { pkce: false }, state, ''))
    t.throws(() => oauth.validateAuthResponse(as, client, callback, state), { code: oauth.AUTHORIZATION_RESPONSE_ERROR, error: 'invalid_request' })
  })

  t.test('without offline_access no refresh token', async (t) => {
    const op = await startProvider(t)
    const { tokens } = await login(op, { scope: 'openid profile' })
    t.equal(tokens.refresh_token, undefined)
  })

  t.test('issueRefreshTokens = false models a provider that returns none', async (t) => {
    const op = await startProvider(t, { issueRefreshTokens: false })
    t.equal((await login(op)).tokens.refresh_token, undefined)
    op.issueRefreshTokens = true
    t.type((await login(op)).tokens.refresh_token, 'string', 'switchable at runtime')
  })

  t.test('refresh with rotation: new token each time, replay kills the grant', async (t) => {
    const op = await startProvider(t)
    const first = (await login(op)).tokens.refresh_token as string
    const second = await refresh(op, first)
    t.type(second.refresh_token, 'string')
    t.not(second.refresh_token, first, 'rotated')
    t.equal(oauth.getValidatedIdTokenClaims(second)?.sub, 'alice')
    t.match(await userinfo(op, second.access_token, 'alice'), ALICE, 'new access token works')

    await t.rejects(refresh(op, first), invalidGrant, 'replay of the rotated token')
    t.match(op.grantErrors, [{ error: 'invalid_grant', detail: 'refresh token already used' }])
    await t.rejects(refresh(op, second.refresh_token as string), invalidGrant, 'replay revoked the newest token too')
    t.match(op.tokenRequests.map((r) => [r.grantType, r.status]),
      [['authorization_code', 200], ['refresh_token', 200], ['refresh_token', 400], ['refresh_token', 400]])
  })

  t.test('refresh without rotation returns the same, reusable token', async (t) => {
    const op = await startProvider(t, { rotateRefreshTokens: false })
    const token = (await login(op)).tokens.refresh_token as string
    t.equal((await refresh(op, token)).refresh_token, token)
    t.equal((await refresh(op, token)).refresh_token, token, 'reusable')
    op.rotateRefreshTokens = true
    t.not((await refresh(op, token)).refresh_token, token, 'switchable at runtime')
  })

  t.test('a disabled account fails refresh and userinfo', async (t) => {
    const op = await startProvider(t)
    const { tokens } = await login(op)
    op.disableAccount('alice')
    await t.rejects(refresh(op, tokens.refresh_token as string), invalidGrant)
    await t.rejects(userinfo(op, tokens.access_token, 'alice'), oauth.WWWAuthenticateChallengeError)
    op.enableAccount('alice')
    t.match(await userinfo(op, tokens.access_token, 'alice'), ALICE, 'enabled again')
  })

  t.test('a changed account is seen on the next userinfo', async (t) => {
    const op = await startProvider(t)
    const { tokens } = await login(op)
    op.accounts.set('alice', { ...ALICE, chat_id: '333333333333333333' })
    t.match(await userinfo(op, tokens.access_token, 'alice'), { sub: 'alice', chat_id: '333333333333333333' })
  })

  t.test('token lifetimes, with no clock tolerance', async (t) => {
    const op = await startProvider(t, { accessTokenTtl: 1, refreshTokenTtl: 1 })
    const { tokens } = await login(op)
    t.equal(tokens.expires_in, 1)
    // Expiry is checked in whole seconds, so one second of lifetime can take up to two to run out.
    await new Promise((resolve) => setTimeout(resolve, 2100))
    await t.rejects(userinfo(op, tokens.access_token, 'alice'), oauth.WWWAuthenticateChallengeError, 'access token expired')
    t.match(op.userinfoRequests, [{ status: 401 }])
    await t.rejects(refresh(op, tokens.refresh_token as string), invalidGrant, 'refresh token expired')
  })

  t.test('client_secret_post client: Basic is refused, post works, both recorded', async (t) => {
    const op = await startProvider(t)
    await t.rejects(login(op, { method: 'client_secret_basic' }), oauth.WWWAuthenticateChallengeError)
    t.match(op.tokenRequests, [{ grantType: 'authorization_code', authMethod: 'basic', status: 401 }])
    const { tokens } = await login(op)
    await t.rejects(refresh(op, tokens.refresh_token as string, 'client_secret_basic'), oauth.WWWAuthenticateChallengeError)
    t.type((await refresh(op, tokens.refresh_token as string)).access_token, 'string', 'the refused request consumed nothing')
    t.same(op.tokenRequests.map((r) => [r.grantType, r.authMethod, r.status]), [
      ['authorization_code', 'basic', 401],
      ['authorization_code', 'post', 200],
      ['refresh_token', 'basic', 401],
      ['refresh_token', 'post', 200],
    ])
  })

  t.test('client_secret_basic client: post is refused with invalid_client, Basic works', async (t) => {
    const op = await startProvider(t, { tokenEndpointAuthMethod: 'client_secret_basic', clientSecret: 'basic secret & special/chars+=%' })
    await t.rejects(login(op, { method: 'client_secret_post' }), { code: oauth.RESPONSE_BODY_ERROR, error: 'invalid_client', status: 401 })
    const { tokens } = await login(op)
    t.type((await refresh(op, tokens.refresh_token as string)).access_token, 'string')
    t.same(op.tokenRequests.map((r) => [r.grantType, r.authMethod, r.status]), [
      ['authorization_code', 'post', 401],
      ['authorization_code', 'basic', 200],
      ['refresh_token', 'basic', 200],
    ])
  })

  t.test('userinfo override', async (t) => {
    const op = await startProvider(t)
    const { tokens } = await login(op)
    const get = () => fetch(op.userinfoUrl, { headers: { authorization: `Bearer ${tokens.access_token}` } })

    op.userinfoOverride = { status: 405, body: 'Method Not Allowed' }
    let res = await get()
    t.equal(res.status, 405)
    t.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8')
    t.equal(await res.text(), 'Method Not Allowed')

    op.userinfoOverride = { body: '<html>login page</html>', contentType: 'text/html' }
    res = await get()
    t.equal(res.status, 200)
    t.equal(res.headers.get('content-type'), 'text/html')

    op.userinfoOverride = { body: '' }
    t.equal(await (await get()).text(), '', 'empty body')

    op.userinfoOverride = { body: { sub: 'alice', preferred_username: 'alice' } }
    t.same(await userinfo(op, tokens.access_token, 'alice'), { sub: 'alice', preferred_username: 'alice' }, 'no identity claim')

    op.userinfoOverride = { body: { sub: 'mallory', chat_id: ALICE.chat_id } }
    await t.rejects(userinfo(op, tokens.access_token, 'alice'), { code: oauth.JSON_ATTRIBUTE_COMPARISON }, 'changed sub')

    op.userinfoOverride = null
    t.match(await userinfo(op, tokens.access_token, 'alice'), ALICE, 'real answer again')
    t.same(op.userinfoRequests.map((r) => r.status), [405, 200, 200, 200, 200, 200])
  })

  t.test('token override answers instead of the provider', async (t) => {
    const op = await startProvider(t)
    op.tokenOverride = { status: 405, body: '<html>405 Not Allowed</html>', contentType: 'text/html' }
    await t.rejects(login(op), { code: oauth.RESPONSE_IS_NOT_JSON })
    op.tokenOverride = { status: 503, body: { error: 'temporarily_unavailable' } }
    await t.rejects(login(op), { code: oauth.RESPONSE_IS_NOT_CONFORM })
    op.tokenOverride = null
    t.type((await login(op)).tokens.access_token, 'string')
    t.same(op.tokenRequests.map((r) => r.status), [405, 503, 200])
  })

  t.test('RFC 7009 revocation of the refresh token', async (t) => {
    const op = await startProvider(t)
    const { tokens } = await login(op)
    const { as, client, auth } = relyingParty(op)
    const res = await oauth.revocationRequest(as, client, auth, tokens.refresh_token as string,
      { ...insecure, additionalParameters: { token_type_hint: 'refresh_token' } })
    t.equal(await oauth.processRevocationResponse(res), undefined)
    t.same(op.revocations, [{ token: tokens.refresh_token, tokenTypeHint: 'refresh_token', authMethod: 'post', status: 200 }])
    await t.rejects(refresh(op, tokens.refresh_token as string), invalidGrant)
    await t.rejects(userinfo(op, tokens.access_token, 'alice'), oauth.WWWAuthenticateChallengeError, 'the grant went with it')
  })

  t.test('revokeGrantsOf revokes every grant of one account', async (t) => {
    const op = await startProvider(t)
    const a1 = (await login(op)).tokens
    const a2 = (await login(op)).tokens
    const b = (await login(op, { loginHint: 'bob' })).tokens
    t.equal(op.revokeGrantsOf('alice'), 2)
    for (const tokens of [a1, a2]) {
      await t.rejects(refresh(op, tokens.refresh_token as string), invalidGrant)
      await t.rejects(userinfo(op, tokens.access_token, 'alice'), oauth.WWWAuthenticateChallengeError)
    }
    t.type((await refresh(op, b.refresh_token as string)).access_token, 'string', "bob's grant is untouched")
  })

  t.test('redirect URIs are exact and can change at runtime', async (t) => {
    const op = await startProvider(t)
    const other = 'http://127.0.0.1:9/other'
    const url = await authorizationUrl(op, {}, 'state', oauth.generateRandomCodeVerifier())
    url.searchParams.set('redirect_uri', other)
    t.equal((await fetch(url, { redirect: 'manual' })).status, 400, 'unregistered: error page, no redirect')
    op.redirectUris.push(other)
    t.match((await authorize(url, other)).searchParams.get('code'), /.+/, 'registered now')
  })

  t.test('RP-initiated logout checks the post-logout redirect URI', async (t) => {
    const op = await startProvider(t)
    const end = (uri: string) => fetch(`${op.endSessionUrl}?${new URLSearchParams({ client_id: op.clientId, post_logout_redirect_uri: uri })}`)
    t.equal((await end('http://127.0.0.1:9/login?loggedout=1')).status, 200, 'registered: confirmation page')
    t.equal((await end('http://127.0.0.1:9/elsewhere')).status, 400, 'unregistered')
  })
})

/**
 * A minimal relying party standing in for the service, so followLogin is exercised against a real
 * Fastify app (inject and HTTP) without knowing anything of the service's own routes.
 */
function standInService (op: OidcProviderHandle, chat: ChatPlatformFake): FastifyInstance {
  const { as, client, auth } = relyingParty(op)
  const app = Fastify()
  const origin = (host: string) => `http://${host}`
  /** An authorization-code request to an authorization endpoint, as a client sends it. */
  const authorizeUrl = (endpoint: string, clientId: string, redirectUri: string, extra: Record<string, string>) => {
    const url = new URL(endpoint)
    url.search = new URLSearchParams({ client_id: clientId, redirect_uri: redirectUri, response_type: 'code', ...extra }).toString()
    return url.href
  }
  const cookiesOf = (header: string | undefined) =>
    new Map((header ?? '').split('; ').filter(Boolean).map((c) => c.split('=', 2) as [string, string]))

  app.get('/api/auth/oidc/login', async (req, reply) => {
    const state = oauth.generateRandomState()
    const verifier = oauth.generateRandomCodeVerifier()
    const url = authorizeUrl(op.authorizationUrl, op.clientId, `${origin(req.host)}/api/auth/oidc/callback`, {
      scope: 'openid profile',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    })
    return reply.header('set-cookie', [`st=${state}; Path=/api/auth/oidc; HttpOnly`, `pv=${verifier}; Path=/api/auth/oidc; HttpOnly`])
      .redirect(url)
  })
  app.get('/api/auth/oidc/callback', async (req, reply) => {
    const cookies = cookiesOf(req.headers.cookie)
    const state = cookies.get('st')
    const verifier = cookies.get('pv')
    reply.header('set-cookie', ['st=; Path=/api/auth/oidc; Max-Age=0', 'pv=; Path=/api/auth/oidc; Max-Age=0'])
    if (state === undefined || verifier === undefined) return reply.redirect('/login#error=invalid_state')
    try {
      const params = oauth.validateAuthResponse(as, client, new URL(req.url, origin(req.host)), state)
      const response = await oauth.authorizationCodeGrantRequest(as, client, auth, params,
        `${origin(req.host)}/api/auth/oidc/callback`, verifier, insecure)
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, response)
      const claims = await userinfo(op, tokens.access_token, oauth.getValidatedIdTokenClaims(tokens)?.sub ?? '')
      return reply.redirect(`/auth/oidc/callback#token=${String(claims['chat_id'])}`)
    } catch {
      return reply.redirect('/login#error=oidc_token_exchange_failed')
    }
  })
  app.get('/api/auth/discord/login', async (req, reply) => {
    return reply.redirect(authorizeUrl(chat.authorizeUrl, chat.clientId, `${origin(req.host)}/api/auth/discord/callback`, {
      scope: 'identify',
      prompt: 'none',
      state: 'discord-state',
    }))
  })
  app.get<{ Querystring: { code?: string } }>('/api/auth/discord/callback', async (req, reply) => {
    const token = await fetch(`${chat.url}/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({
        client_id: chat.clientId,
        client_secret: chat.clientSecret,
        grant_type: 'authorization_code',
        code: req.query.code ?? '',
        redirect_uri: `${origin(req.host)}/api/auth/discord/callback`,
      }),
    })
    if (!token.ok) return reply.redirect('/login#error=token_exchange_failed')
    const { access_token: accessToken } = await token.json() as { access_token: string }
    const me = await fetch(`${chat.url}/users/@me`, { headers: { authorization: `Bearer ${accessToken}` } })
    const { id } = await me.json() as { id: string }
    return reply.redirect(`/auth/discord/callback#token=${id}`)
  })
  return app
}

t.test('browser flow', async (t) => {
  const op = await startProvider(t, { redirectUris: ['http://localhost/api/auth/oidc/callback'] })
  const chat = await startChatPlatformFake({ users: [{ id: '444444444444444444', username: 'carol' }], nextUser: '444444444444444444' })
  t.teardown(() => chat.close())
  const app = standInService(op, chat)
  t.teardown(() => app.close())
  const serviceInject: ServiceInject = (opts) => app.inject(opts)

  t.test('through inject: login → provider → callback, fragment parsed', async (t) => {
    const flow = await followLogin({ serviceInject })
    t.equal(flow.loginResponse.status, 302)
    t.match(flow.loginResponse.location, `${op.authorizationUrl}?`)
    t.ok(flow.providerRedirects.length >= 2, 'went through the provider')
    t.ok(flow.providerRedirects.every((r) => r.url.startsWith(op.issuer)))
    const callback = new URL(flow.callbackUrl ?? '')
    t.equal(callback.origin + callback.pathname, 'http://localhost/api/auth/oidc/callback')
    t.equal(callback.searchParams.get('iss'), op.issuer)
    t.equal(flow.callbackResponse?.status, 302)
    t.equal(flow.location, `http://localhost/auth/oidc/callback#token=${ALICE.chat_id}`)
    t.equal(flow.fragment.get('token'), ALICE.chat_id)
    t.equal(flow.finalResponse, flow.callbackResponse)
    t.same([...flow.jar.get('http://localhost')], [], 'the callback cleared the state cookies')
  })

  t.test('over HTTP to a listening service', async (t) => {
    const base = await app.listen({ host: '127.0.0.1', port: 0 })
    op.redirectUris.push(`${base}/api/auth/oidc/callback`)
    const flow = await followLogin({ serviceUrl: base })
    t.equal(flow.fragment.get('token'), ALICE.chat_id)
    t.equal(flow.location, `${base}/auth/oidc/callback#token=${ALICE.chat_id}`)
  })

  t.test('beforeCallback can drop the state cookie', async (t) => {
    const flow = await followLogin({
      serviceInject,
      beforeCallback: (url, cookies) => {
        cookies.delete('st')
        return { url, cookies }
      },
    })
    t.equal(flow.fragment.get('error'), 'invalid_state')
    t.equal(flow.fragment.get('token'), null)
  })

  t.test('beforeCallback can alter the code; a replayed callback reuses a spent code', async (t) => {
    const altered = await followLogin({
      serviceInject,
      beforeCallback: (url, cookies) => {
        url.searchParams.set('code', 'forged')
        return { url, cookies }
      },
    })
    t.equal(altered.fragment.get('error'), 'oidc_token_exchange_failed')

    const flow = await followLogin({ serviceInject })
    t.equal(flow.fragment.get('token'), ALICE.chat_id)
    const replay = await flow.replayCallback()
    t.equal(replay.location, 'http://localhost/login#error=oidc_token_exchange_failed')
    t.match(op.grantErrors.at(-1), { error: 'invalid_grant', detail: 'authorization code already consumed' })
  })

  t.test('stops at a provider error page (unregistered redirect URI)', async (t) => {
    const flow = await followLogin({ serviceInject, serviceUrl: 'http://unregistered.test' })
    t.equal(flow.callbackResponse, undefined)
    t.equal(flow.finalResponse.status, 400)
    t.ok(flow.finalResponse.url.startsWith(op.authorizationUrl))
    t.equal(flow.location, undefined)
    t.equal([...flow.fragment].length, 0)
    await t.rejects(flow.replayCallback())
  })

  t.test('stops when the login does not redirect', async (t) => {
    const flow = await followLogin({ serviceInject, startPath: '/api/auth/nothing/login' })
    t.equal(flow.loginResponse.status, 404)
    t.equal(flow.finalResponse, flow.loginResponse)
    t.same(flow.providerRedirects, [])
  })

  t.test('drives the chat platform authorize page the same way', async (t) => {
    const flow = await followLogin({
      serviceInject,
      startPath: '/api/auth/discord/login',
      callbackPath: '/api/auth/discord/callback',
    })
    t.equal(flow.providerRedirects.length, 1)
    t.equal(new URL(flow.callbackUrl ?? '').searchParams.get('state'), 'discord-state')
    t.equal(flow.fragment.get('token'), '444444444444444444')
  })
})

t.test('chat platform fake', async (t) => {
  const redirectUri = 'http://127.0.0.1:9/api/auth/discord/callback'
  const GUILD = '900000000000000000'
  const user = { id: '555555555555555555', username: 'dave', global_name: 'Dave', avatar: 'a1b2c3' }

  async function start (t: Test) {
    const chat = await startChatPlatformFake({ redirectUris: [redirectUri], users: [user], nextUser: user.id })
    t.teardown(() => chat.close())
    return chat
  }
  const exchange = (chat: ChatPlatformFake, form: Record<string, string>) => fetch(`${chat.url}/oauth2/token`, {
    method: 'POST',
    body: new URLSearchParams({
      client_id: chat.clientId,
      client_secret: chat.clientSecret,
      grant_type: 'authorization_code',
      redirect_uri: redirectUri,
      ...form,
    }),
  })
  const member = (chat: ChatPlatformFake, userId: string, authorization = `Bot ${chat.botToken}`, guild = GUILD) =>
    fetch(`${chat.url}/guilds/${guild}/members/${userId}`, { headers: { authorization } })

  t.test('authorize → token → users/@me', async (t) => {
    const chat = await start(t)
    const authorizeUrl = `${chat.authorizeUrl}?${new URLSearchParams({
      client_id: chat.clientId, redirect_uri: redirectUri, response_type: 'code', scope: 'identify', prompt: 'none', state: 's1',
    })}`
    const page = await fetch(authorizeUrl, { redirect: 'manual' })
    t.equal(page.status, 302)
    const back = new URL(page.headers.get('location') ?? '')
    t.equal(back.origin + back.pathname, redirectUri)
    t.equal(back.searchParams.get('state'), 's1')
    const code = back.searchParams.get('code') ?? ''

    const token = await exchange(chat, { code })
    t.equal(token.status, 200)
    const body = await token.json() as Record<string, unknown>
    t.match(body, { access_token: /.+/, token_type: 'Bearer', expires_in: 604800, refresh_token: /.+/, scope: 'identify' })

    const me = await fetch(`${chat.url}/users/@me`, { headers: { authorization: `Bearer ${String(body['access_token'])}` } })
    t.equal(me.status, 200)
    t.match(await me.json(), { id: user.id, username: 'dave', global_name: 'Dave', avatar: 'a1b2c3', discriminator: '0' })

    const again = await exchange(chat, { code })
    t.equal(again.status, 400)
    t.same(await again.json(), { error: 'invalid_grant', error_description: 'Invalid "code" in request.' }, 'codes are single-use')
    t.same(chat.requests.map((r) => `${r.method} ${r.path.split('?')[0] ?? ''}`),
      ['GET /oauth2/authorize', 'POST /oauth2/token', 'GET /users/@me', 'POST /oauth2/token'])
    t.equal(new URLSearchParams(chat.requests[1]?.body).get('code'), code, 'request bodies are recorded')
  })

  t.test('authorize refusals', async (t) => {
    const chat = await start(t)
    const go = (query: Record<string, string>) => fetch(`${chat.authorizeUrl}?${new URLSearchParams({
      client_id: chat.clientId, redirect_uri: redirectUri, response_type: 'code', state: 's', ...query,
    })}`, { redirect: 'manual' })
    t.equal((await go({ redirect_uri: 'http://evil.test/cb' })).status, 400, 'unregistered redirect_uri: no redirect')
    t.equal((await go({ client_id: '1' })).status, 400, 'unknown client')
    chat.nextUser = undefined
    const denied = new URL((await go({})).headers.get('location') ?? '')
    t.equal(denied.searchParams.get('error'), 'access_denied')
    t.equal(denied.searchParams.get('state'), 's')
  })

  t.test('token endpoint errors', async (t) => {
    const chat = await start(t)
    const code = chat.issueCode(user.id, redirectUri)
    let res = await exchange(chat, { code, client_secret: 'wrong' })
    t.equal(res.status, 401)
    t.same(await res.json(), { error: 'invalid_client' })
    res = await exchange(chat, { code, redirect_uri: 'http://127.0.0.1:9/other' })
    t.equal(res.status, 400)
    t.same(await res.json(), { error: 'invalid_grant', error_description: 'Invalid "redirect_uri" in request.' })
    res = await exchange(chat, { code, grant_type: 'client_credentials' })
    t.same(await res.json(), { error: 'unsupported_grant_type' })

    const basic = Buffer.from(`${chat.clientId}:${chat.clientSecret}`).toString('base64')
    res = await fetch(`${chat.url}/oauth2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}` },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }),
    })
    t.equal(res.status, 200, 'client credentials as HTTP Basic')
    t.equal((await fetch(`${chat.url}/users/@me`, { headers: { authorization: 'Bearer nope' } })).status, 401)
    const versioned = await fetch(`${chat.url}/v10/users/@me`, { headers: { authorization: 'Bearer nope' } })
    t.equal(versioned.status, 401, 'versioned paths are the same routes')
    const unknown = await fetch(`${chat.url}/users/@me/guilds`)
    t.equal(unknown.status, 404)
    t.same(await unknown.json(), { message: '404: Not Found', code: 0 })
  })

  t.test('guild member lookup', async (t) => {
    const chat = await start(t)
    chat.setMember(GUILD, user.id, ['700000000000000001', '700000000000000002'])

    let res = await member(chat, user.id)
    t.equal(res.status, 200)
    t.match(await res.json(), { user: { id: user.id }, roles: ['700000000000000001', '700000000000000002'] })

    res = await member(chat, '666666666666666666')
    t.equal(res.status, 404)
    t.same(await res.json(), { message: 'Unknown Member', code: 10007 })

    res = await member(chat, user.id, 'Bot wrong-token')
    t.equal(res.status, 401)
    t.equal((await member(chat, user.id, `Bearer ${chat.botToken}`)).status, 401, 'a bot token needs the Bot scheme')

    res = await member(chat, user.id, undefined, '900000000000000009')
    t.equal(res.status, 403, 'a guild the bot is not in')
    t.same(await res.json(), { message: 'Missing Access', code: 50001 })

    chat.removeMember(GUILD, user.id)
    t.equal((await member(chat, user.id)).status, 404, 'removed')
    t.equal(chat.requests[0]?.headers.authorization, `Bot ${chat.botToken}`, 'headers are recorded')
  })

  t.test('failure switches', async (t) => {
    const chat = await start(t)
    chat.setMember(GUILD, user.id, [])
    chat.failures.member = 'server_error'
    t.equal((await member(chat, user.id)).status, 500)
    chat.failures.member = 'garbage'
    const garbage = await member(chat, user.id)
    t.equal(garbage.status, 200)
    await t.rejects(garbage.json(), SyntaxError)
    chat.failures.member = 'rate_limited'
    const limited = await member(chat, user.id)
    t.equal(limited.status, 429)
    t.match(await limited.json(), { retry_after: Number, global: false })
    chat.failures.member = 'hang'
    await t.rejects(fetch(`${chat.url}/guilds/${GUILD}/members/${user.id}`, {
      headers: { authorization: `Bot ${chat.botToken}` },
      signal: AbortSignal.timeout(200),
    }), { name: 'TimeoutError' })
    delete chat.failures.member
    t.equal((await member(chat, user.id)).status, 200, 'switched off')
  })
})

t.test('chat platform forum calls refuse what Discord refuses', async (t) => {
  const chat = await startChatPlatformFake()
  t.teardown(() => chat.close())
  const forum = chat.addForum('1200000000000000001', [{ name: 'Kept' }])
  const call = async (method: string, path: string, body?: unknown, token = chat.botToken) => {
    const res = await fetch(`${chat.url}/v10${path}`, {
      method,
      headers: { authorization: `Bot ${token}`, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) })
    })
    return { status: res.status, body: await res.json() as Record<string, unknown> }
  }
  t.equal((await call('GET', `/channels/${forum.id}`, undefined, 'wrong')).status, 401, 'the bot token is required')
  t.match(await call('GET', '/channels/1', undefined), { status: 404, body: { code: 10003 } })
  const kept = forum.availableTags[0]
  const edited = await call('PATCH', `/channels/${forum.id}`, { available_tags: [kept, { name: 'New', emoji_name: '✅' }] })
  t.equal(edited.status, 200)
  t.match(edited.body.available_tags, [{ id: kept?.id, name: 'Kept' }, { id: /^\d+$/, name: 'New', emoji_name: '✅' }], 'a tag without an id is created')
  t.match(await call('PATCH', `/channels/${forum.id}`, { available_tags: [{ id: '5', name: 'Forged' }] }), { status: 400, body: { code: 50035 } }, 'an unknown tag id')

  const message = { content: 'hello' }
  t.match(await call('POST', `/channels/${forum.id}/threads`, { name: 'Post', applied_tags: ['5'], message }), { status: 400, body: { code: 50035 } }, 'a tag of another forum')
  t.match(await call('POST', `/channels/${forum.id}/threads`, { name: 'Post' }), { status: 400, body: { code: 50035 } }, 'a forum post needs its message')
  t.match(await call('POST', `/channels/${forum.id}/threads`, { name: 'Post', message: {} }), { status: 400, body: { code: 50006 } }, 'an empty message')
  t.match(await call('POST', `/channels/${forum.id}/threads`, { name: 'Post', message, auto_archive_duration: 5 }), { status: 400, body: { code: 50035 } })
  const post = await call('POST', `/channels/${forum.id}/threads`, { name: 'Post', message, applied_tags: [kept?.id] })
  t.match(post, { status: 201, body: { type: 11, parent_id: forum.id, applied_tags: [kept?.id], message: { content: 'hello' } } })
  const threadId = String(post.body.id)
  t.equal((post.body.message as { id: string }).id, threadId, 'the opening message has the thread\'s id')

  t.equal((await call('PATCH', `/channels/${threadId}`, { archived: true })).status, 200)
  t.match(await call('PATCH', `/channels/${threadId}/messages/${threadId}`, { content: 'x' }), { status: 400, body: { code: 50083 } }, 'an archived thread refuses edits')
  t.match(await call('PATCH', `/channels/${threadId}`, { applied_tags: [] }), { status: 400, body: { code: 50083 } })
  t.equal((await call('POST', `/channels/${threadId}/messages`, { content: 'reply' })).status, 200, 'a message reopens it')
  t.notOk(chat.channels.get(threadId)?.archived)
  t.equal((await call('PATCH', `/channels/${threadId}`, { locked: true, archived: true })).status, 200)
  t.match(await call('POST', `/channels/${threadId}/messages`, { content: 'late' }), { status: 400, body: { code: 50083 } }, 'but not a locked one')
  t.match(await call('PATCH', `/channels/${threadId}/messages/1`, { content: 'x' }), { status: 404 })
})
