import { mkdirSync } from 'node:fs'
import t from 'tap'
import type { BrowserContext, Page } from 'playwright-core'
import { axeViolations, browserMissing, DESKTOP, launchChromium, noSidewaysScroll, PHONE, testContext } from './browser.js'
import { bearer, build, seedHuman, type Test } from './helper.js'
import { accentPalette, contrast, hexFromComputed, lowestContrast } from '../client/src/contrast.js'

/**
 * The admin's site settings page in Debian's Chromium against the whole app: branding saved there reaches
 * the login page of a fresh browser and every member's pages; the engine card reads the engine fake;
 * the alarm-type switches change what members are offered. With SCREENSHOT_DIR set, the page and a
 * branded login are saved there.
 */
const ADMIN = '222222222222222222'
const MEMBER = '111111111111111111'
const LOGO = 'https://cdn.example.org/harbour-logo.svg'
const LOGO_SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 32"><rect width="64" height="32" rx="6" fill="#166534"/><path d="M8 22h48M14 16h36M20 10h24" stroke="#fff" stroke-width="3"/></svg>'

// Several whole-site runs in a browser on a busy two-core machine.
t.setTimeout(300_000)

t.test('the accent rule: readable text on the accent, links only where the accent reaches AA', async (t) => {
  for (const accent of ['#000000', '#ffffff', '#166534', '#ffd33d', '#777777', '#767676', '#0000ff', '#ff0000']) {
    const palette = accentPalette(accent)
    t.ok(contrast(palette.accent, palette.text) >= 4.5, `${accent}: text ${palette.text} reaches 4.5:1`)
    t.ok(contrast(palette.hover, palette.text) >= contrast(palette.accent, palette.text), `${accent}: hovering only raises the contrast`)
  }
  t.equal(accentPalette('#1A7F37').text, '#ffffff', 'dark green writes white')
  t.equal(accentPalette('#ffd33d').text, '#000000', 'yellow writes black')
  t.ok(Math.abs(contrast('#767676', '#ffffff') - 4.54) < 0.01, 'the WCAG reference grey is 4.54:1 on white')
  t.equal(lowestContrast('#1d4ed8', ['#ffffff', 'not a colour']), 1, 'a background that cannot be read counts as failing')
  t.equal(hexFromComputed('rgb(244, 245, 247)'), '#f4f5f7', 'computed colours are read back as #rrggbb')
  t.equal(hexFromComputed('rgba(0, 0, 0, 0.5)'), null, 'a translucent colour is not a page colour')
})

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await browserTests()

