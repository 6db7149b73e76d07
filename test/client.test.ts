import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { browserMissing, launchChromium, testContext } from './browser.js'
import errors from '../plugins/edge/errors.js'
import spa from '../plugins/edge/spa.js'

/**
 * The built client in Debian's Chromium, against the real spa plugin and stub auth routes that answer
 * the way the API is specified to. The session logic (storage, refresh, sign-out) is what is tested.
 */
// `npm test` builds the client first; a missing build or browser is a failure, never a silent skip.
const missing = browserMissing()

if (missing !== undefined) {
  t.fail(missing)
} else {
  await browserTests()
}

/** An unsigned JWT-shaped token: the client only reads `exp` to time its proactive refresh. */
function fakeJwt (name: string, expiresInSeconds: number): string {
  const encode = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url')
  return `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode({ sub: name, exp: Math.floor(Date.now() / 1000) + expiresInSeconds })}.sig`
}

interface StubState {
  providers: {
    oidc: { configured: boolean, enabledByAdmin: boolean, providerName: string, endSession: boolean, refresh: boolean }
    discord: { configured: boolean, enabledByAdmin: boolean }
    telegram: { configured: boolean, enabledByAdmin: boolean, botUsername: string }
  }
  /** JWT → the user it signs in. */
  users: Map<string, string>
  /** Refresh token → the pair the refresh endpoint hands out for it (each usable once). */
  rotations: Map<string, { token: string, refreshToken: string }>
  /** 401s for unknown tokens are held until this many requests wait, so tabs really collide. */
  collide: number
  /** What the API saw, in order: `me <token>`, `refresh <refreshToken>`, `revoke <refreshToken>`. */
  calls: string[]
}

function freshState (): StubState {
  return {
    providers: {
      oidc: { configured: true, enabledByAdmin: false, providerName: 'Community SSO', endSession: true, refresh: true },
      discord: { configured: true, enabledByAdmin: true },
      telegram: { configured: false, enabledByAdmin: false, botUsername: '' }
    },
    users: new Map(),
    rotations: new Map(),
    collide: 1,
    calls: []
  }
}

async function startStubApi (state: { current: StubState }): Promise<FastifyInstance> {
  const app = Fastify()
  await app.register(errors)
  await app.register(spa)
  let waiting: Array<() => void> = []
  const collide = async (): Promise<void> => {
    await new Promise<void>((resolve) => {
      waiting.push(resolve)
      if (waiting.length >= state.current.collide) {
        for (const release of waiting) release()
        waiting = []
      }
      setTimeout(resolve, 5000).unref()
    })
  }

  app.get('/api/auth/providers', async () => state.current.providers)
  app.get('/api/auth/me', async (request, reply) => {
    const token = request.headers.authorization?.replace(/^Bearer /, '') ?? ''
    state.current.calls.push(`me ${token}`)
    const username = state.current.users.get(token)
    if (username === undefined) {
      await collide()
      return reply.code(401).send({ error: 'Authentication required.' })
    }
    return { id: '1001', username, type: 'discord:user', isAdmin: false, adminDisable: false, enabled: true, profileNo: 1, avatarUrl: null, managedWebhooks: [], profileName: 'Home' }
  })
  // What the signed-in frame reads besides /me: the offered alarm types, counts, profiles.
  app.get('/api/alarm-types', async () => [])
  app.get('/api/dashboard', async () => ({ monsters: 2, raids: 0, eggs: 0, quests: 0, invasions: 0, lures: 0, nests: 0, gyms: 0, fortChanges: 0, maxBattles: 0 }))
  app.get('/api/profiles', async () => [])
  app.post<{ Body: { refreshToken: string } }>('/api/auth/oidc/refresh', async (request, reply) => {
    const { refreshToken } = request.body
    state.current.calls.push(`refresh ${refreshToken}`)
    const next = state.current.rotations.get(refreshToken)
    if (next === undefined) return reply.code(401).send({ error: 'invalid_grant' })
    state.current.rotations.delete(refreshToken)
    await new Promise((resolve) => setTimeout(resolve, 100))
    return { ...next, expiresIn: 1800 }
  })
  app.post<{ Body: { refreshToken: string } }>('/api/auth/oidc/refresh/revoke', async (request, reply) => {
    state.current.calls.push(`revoke ${request.body.refreshToken}`)
    return reply.code(204).send()
  })
  app.get('/api/auth/oidc/login', async (_request, reply) => reply.type('text/html').send('<h1>Provider sign-in</h1>'))
  app.get('/api/auth/oidc/logout', async (_request, reply) => reply.redirect('/login?loggedout=1'))
  await app.listen({ host: '127.0.0.1', port: 0 })
  return app
}

