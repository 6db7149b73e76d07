import { randomBytes } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import t from 'tap'
import type { Locator, Page } from 'playwright-core'
import { axeBothSizes, axeViolations, type BrowserApp, browserMissing, DESKTOP, noSidewaysScroll, PHONE, startBrowserApp, testContext } from './browser.js'
import { bearer, seedHuman, type Test } from './helper.js'
import { followLogin } from './fakes/browser-flow.js'
import { oidcClientEnv, startOidcProvider } from './fakes/oidc-provider.js'

/**
 * "My devices" and the audit log in Debian's Chromium against the whole app (real databases, the
 * engine fake, the real oidc-provider for refresh-backed sign-ins): a member with two signed-in
 * devices ends the other one, whose refresh token is then refused, and then all the others; an admin
 * blocks a user and finds it in the audit log, filtered and paged. With SCREENSHOT_DIR set, the pages
 * are saved (devices-phone.png, audit-desktop.png, audit-phone.png).
 */

const ADMIN = '910000000000000001'
const MEMBER = '910000000000000002'
const UMA = '910000000000000003'
const OTTO = '910000000000000004'
const PHONE_UA = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36'
const LAPTOP_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0'
const WEBHOOK = 'https://discord.com/api/webhooks/91/secret-token-a'
const TABLET_UA = 'Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1'

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await browserTests()