async function browserTests (): Promise<void> {
  // The chat platform is configured so that the login page has its sign-in button to look at.
  const testApp = await build(t, { env: { DISCORD_CLIENT_ID: '123456789012345678', DISCORD_CLIENT_SECRET: 'discord-client-secret-for-tests' } })
  const { app } = testApp
  await app.listen({ host: '127.0.0.1', port: 0 })
  const address = app.server.address()
  const base = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`
  const browser = await launchChromium()
  t.teardown(async () => { await browser.close() })
  await seedHuman(testApp, { id: ADMIN, name: 'Alice' })
  await seedHuman(testApp, { id: MEMBER, name: 'Bob' })
  const screenshots = process.env.SCREENSHOT_DIR
  if (screenshots !== undefined) mkdirSync(screenshots, { recursive: true })

  /** A fresh browser profile; signed in as `userId` when given. The logo's host is a stand-in. */
  async function open (test: Test, options: { userId?: string, isAdmin?: boolean, viewport?: { width: number, height: number }, colorScheme?: 'light' | 'dark' } = {}): Promise<{ context: BrowserContext, page: Page, cspErrors: string[] }> {
    const context = await testContext(browser, { baseURL: base, viewport: options.viewport ?? DESKTOP, colorScheme: options.colorScheme ?? 'light' })
    test.teardown(async () => { await context.close() })
    await context.route(LOGO, (route) => route.fulfill({ contentType: 'image/svg+xml', body: LOGO_SVG }))
    const page = await context.newPage()
    const cspErrors: string[] = []
    page.on('console', (message) => { if (/Content Security Policy/i.test(message.text())) cspErrors.push(message.text()) })
    if (options.userId !== undefined) {
      const token = bearer(app, { userId: options.userId, isAdmin: options.isAdmin ?? false }).authorization.slice('Bearer '.length)
      await page.goto('/login?loggedout=1')
      await page.evaluate((value) => { localStorage.setItem('aw.token', value); localStorage.setItem('aw.signIn', 'discord') }, token)
    }
    return { context, page, cspErrors }
  }

  const setting = async (key: string): Promise<string | null | undefined> => {
    const rows = await app.db.pool.query('SELECT value FROM site_settings WHERE `key` = ?', [key]) as Array<{ value: string | null }>
    return rows[0]?.value
  }
  const put = async (key: string, value: string | null): Promise<void> => {
    const res = await app.inject({ method: 'PUT', url: `/api/settings/${key}`, headers: bearer(app, { userId: ADMIN, isAdmin: true }), payload: { value } })
    if (res.statusCode !== 200) throw new Error(`PUT ${key}: ${res.statusCode} ${res.body}`)
  }
  /** Computed colours of the first element matching `selector`, and the page's --link. */
  const colours = async (page: Page, selector: string) => await page.locator(selector).first().evaluate((element) => {
    const style = getComputedStyle(element)
    return { background: style.backgroundColor, color: style.color, link: getComputedStyle(document.body).getPropertyValue('--link').trim() }
  })

  t.test('the admin brands the site; a fresh login page and a member\'s page show it', async (t) => {
    const { page, cspErrors } = await open(t, { userId: ADMIN, isAdmin: true })
    await page.goto('/admin/settings')
    await page.getByRole('heading', { name: 'Branding' }).waitFor()
    t.equal(await page.title(), 'Site settings · Alarms')
    await page.getByLabel('Site name').fill('Harbour Alarms')
    await page.getByLabel('Page title').fill('Harbour')
    await page.getByLabel('Logo URL').fill(LOGO)
    await page.getByRole('img', { name: 'Logo preview' }).waitFor()
    await page.getByLabel('Favicon URL').fill('/favicon.svg?v=harbour')
    await page.getByLabel('Accent colour as #rrggbb').fill('#166534')
    const preview = page.getByRole('figure', { name: 'Preview (not saved yet)' })
    t.match(await colours(page, '.brand-preview .button-primary'), { background: 'rgb(22, 101, 52)', color: 'rgb(255, 255, 255)' }, 'the preview shows the draft before it is saved')
    t.match(await preview.textContent(), /Harbour Alarms.*Button text: white.*Links use the accent too/)
    await page.getByRole('button', { name: 'Save branding' }).click()
    await page.getByText('Saved.').waitFor()
    t.same([await setting('site_name'), await setting('custom_title'), await setting('header_logo_url'), await setting('favicon_url'), await setting('accent_color')],
      ['Harbour Alarms', 'Harbour', LOGO, '/favicon.svg?v=harbour', '#166534'], 'stored')
    const header = page.locator('header.topbar .brand')
    t.equal(await header.textContent(), 'Harbour Alarms', 'the top bar follows at once')
    t.equal(await header.locator('img.brand-logo').getAttribute('src'), LOGO)
    t.equal(await page.title(), 'Site settings · Harbour', 'so does the tab')
    await page.mouse.move(0, 0)
    t.match(await colours(page, 'button.button-primary'), { background: 'rgb(22, 101, 52)', color: 'rgb(255, 255, 255)' }, 'and the primary buttons')

    const login = await open(t)
    await login.page.goto('/login?loggedout=1')
    await login.page.locator('.login-brand').getByText('Harbour Alarms').waitFor()
    t.equal(await login.page.title(), 'Sign in · Harbour')
    await login.page.locator('.login-brand img.brand-logo').waitFor()
    t.ok(await login.page.locator('.login-brand img.brand-logo').evaluate((img) => (img as HTMLImageElement).naturalWidth > 0), 'the logo loaded under the page\'s CSP')
    t.equal(await login.page.locator('link[rel~="icon"]').getAttribute('href'), '/favicon.svg?v=harbour', 'favicon')
    t.match(await colours(login.page, 'a.button-primary'), { background: 'rgb(22, 101, 52)', color: 'rgb(255, 255, 255)', link: '#166534' }, 'the sign-in button wears the accent')
    t.same(await axeViolations(login.page), [], 'the branded login page passes axe')
    if (screenshots !== undefined) await login.page.screenshot({ path: `${screenshots}/login-branded.png` })

    const member = await open(t, { userId: MEMBER, viewport: PHONE })
    await member.page.goto('/alarms/monsters')
    await member.page.locator('header.topbar .brand').getByText('Harbour Alarms').waitFor()
    await member.page.locator('main .button-primary').first().waitFor()
    t.match(await colours(member.page, 'main .button-primary'), { background: 'rgb(22, 101, 52)', color: 'rgb(255, 255, 255)' }, 'a member\'s primary button')
    t.ok(await noSidewaysScroll(member.page), 'the branded top bar fits 360 px')
    t.same([...cspErrors, ...login.cspErrors, ...member.cspErrors], [], 'no content-policy refusals')
  })

  t.test('an accent too light for links on the light theme fills buttons but leaves links alone there', async (t) => {
    await put('accent_color', '#ffd33d')
    t.teardown(() => put('accent_color', '#166534'))
    const light = await open(t, { userId: MEMBER })
    await light.page.goto('/alarms/monsters')
    await light.page.locator('main .button-primary').first().waitFor()
    await light.page.waitForFunction(() => document.documentElement.dataset.brand !== undefined)
    t.match(await colours(light.page, 'main .button-primary'), { background: 'rgb(255, 211, 61)', color: 'rgb(0, 0, 0)', link: '#1d4ed8' }, 'light: black on yellow, links keep the theme\'s blue')
    const dark = await open(t, { userId: MEMBER, colorScheme: 'dark' })
    await dark.page.goto('/alarms/monsters')
    await dark.page.locator('main .button-primary').first().waitFor()
    await dark.page.waitForFunction(() => document.documentElement.dataset.brand !== undefined)
    t.match(await colours(dark.page, 'main .button-primary'), { background: 'rgb(255, 211, 61)', link: '#ffd33d' }, 'dark: the yellow is readable as a link colour')
    t.same(await axeViolations(light.page), [], 'light theme passes axe')
    t.same(await axeViolations(dark.page), [], 'dark theme passes axe')
  })

  t.test('"Hide the logo" leaves the name alone; a cleared name falls back to the page title', async (t) => {
    await put('hide_header_logo', 'true')
    await put('site_name', null)
    t.teardown(async () => {
      await put('hide_header_logo', 'false')
      await put('site_name', 'Harbour Alarms')
    })
    const { page } = await open(t)
    await page.goto('/login?loggedout=1')
    await page.locator('.login-brand').getByText('Harbour', { exact: true }).waitFor()
    t.equal(await page.locator('.login-brand img').count(), 0, 'no logo')
  })

  t.test('a refused colour or address is shown at its field and nothing changes', async (t) => {
    const { page } = await open(t, { userId: ADMIN, isAdmin: true })
    await page.goto('/admin/settings')
    const code = page.getByLabel('Accent colour as #rrggbb')
    await code.waitFor()
    await code.fill('green')
    await page.getByLabel('Logo URL').fill('javascript:alert(1)')
    t.equal(await page.getByRole('img', { name: 'Logo preview' }).count(), 0, 'no preview of a script address')
    await page.getByRole('button', { name: 'Save branding' }).click()
    await page.getByText('Some settings were not saved: see the marked fields.').waitFor()
    t.equal(await code.getAttribute('aria-invalid'), 'true')
    t.match(await page.locator('fieldset').filter({ has: code }).locator('.field-error').textContent(), /write it as #rrggbb/)
    t.equal(await page.getByLabel('Logo URL').getAttribute('aria-invalid'), 'true')
    t.equal(await setting('accent_color'), '#166534', 'the colour is unchanged')
    t.equal(await setting('header_logo_url'), LOGO, 'the logo is unchanged')
    t.match(await page.getByLabel('Logo URL').evaluate((input) => input.getAttribute('aria-describedby')), /-error/, 'the message is tied to the field')
  })

  t.test('the profile cap is set on the page; a number out of bounds is refused at its field', async (t) => {
    const { page } = await open(t, { userId: ADMIN, isAdmin: true })
    await page.goto('/admin/settings')
    const cap = page.getByLabel('Profiles per member')
    await cap.waitFor()
    t.equal(await cap.getAttribute('inputmode'), 'numeric', 'a phone shows its number pad')
    await cap.fill('500')
    await page.getByRole('button', { name: 'Save limits' }).click()
    await page.getByText('The server refused this number: use a whole number from 1 to 100.').waitFor()
    t.equal(await cap.getAttribute('aria-invalid'), 'true')
    t.equal(await setting('max_profiles_per_user') ?? null, null, 'nothing stored')
    await cap.fill('12')
    await page.getByRole('button', { name: 'Save limits' }).click()
    await page.locator('#limits').getByText('Saved.').waitFor()
    t.equal(await setting('max_profiles_per_user'), '12', 'the cap is stored')
  })

  t.test('the engine card shows the engine fake and "Check again" asks it again', async (t) => {
    const { page } = await open(t, { userId: ADMIN, isAdmin: true })
    await page.goto('/admin/settings')
    const card = page.getByRole('region', { name: 'Alarm engine' })
    await card.getByText('PoracleNG').waitFor()
    t.match(await card.textContent(), /Version5\.1\.0.*Schema version5.*ReachableYes/, 'version, schema version, reachable')
    t.match(await card.textContent(), /Fort change alarms: available.*Saved places: not available/, 'capabilities in words')
    t.match(await card.textContent(), /This site’s versionnot set \(development build\)/, 'a build without BUILD_VERSION says so in words')
    testApp.engine.set({ version: '5.0.9' })
    const refreshed = page.waitForRequest((request) => request.url().endsWith('/api/admin/server-profile?refresh=true'))
    await card.getByRole('button', { name: 'Check again' }).click()
    await refreshed
    await card.getByText('Version 5.0.9 is older than 5.1.0').waitFor()
    t.match(await card.textContent(), /Version5\.0\.9/, 'the new answer is shown')
    testApp.engine.set({ version: null })
  })

  t.test('an alarm-type switch takes the type out of the navigation and back in without a reload, in every tab; the sign-in page no longer has it', async (t) => {
    // A member on a phone, with the drawer open.
    const member = await open(t, { userId: MEMBER, viewport: PHONE })
    await member.page.goto('/')
    await member.page.getByRole('button', { name: 'Menu', exact: true }).click()
    const memberNav = member.page.getByRole('navigation', { name: 'Main navigation' })
    await memberNav.getByRole('link', { name: 'Lures' }).waitFor()
    // The member's tab is hidden and shown again, as when they come back to it.
    const shownAgain = () => member.page.evaluate(() => { document.dispatchEvent(new Event('visibilitychange')) })

    const { context, page } = await open(t, { userId: ADMIN, isAdmin: true })
    await page.goto('/admin/settings')
    const lures = page.getByRole('checkbox', { name: 'Lures' })
    await lures.waitFor()
    // The admin's second tab, on a desktop.
    const other = await context.newPage()
    await other.goto('/')
    const otherNav = other.getByRole('navigation', { name: 'Main navigation' })
    await otherNav.getByRole('link', { name: 'Lures' }).waitFor()
    const adminNav = page.getByRole('navigation', { name: 'Main navigation' })
    t.ok(await lures.isChecked(), 'offered')
    // The switch saves on change and shows the stored state once the server answered.
    await lures.click()
    for (let i = 0; i < 50 && await lures.isChecked(); i++) await page.waitForTimeout(100)
    t.notOk(await lures.isChecked(), 'the switch shows it off')
    t.equal(await setting('disable_lures'), 'true', 'stored')
    t.teardown(() => put('disable_lures', null))
    await adminNav.getByRole('link', { name: 'Lures' }).waitFor({ state: 'detached' })
    await otherNav.getByRole('link', { name: 'Lures' }).waitFor({ state: 'detached' })
    t.pass('lures left the admin\'s navigation in both tabs')
    await shownAgain()
    await memberNav.getByRole('link', { name: 'Lures' }).waitFor({ state: 'detached' })
    t.ok(await memberNav.getByRole('link', { name: 'Raids' }).isVisible(), 'lures left the member\'s navigation, the rest stayed')

    await lures.click()
    for (let i = 0; i < 50 && !await lures.isChecked(); i++) await page.waitForTimeout(100)
    t.equal(await setting('disable_lures'), 'false', 'switched back on')
    await adminNav.getByRole('link', { name: 'Lures' }).waitFor()
    await otherNav.getByRole('link', { name: 'Lures' }).waitFor()
    t.pass('lures are back in the admin\'s navigation in both tabs, without a reload')
    await shownAgain()
    await memberNav.getByRole('link', { name: 'Lures' }).waitFor()
    t.pass('and back in the member\'s when their tab is shown again')
    t.same(await axeViolations(member.page), [], 'axe-clean with the drawer open')

    await page.goto('/admin/sign-in')
    await page.getByRole('heading', { name: 'Sessions' }).waitFor()
    t.equal(await page.getByRole('heading', { name: 'Alarm types' }).count(), 0, 'the sign-in page is about signing in only')
  })

  for (const [name, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
    for (const colorScheme of ['light', 'dark'] as const) {
      t.test(`axe finds nothing on the page (${name}, ${colorScheme}); no sideways scroll`, async (t) => {
        const { page } = await open(t, { userId: ADMIN, isAdmin: true, viewport, colorScheme })
        await page.goto('/admin/settings')
        await page.getByRole('region', { name: 'Alarm engine' }).getByText('PoracleNG').waitFor()
        await page.getByRole('img', { name: 'Logo preview' }).waitFor()
        t.same(await axeViolations(page), [], 'axe')
        t.ok(await noSidewaysScroll(page), 'fits the width')
        if (screenshots !== undefined && name === 'phone' && colorScheme === 'light') {
          await page.screenshot({ path: `${screenshots}/admin-site-settings.png`, fullPage: true })
        }
      })
    }
  }
}