async function browserTests (): Promise<void> {
  const state = { current: freshState() }
  const app = await startStubApi(state)
  const address = app.server.address()
  const base = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`
  const browser: Browser = await launchChromium()
  t.teardown(async () => {
    await browser.close()
    await app.close()
  })

  /** A fresh browser profile (its own localStorage) and stub state per test. */
  async function session (test: Test): Promise<{ context: BrowserContext, page: Page, calls: string[] }> {
    state.current = freshState()
    const context = await testContext(browser, { baseURL: base })
    test.teardown(async () => { await context.close() })
    return { context, page: await context.newPage(), calls: state.current.calls }
  }

  /** Puts tokens in storage as a sign-in would, from a page that does not call the API with them. */
  async function seed (page: Page, entries: Record<string, string>): Promise<void> {
    await page.goto('/login?loggedout=1')
    await page.evaluate((items) => { for (const [key, value] of Object.entries(items)) localStorage.setItem(key, value) }, entries)
  }

  const storage = async (page: Page): Promise<Record<string, string | null>> => await page.evaluate(() => ({
    token: localStorage.getItem('aw.token'),
    refreshToken: localStorage.getItem('aw.refreshToken')
  }))

  t.test('the login page offers the configured providers and explains a refused sign-in', async (t) => {
    const { page } = await session(t)
    await page.goto('/login#error=user_not_registered')
    const alert = page.getByRole('alert')
    await alert.waitFor()
    t.match(await alert.textContent(), /not registered with the alert bot/)
    const sso = page.getByRole('link', { name: 'Sign in with Community SSO' })
    await sso.waitFor()
    t.equal(await sso.getAttribute('href'), '/api/auth/oidc/login')
    t.equal(await page.getByRole('link', { name: 'Sign in with Discord' }).getAttribute('href'), '/api/auth/discord/login')
    t.ok(await page.getByText('Turned off for everyone except administrators.').isVisible(), 'notes that SSO is admin-only here')
  })

  t.test('SSO sites go straight to the provider, except right after signing out', async (t) => {
    const { page } = await session(t)
    state.current.providers.oidc.enabledByAdmin = true
    await page.goto('/login?loggedout=1')
    await page.getByText('You have been signed out.').waitFor()
    await page.getByRole('link', { name: 'Sign in with Community SSO' }).waitFor()
    t.equal(new URL(page.url()).pathname, '/login', 'stays on the signed-out page')
    await page.goto('/login')
    await page.waitForURL((url) => url.pathname === '/api/auth/oidc/login')
    const binding = new URL(page.url()).searchParams.get('binding') ?? ''
    t.match(binding, /^[\w-]{20,}$/, 'redirected to the SSO sign-in, with the tab\'s binding')
    t.equal(await page.evaluate(() => sessionStorage.getItem('aw.signInBinding')), binding, 'the tab keeps the value it sent')
  })

  t.test('the callback stores both tokens and lands on the signed-in home page; a reload keeps it', async (t) => {
    const { page, calls } = await session(t)
    const token = fakeJwt('ada', 1800)
    state.current.users.set(token, 'Ada Lovelace')
    // As the login button does before leaving for the provider (the server echoes the value back).
    await page.goto('/login')
    await page.evaluate(() => { sessionStorage.setItem('aw.signInBinding', 'kept-by-this-tab-0123456789') })
    await page.goto(`/auth/oidc/callback#token=${token}&refresh_token=refresh-1&binding=kept-by-this-tab-0123456789`)
    await page.waitForURL(`${base}/`)
    await page.getByRole('heading', { name: 'Hello, Ada Lovelace' }).waitFor()
    t.same(await storage(page), { token, refreshToken: 'refresh-1' })
    t.equal(new URL(page.url()).hash, '', 'the tokens left the address bar')

    const response = await page.reload()
    t.equal(response?.status(), 200)
    t.match(response?.headers()['content-type'], /text\/html/)
    t.equal(response?.headers()['cache-control'], 'no-cache')
    await page.getByRole('heading', { name: 'Hello, Ada Lovelace' }).waitFor()
    t.same(calls, [`me ${token}`, `me ${token}`])

    const deepLink = await page.goto('/some/client/route')
    t.equal(deepLink?.status(), 200, 'any page a browser opens gets the client')
    await page.getByRole('heading', { name: 'Page not found' }).waitFor()
    const api = await page.request.get('/api/nope', { headers: { accept: 'text/html' } })
    t.equal(api.status(), 404)
    t.same(await api.json(), { error: 'Route GET /api/nope not found' })
  })

  t.test('a 401 leads to exactly one refresh and one retry', async (t) => {
    const { page, calls } = await session(t)
    const stale = fakeJwt('ada', 1800)
    const renewed = fakeJwt('ada-2', 1800)
    state.current.users.set(renewed, 'Ada Lovelace')
    state.current.rotations.set('refresh-1', { token: renewed, refreshToken: 'refresh-2' })
    await seed(page, { 'aw.token': stale, 'aw.refreshToken': 'refresh-1', 'aw.signIn': 'oidc' })
    await page.goto('/')
    await page.getByRole('heading', { name: 'Hello, Ada Lovelace' }).waitFor()
    t.same(calls, [`me ${stale}`, 'refresh refresh-1', `me ${renewed}`])
    t.same(await storage(page), { token: renewed, refreshToken: 'refresh-2' })
  })

  t.test('tabs that hit a 401 together share one refresh', async (t) => {
    const { context, page, calls } = await session(t)
    const stale = fakeJwt('ada', 1800)
    const renewed = fakeJwt('ada-2', 1800)
    state.current.users.set(renewed, 'Ada Lovelace')
    state.current.rotations.set('refresh-1', { token: renewed, refreshToken: 'refresh-2' })
    state.current.collide = 2
    await seed(page, { 'aw.token': stale, 'aw.refreshToken': 'refresh-1', 'aw.signIn': 'oidc' })
    const other = await context.newPage()
    await Promise.all([page.goto('/'), other.goto('/')])
    await page.getByRole('heading', { name: 'Hello, Ada Lovelace' }).waitFor()
    await other.getByRole('heading', { name: 'Hello, Ada Lovelace' }).waitFor()
    t.same(calls.filter((c) => c.startsWith('refresh')), ['refresh refresh-1'], 'one refresh for both tabs')
    t.same(calls.filter((c) => c === `me ${stale}`).length, 2, 'both tabs got the 401')
    t.same(calls.filter((c) => c === `me ${renewed}`).length, 2, 'both tabs retried with the new token')
  })

  t.test('a token about to expire is refreshed before the request', async (t) => {
    const { page, calls } = await session(t)
    const expiring = fakeJwt('ada', 30)
    const renewed = fakeJwt('ada-2', 1800)
    state.current.users.set(expiring, 'Ada Lovelace')
    state.current.users.set(renewed, 'Ada Lovelace')
    state.current.rotations.set('refresh-1', { token: renewed, refreshToken: 'refresh-2' })
    await seed(page, { 'aw.token': expiring, 'aw.refreshToken': 'refresh-1', 'aw.signIn': 'oidc' })
    await page.goto('/')
    await page.getByRole('heading', { name: 'Hello, Ada Lovelace' }).waitFor()
    t.same(calls, ['refresh refresh-1', `me ${renewed}`])
  })

  t.test('a refused refresh clears the session and goes to the login page', async (t) => {
    const { page, calls } = await session(t)
    const stale = fakeJwt('ada', 1800)
    await seed(page, { 'aw.token': stale, 'aw.refreshToken': 'revoked', 'aw.signIn': 'oidc' })
    await page.goto('/')
    await page.waitForURL(`${base}/login`)
    await page.getByRole('heading', { name: 'Sign in' }).waitFor()
    t.same(calls, [`me ${stale}`, 'refresh revoked'])
    t.same(await storage(page), { token: null, refreshToken: null })
  })

  t.test('signing out revokes the refresh session, ends SSO and signs out the other tabs', async (t) => {
    const { context, page, calls } = await session(t)
    const token = fakeJwt('ada', 1800)
    state.current.users.set(token, 'Ada Lovelace')
    // As the login button does before leaving for the provider (the server echoes the value back).
    await page.goto('/login')
    await page.evaluate(() => { sessionStorage.setItem('aw.signInBinding', 'kept-by-this-tab-0123456789') })
    await page.goto(`/auth/oidc/callback#token=${token}&refresh_token=refresh-1&binding=kept-by-this-tab-0123456789`)
    await page.getByRole('heading', { name: 'Hello, Ada Lovelace' }).waitFor()
    const other = await context.newPage()
    await other.goto('/')
    await other.getByRole('heading', { name: 'Hello, Ada Lovelace' }).waitFor()

    await page.getByRole('button', { name: 'Account menu' }).click()
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.waitForURL(`${base}/login?loggedout=1`)
    await page.getByText('You have been signed out.').waitFor()
    t.ok(calls.includes('revoke refresh-1'), 'the refresh session was revoked')
    t.same(await storage(page), { token: null, refreshToken: null })
    await other.waitForURL(`${base}/login?loggedout=1`)
    t.pass('the other tab followed')
  })
}