async function browserTests (): Promise<void> {
  /** The whole page, or with `from` one screen scrolled to that element (a long list below a form). */
  async function screenshot (page: Page, name: string, from?: Locator): Promise<void> {
    const dir = process.env.SCREENSHOT_DIR
    if (dir === undefined) return
    mkdirSync(dir, { recursive: true })
    if (from === undefined) await page.evaluate(() => { window.scrollTo(0, 0) })
    else await from.evaluate((e) => { e.scrollIntoView() })
    await page.screenshot({ path: `${dir}/${name}`, fullPage: from === undefined })
  }

  /** A new browser profile holding `tokens` as the client's sign-in leaves them. */
  async function browserWith (test: Test, site: BrowserApp, tokens: { token: string, refreshToken?: string, method: string }, viewport: { width: number, height: number }): Promise<Page> {
    const context = await testContext(site.browser, { baseURL: site.base, viewport })
    test.teardown(async () => { await context.close() })
    const page = await context.newPage()
    await page.goto('/login?loggedout=1')
    await page.evaluate((s) => {
      localStorage.setItem('aw.token', s.token)
      if (s.refreshToken !== undefined) localStorage.setItem('aw.refreshToken', s.refreshToken)
      localStorage.setItem('aw.signIn', s.method)
    }, tokens)
    return page
  }

  t.test('my devices: both sessions listed, the other one ended and its refresh refused, then all the others', async (t) => {
    const op = await startOidcProvider({ redirectUris: ['http://localhost/api/auth/oidc/callback'], accounts: { [MEMBER]: { preferred_username: 'Ash' } }, nextAccount: MEMBER })
    t.teardown(() => op.close())
    const site = await startBrowserApp(t, {
      env: {
        ...oidcClientEnv(op),
        OIDC_TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64')
      },
      config: { RATE_LIMIT_AUTH_MAX: 10_000, RATE_LIMIT_AUTH_READ_MAX: 10_000 }
    })
    const { app, clock } = site.testApp
    // The browser checks the JWT's expiry against its own clock: the service runs on real time here.
    clock.set(Date.now())
    await seedHuman(site.testApp, { id: MEMBER, name: 'Ash' })
    await app.db.pool.query("INSERT INTO site_settings (`key`, value) VALUES ('enable_oidc', 'true')")
    app.siteSettings.evict('enable_oidc')

    /** One sign-in through the provider from a device with `userAgent`: its JWT and refresh token. */
    const signIn = async (userAgent: string) => {
      const fragment = (await followLogin({ serviceInject: (o) => app.inject(o), headers: { 'user-agent': userAgent } })).fragment
      const token = fragment.get('token') ?? ''
      const refreshToken = fragment.get('refresh_token') ?? ''
      t.not(refreshToken, '', 'a refresh-backed session')
      return { token, refreshToken }
    }
    const refresh = (refreshToken: string) => app.inject({ method: 'POST', url: '/api/auth/oidc/refresh', payload: { refreshToken } })
    const me = (token: string) => app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${token}` } })

    const laptop = await signIn(LAPTOP_UA)
    const phone = await signIn(PHONE_UA)
    const page = await browserWith(t, site, { ...phone, method: 'oidc' }, PHONE)

    // Reached from the user menu.
    await page.goto('/')
    await page.getByRole('button', { name: 'Account menu' }).click()
    await page.getByRole('link', { name: 'My devices' }).click()
    await page.getByRole('heading', { level: 1, name: 'My devices' }).waitFor()
    t.equal(await page.title().then((title) => title.startsWith('My devices')), true, 'the tab names the page')
    await page.getByRole('heading', { name: '2 signed-in sessions' }).waitFor()

    const item = (device: string) => page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: device }) })
    const here = item('Chrome on Android')
    const other = item('Firefox on Windows')
    await here.getByText('This device').waitFor()
    t.equal(await here.getByRole('button', { name: 'End session' }).count(), 0, 'this device has no End button')
    t.equal(await other.getByText('This device').count(), 0)
    t.ok((await other.textContent())?.includes('Last used'), 'first and last use are shown')
    t.notOk((await page.locator('main').textContent())?.includes('Approximate place'), 'no place unless the operator shows networks')

    await axeBothSizes(t, page, 'my devices')
    await page.setViewportSize(PHONE)
    await screenshot(page, 'devices-phone.png')

    // Cancel changes nothing; confirming ends the other session.
    await other.getByRole('button', { name: 'End session' }).click()
    const dialog = page.getByRole('dialog', { name: 'End the session on Firefox on Windows?' })
    await dialog.waitFor()
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'hidden' })
    t.equal((await me(laptop.token)).statusCode, 200, 'cancelled: the laptop is still signed in')
    await other.getByRole('button', { name: 'End session' }).click()
    await dialog.getByRole('button', { name: 'End session' }).click()
    await page.getByText('The session on Firefox on Windows has ended.').waitFor()
    await page.getByRole('heading', { name: '1 signed-in session' }).waitFor()
    t.ok(await page.getByRole('heading', { level: 1 }).evaluate((e) => e === document.activeElement), 'focus goes back to the page heading')
    t.equal((await refresh(laptop.refreshToken)).statusCode, 401, 'the ended session\'s refresh token is refused')
    t.equal((await me(laptop.token)).statusCode, 401, 'and its access token too')
    t.equal((await me(phone.token)).statusCode, 200, 'this device goes on')

    // A session ended elsewhere meanwhile: the server's refusal is shown in the dialog.
    const tablet = await signIn(TABLET_UA)
    await page.reload()
    const stale = item('Safari on iOS')
    await stale.waitFor()
    const [{ id: tabletId } = { id: '' }] = (await app.inject({ method: 'GET', url: '/api/auth/sessions', headers: { authorization: `Bearer ${tablet.token}` } })).json<{ sessions: Array<{ id: string, current: boolean }> }>().sessions.filter((s) => s.current)
    t.equal((await app.inject({ method: 'DELETE', url: `/api/auth/sessions/${tabletId}`, headers: { authorization: `Bearer ${phone.token}` } })).statusCode, 200)
    await stale.getByRole('button', { name: 'End session' }).click()
    const staleDialog = page.getByRole('dialog', { name: 'End the session on Safari on iOS?' })
    await staleDialog.getByRole('button', { name: 'End session' }).click()
    await staleDialog.getByRole('alert').getByText('No such session.').waitFor()
    await staleDialog.getByRole('button', { name: 'Cancel' }).click()

    // End all the others: two more devices, both signed out, this one stays.
    const second = await signIn(LAPTOP_UA)
    const third = await signIn(TABLET_UA)
    await page.reload()
    await page.getByRole('heading', { name: '3 signed-in sessions' }).waitFor()
    await page.getByRole('button', { name: 'End all other sessions' }).click()
    const all = page.getByRole('dialog', { name: 'End all other sessions?' })
    await all.getByRole('button', { name: 'End all other sessions' }).click()
    await page.getByText('All other sessions have ended.').waitFor()
    await page.getByRole('heading', { name: '1 signed-in session' }).waitFor()
    for (const ended of [second, third]) {
      t.equal((await refresh(ended.refreshToken)).statusCode, 401, 'each other refresh token is refused')
      t.equal((await me(ended.token)).statusCode, 401)
    }
    t.equal((await me(phone.token)).statusCode, 200, 'this device is still signed in')
    await page.reload()
    await page.getByRole('heading', { name: '1 signed-in session' }).waitFor()
    await here.getByText('This device').waitFor()
  })

  t.test('the audit log: an admin blocks a user and finds it, filtered and paged, as a table and as cards', async (t) => {
    const site = await startBrowserApp(t, { config: { PORACLE_ADMIN_IDS: [ADMIN], RATE_LIMIT_AUTH_READ_MAX: 10_000 } })
    const { app } = site.testApp
    await seedHuman(site.testApp, { id: ADMIN, name: 'Ada' })
    await seedHuman(site.testApp, { id: UMA, name: 'Uma' })
    await seedHuman(site.testApp, { id: OTTO, name: 'Otto' })
    const adminHeader = bearer(app, { userId: ADMIN, username: 'Ada', isAdmin: true })
    const page = await browserWith(t, site, { token: adminHeader.authorization.slice('Bearer '.length), method: 'discord' }, DESKTOP)

    await page.goto('/admin/audit')
    await page.getByText('Nothing has been recorded yet.').waitFor()

    // Older entries first, through the API: enough for a second page.
    for (let i = 0; i < 13; i++) {
      for (const path of ['pause', 'resume']) {
        t.equal((await app.inject({ method: 'PUT', url: `/api/admin/users/${path}?id=${OTTO}`, headers: adminHeader })).statusCode, 200)
      }
    }
    t.equal((await app.inject({ method: 'POST', url: '/api/admin/webhooks', headers: adminHeader, payload: { name: 'Raid channel', url: WEBHOOK } })).statusCode, 201)
    // The audited action, in the browser.
    await page.goto('/admin/users')
    await page.getByRole('button', { name: 'Block Uma' }).click()
    await page.getByText('Uma is blocked.', { exact: false }).waitFor()

    // The admin sidebar leads to the log; newest first, 25 a page.
    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Audit log' }).click()
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor()
    const rows = page.getByRole('table').locator('tbody tr')
    await rows.first().waitFor()
    t.equal(await rows.count(), 25)
    t.ok((await rows.first().textContent())?.includes('Blocked a user'), 'the block is the newest entry')
    t.ok((await rows.first().textContent())?.includes(UMA), 'with its target')
    t.ok((await rows.first().textContent())?.includes(ADMIN), 'and who did it')
    await page.getByRole('button', { name: 'Older' }).click()
    await page.getByText('Page 2').waitFor()
    t.equal(await rows.count(), 3, 'the rest on the second page')
    t.ok(await page.getByRole('heading', { name: 'Entries' }).evaluate((e) => e === document.activeElement), 'focus moves to the list after paging')
    await page.getByRole('button', { name: 'Newer' }).click()
    await page.getByText('Page 1').waitFor()

    // Filters: action and target find the one entry.
    await page.getByLabel('Action', { exact: true }).selectOption({ label: 'Blocked a user' })
    await page.getByLabel('Target', { exact: true }).fill(UMA)
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1)
    t.ok((await rows.first().textContent())?.includes('Blocked a user'))
    t.equal(await page.getByRole('navigation', { name: 'Pages' }).count(), 0, 'one page: no pager')
    await rows.first().getByText('Show details').click()
    await rows.first().getByText(/^Request /).waitFor()

    // A webhook's address is a secret: masked in what changed, as on the webhook pages.
    await page.getByLabel('Action', { exact: true }).selectOption({ label: 'Created a webhook' })
    await page.getByLabel('Target', { exact: true }).fill('')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await rows.first().getByText('Created a webhook').waitFor()
    await rows.first().getByText('Show details').click()
    await rows.first().getByText('https://discord.com/…en-a', { exact: false }).waitFor()
    t.notOk((await rows.first().textContent())?.includes('secret-token'), 'the token is not on screen')

    // A time range that ends before it starts is refused at the field, before sending.
    await page.getByLabel('From', { exact: true }).fill('2026-11-27T10:00')
    await page.getByLabel('To', { exact: true }).fill('2026-11-26T10:00')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await page.getByText('“To” must not be before “From”.').waitFor()
    t.equal(await page.getByLabel('To', { exact: true }).getAttribute('aria-invalid'), 'true')
    t.ok(await page.getByLabel('To', { exact: true }).evaluate((e) => e === document.activeElement), 'focus goes to the field in error')
    await page.getByLabel('From', { exact: true }).fill('')
    await page.getByLabel('To', { exact: true }).fill('')

    // Another administrator did nothing.
    await page.getByLabel('Administrator', { exact: true }).fill(OTTO)
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await page.getByText('No entries match these filters.').waitFor()
    await page.getByRole('button', { name: 'Clear filters' }).click()
    await rows.nth(24).waitFor()
    t.equal(await page.getByLabel('Administrator', { exact: true }).inputValue(), '', 'clearing empties the form too')

    await screenshot(page, 'audit-desktop.png')
    await axeBothSizes(t, page, 'the audit log')

    // On a phone: one card per entry instead of the table.
    await page.setViewportSize(PHONE)
    await page.getByRole('listitem').filter({ hasText: 'Blocked a user' }).waitFor()
    t.equal(await page.getByRole('table').count(), 0, 'no table on a phone')
    t.ok(await noSidewaysScroll(page), 'the cards do not scroll sideways at 360 px')
    await page.getByRole('listitem').filter({ hasText: 'Blocked a user' }).getByText('Show details').click()
    t.ok(await noSidewaysScroll(page), 'nor with the details open')
    t.same(await axeViolations(page), [], 'axe-core finds nothing with the details open (phone)')
    await screenshot(page, 'audit-phone.png', page.getByRole('heading', { name: 'Entries' }))
  })
}
