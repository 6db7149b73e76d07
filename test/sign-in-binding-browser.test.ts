import t from 'tap'
import type { Page } from 'playwright-core'
import { bearer, seedHuman } from './helper.js'
import { browserMissing, startBrowserApp, testContext } from './browser.js'

/**
 * Login CSRF, in Chromium: a link to `/auth/oidc/callback#token=…` (or the chat platform's) carrying
 * someone else's tokens signs nobody in; only a fragment carrying the value this tab kept when it
 * started the sign-in (sessionStorage, echoed by the server) is accepted.
 */

const ATTACKER = '100000000000000007'
const VICTIM_KEY = 'aw.signInBinding'

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)

t.test('the sign-in callback accepts only a sign-in this browser started', { skip: missing !== undefined }, async (t) => {
  const site = await startBrowserApp(t)
  await seedHuman(site.testApp, { id: ATTACKER, name: 'Mallory' })
  const token = bearer(site.testApp.app, { userId: ATTACKER }).authorization.slice('Bearer '.length)
  const stored = async (page: Page) => await page.evaluate(() => [localStorage.getItem('aw.token'), localStorage.getItem('aw.refreshToken')])

  for (const method of ['oidc', 'discord']) {
    await t.test(`${method}: a callback without a started sign-in stores nothing and says so`, async (t) => {
      const context = await testContext(site.browser, { baseURL: site.base })
      t.teardown(async () => { await context.close() })
      const page = await context.newPage()
      await page.goto(`/auth/${method}/callback#token=${token}&refresh_token=attacker-refresh&binding=attackers-own-binding-value`)
      await page.getByRole('alert').waitFor()
      t.match(await page.getByRole('alert').textContent(), /not started in this browser/)
      t.same(await stored(page), [null, null], 'no token stored')
      t.equal(new URL(page.url()).hash, '', 'the tokens left the address')
      await page.goto('/')
      await page.waitForURL(/\/login/)
      t.pass('the next page is the login page: nobody is signed in')
    })
  }

  await t.test('a value this tab kept but another sign-in\'s fragment: refused, and the kept value is used up', async (t) => {
    const context = await testContext(site.browser, { baseURL: site.base })
    t.teardown(async () => { await context.close() })
    const page = await context.newPage()
    await page.goto('/login')
    await page.evaluate((key) => { sessionStorage.setItem(key, 'the-tabs-own-binding-value-123') }, VICTIM_KEY)
    await page.goto(`/auth/oidc/callback#token=${token}&binding=attackers-own-binding-value`)
    await page.getByRole('alert').waitFor()
    t.same(await stored(page), [null, null])
    t.equal(await page.evaluate((key) => sessionStorage.getItem(key), VICTIM_KEY), null)
  })

  await t.test('a sign-in this tab started goes through: the login button keeps the value, the callback carrying it signs in', async (t) => {
    const context = await testContext(site.browser, { baseURL: site.base })
    t.teardown(async () => { await context.close() })
    const page = await context.newPage()
    // What the login page's buttons do (session.ts boundSignInUrl) before leaving for the provider; the
    // provider's round trip, and the server echoing the value, are test/oidc.test.ts's.
    await page.goto('/login')
    const binding = await page.evaluate((key) => { const value = 'kept-by-this-tab-0123456789abc'; sessionStorage.setItem(key, value); return value }, VICTIM_KEY)
    await page.goto(`/auth/oidc/callback#token=${token}&refresh_token=member-refresh&binding=${binding}`)
    await page.waitForURL((url) => url.pathname === '/')
    t.same(await stored(page), [token, 'member-refresh'], 'signed in')
  })

  await t.test('a refresh the server cannot do now (503) keeps the member signed in; the client tries again by itself and renews', async (t) => {
    // The service answers 503 while the alarm engine is down (test/refresh-sessions.test.ts); here the
    // browser's side: two such answers, then the rotation goes through.
    const context = await testContext(site.browser, { baseURL: site.base })
    t.teardown(async () => { await context.close() })
    const page = await context.newPage()
    const nearlyExpired = bearer(site.testApp.app, { userId: ATTACKER }, 1).authorization.slice('Bearer '.length)
    const renewedToken = bearer(site.testApp.app, { userId: ATTACKER }).authorization.slice('Bearer '.length)
    const attempts: number[] = []
    await page.route('**/api/auth/oidc/refresh', async (route) => {
      attempts.push(Date.now())
      if (attempts.length <= 2) {
        await route.fulfill({ status: 503, headers: { 'retry-after': '1' }, contentType: 'application/json', body: JSON.stringify({ error: 'The alarm engine is not reachable right now.' }) })
      } else {
        await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ token: renewedToken, refreshToken: 'member-refresh-2', expiresIn: 3600 }) })
      }
    })
    await page.goto('/login?loggedout=1')
    await page.evaluate((value) => { localStorage.setItem('aw.token', value); localStorage.setItem('aw.refreshToken', 'member-refresh-1'); localStorage.setItem('aw.signIn', 'oidc') }, nearlyExpired)
    await page.goto('/')
    await page.getByRole('heading', { level: 1 }).waitFor()
    t.equal(new URL(page.url()).pathname, '/', 'still signed in on the dashboard after a refused refresh')
    await page.waitForFunction(() => localStorage.getItem('aw.refreshToken') === 'member-refresh-2', undefined, { timeout: 20_000 })
    t.same(await stored(page), [renewedToken, 'member-refresh-2'], 'renewed by the client\'s own retries')
    t.ok(attempts.length >= 3, `two refused attempts, then the one that renewed (${attempts.length} in all)`)
    t.ok((attempts[1] ?? 0) - (attempts[0] ?? 0) >= 900, 'the second waited for Retry-After')
    t.equal(new URL(page.url()).pathname, '/', 'never sent to the login page')
  })
})
