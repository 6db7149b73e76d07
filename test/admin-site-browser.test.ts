import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import type { BrowserContext, Page } from 'playwright-core'
import { axeViolations, browserMissing, DESKTOP, launchChromium, noSidewaysScroll, PHONE, testContext } from './browser.js'
import { bearer, build, seedHuman, type Test } from './helper.js'
import { insertAlarm, insertProfile } from './fakes/engine-db.js'

/**
 * The admin's whole site in Debian's Chromium against the whole app: a feature switched off on the site
 * settings page leaves a member's navigation and its API; links, languages and icon sets are set and
 * checked there; the user edit screen; the help page in English and German; profile names that are
 * taken are said at the field; the users list on a phone; the desktop sidebar stays put. Every page is
 * checked with axe-core at 360 px. `SCREENSHOTS=1` saves the admin pages to docs/screenshots/.
 */
const ADMIN = '222222222222222222'
const MEMBER = '111111111111111111'
const WEBHOOK = 'https://discord.com/api/webhooks/123456/very-secret-token-abcdef'

// Seven whole-site runs in a browser on a busy shared machine.
t.setTimeout(600_000)

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await browserTests()

async function browserTests (): Promise<void> {
  // The icon set the check reads is served on this machine: the operator's allow-list lets the check reach it.
  const testApp = await build(t, { env: { DISCORD_CLIENT_ID: '123456789012345678', DISCORD_CLIENT_SECRET: 'discord-client-secret-for-tests', FETCH_ALLOWED_HOSTS: '127.0.0.1' } })
  const { app, engine } = testApp
  await app.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const browser = await launchChromium()
  t.teardown(async () => { await browser.close() })
  engine.set({ fences: [{ name: 'Harbour', path: [[51, 7], [51, 7.2], [51.2, 7.2], [51.2, 7]] }, { name: 'Old Town', path: [[48, 9], [48, 9.5], [49, 9.5], [49, 9]] }] })
  await seedHuman(testApp, { id: ADMIN, name: 'Alice' })
  await seedHuman(testApp, { id: MEMBER, name: 'Bob', latitude: 51.1, longitude: 7.1 })
  await seedHuman(testApp, { id: WEBHOOK, name: 'Raid channel', type: 'webhook' })
  await insertProfile(app.engineDb.pool, { id: MEMBER, profileNo: 2, name: 'Work', area: [], latitude: 0, longitude: 0 })
  await insertAlarm(app.engineDb.pool, 'pokemon', { id: MEMBER, pokemon_id: 25 })
  await insertAlarm(app.engineDb.pool, 'raid', { id: MEMBER, level: 5, profile_no: 2 })
  const screenshots = process.env.SCREENSHOTS === '1' ? fileURLToPath(new URL('../docs/screenshots/', import.meta.url)) : undefined
  if (screenshots !== undefined) mkdirSync(screenshots, { recursive: true })
  const shoot = async (page: Page, name: string): Promise<void> => {
    if (screenshots !== undefined) await page.screenshot({ path: `${screenshots}${name}.png`, fullPage: true })
  }

  async function open (test: Test, options: { userId: string, isAdmin?: boolean, viewport?: { width: number, height: number }, language?: string }): Promise<{ context: BrowserContext, page: Page }> {
    const context = await testContext(browser, { baseURL: base, viewport: options.viewport ?? PHONE })
    test.teardown(async () => { await context.close() })
    const page = await context.newPage()
    const token = bearer(app, { userId: options.userId, isAdmin: options.isAdmin ?? false }).authorization.slice('Bearer '.length)
    await page.goto('/login?loggedout=1')
    await page.evaluate(({ value, language }) => {
      localStorage.setItem('aw.token', value)
      localStorage.setItem('aw.signIn', 'discord')
      localStorage.setItem('aw.language', language)
    }, { value: token, language: options.language ?? 'en' })
    return { context, page }
  }
  const asAdmin = bearer(app, { userId: ADMIN, isAdmin: true })
  const setting = async (key: string): Promise<string | null | undefined> => {
    const rows = await app.db.pool.query('SELECT value FROM site_settings WHERE `key` = ?', [key]) as Array<{ value: string | null }>
    return rows[0]?.value
  }
  const put = async (key: string, value: string | null): Promise<void> => {
    const res = await app.inject({ method: 'PUT', url: `/api/settings/${key}`, headers: asAdmin, payload: { value } })
    if (res.statusCode !== 200) throw new Error(`PUT ${key}: ${res.statusCode} ${res.body}`)
  }
  const openNav = async (page: Page) => {
    const nav = page.getByRole('navigation', { name: 'Main navigation' })
    if (!(await nav.isVisible())) await page.getByRole('button', { name: 'Menu', exact: true }).click()
    await nav.getByRole('link', { name: 'Home' }).waitFor()
    return nav
  }

  t.test('features switched off on the settings page leave a member\'s navigation and API', async (t) => {
    t.teardown(async () => { for (const key of ['disable_areas', 'disable_profiles', 'disable_push']) await put(key, null) })
    const member = await open(t, { userId: MEMBER })
    await member.page.goto('/')
    let nav = await openNav(member.page)
    for (const name of ['Profiles', 'Areas', 'Location', 'My geofences']) t.equal(await nav.getByRole('link', { name, exact: true }).count(), 1, `${name} is offered`)

    const { page } = await open(t, { userId: ADMIN, isAdmin: true })
    await page.goto('/admin/settings')
    const features = page.getByRole('region', { name: 'Member features' })
    await features.waitFor()
    t.same(await axeViolations(page), [], 'the settings page passes axe at 360 px')
    t.ok(await noSidewaysScroll(page), 'and fits 360 px')
    await shoot(page, 'admin-site-settings-phone-light')
    const areas = features.getByRole('checkbox', { name: 'Areas' })
    t.ok(await areas.isChecked(), 'on by default')
    await areas.click()
    for (let i = 0; i < 50 && await setting('disable_areas') !== 'true'; i++) await page.waitForTimeout(100)
    t.equal(await setting('disable_areas'), 'true', 'stored as the reference\'s switch')
    // Web Push has its switch beside the others (what it takes away is tested in test/push-subscriptions.test.ts).
    const push = features.getByRole('checkbox', { name: 'Alerts on members\' phones' })
    t.ok(await push.isChecked(), 'push: on by default')
    await push.click()
    for (let i = 0; i < 50 && await setting('disable_push') !== 'true'; i++) await page.waitForTimeout(100)
    t.equal(await setting('disable_push'), 'true', 'push switched off is stored as disable_push')
    await features.getByRole('checkbox', { name: 'Profiles' }).click()
    for (let i = 0; i < 50 && await setting('disable_profiles') !== 'true'; i++) await page.waitForTimeout(100)
    const adminNav = await openNav(page)
    t.equal(await adminNav.getByRole('link', { name: 'Areas', exact: true }).count(), 0, 'the admin\'s own navigation follows at once')

    await member.page.reload()
    nav = await openNav(member.page)
    t.equal(await nav.getByRole('link', { name: 'Areas', exact: true }).count(), 0, 'Areas left the member\'s navigation')
    t.equal(await nav.getByRole('link', { name: 'Profiles', exact: true }).count(), 0, 'so did Profiles')
    t.equal(await nav.getByRole('link', { name: 'Location', exact: true }).count(), 1, 'Location stays')
    await member.page.getByRole('button', { name: 'Account menu' }).click()
    t.equal(await member.page.getByLabel('Active profile').count(), 0, 'no profile switcher either')
    const headers = bearer(app, { userId: MEMBER })
    t.equal((await app.inject({ method: 'PUT', url: '/api/areas', headers, payload: { areas: ['harbour'] } })).statusCode, 403, 'the area write answers 403')
    t.equal((await app.inject({ method: 'GET', url: '/api/profiles', headers })).statusCode, 403, 'profiles answer 403')
  })

  t.test('links, languages and an icon set\'s check on the settings page', async (t) => {
    t.teardown(async () => { for (const key of ['custom_page_name', 'custom_page_url', 'custom_page_icon', 'allowed_languages', 'signup_url']) await put(key, null) })
    const repository = createServer((req, res) => {
      if (req.url === '/set/index.json') res.end(JSON.stringify({ pokemon: ['1.png'], type: ['1.png'], reward: { item: ['1.png'] } }))
      else { res.statusCode = 404; res.end() }
    })
    await new Promise<void>((resolve) => repository.listen(0, '127.0.0.1', resolve))
    t.teardown(() => new Promise<void>((resolve) => { repository.close(() => { resolve() }) }))
    const iconSet = `http://127.0.0.1:${(repository.address() as AddressInfo).port}/set`

    const { page } = await open(t, { userId: ADMIN, isAdmin: true, viewport: DESKTOP })
    await page.goto('/admin/settings#links')
    const links = page.getByRole('region', { name: 'Links' })
    await links.getByLabel('Sign-up link').fill('javascript:alert(1)')
    await links.getByLabel('Extra link: name').fill('Rules')
    await links.getByLabel('Extra link: address').fill('https://example.org/rules')
    await links.getByLabel('Extra link: mark').fill('📜')
    await links.getByRole('button', { name: 'Save links' }).click()
    await links.getByText('The server refused this address').waitFor()
    t.equal(await links.getByLabel('Sign-up link').getAttribute('aria-invalid'), 'true', 'said at the field')
    t.equal(await setting('custom_page_url'), 'https://example.org/rules', 'the valid ones were saved')
    t.equal(await setting('signup_url'), undefined, 'the refused one was not')

    const languages = page.getByRole('region', { name: 'Languages' })
    await languages.getByRole('checkbox', { name: 'English' }).check()
    await languages.getByRole('checkbox', { name: 'Deutsch' }).check()
    await languages.getByRole('button', { name: 'Save languages' }).click()
    await languages.getByText('Saved.').waitFor()
    t.equal(await setting('allowed_languages'), 'en,de')

    const icons = page.getByRole('region', { name: 'Icon sets' })
    await icons.getByLabel('Pokémon').fill(iconSet)
    await icons.getByRole('button', { name: 'Check this set' }).first().click()
    await icons.getByText('Usable: the set has a pokemon folder').waitFor()
    await icons.getByLabel('Gyms').fill(iconSet)
    await icons.getByRole('button', { name: 'Check this set' }).nth(2).click()
    await icons.getByText('This set has no gym folder; it has: pokemon, reward, type.').waitFor()
    await icons.getByRole('button', { name: 'Pokémon HOME' }).click()
    t.equal(await icons.getByLabel('Types').inputValue(), 'https://raw.githubusercontent.com/nileplumb/PkmnHomeIcons/master/UICONS', 'a preset fills every category')
    t.equal(await setting('uicons_type'), undefined, 'without saving')
    await shoot(page, 'admin-site-settings')

    const member = await open(t, { userId: MEMBER })
    await member.page.goto('/')
    const nav = await openNav(member.page)
    const extra = nav.getByRole('link', { name: /Rules/ })
    t.equal(await extra.getAttribute('href'), 'https://example.org/rules', 'the extra link is in the member\'s navigation')
    await member.page.getByRole('button', { name: 'Account menu' }).click()
    t.same(await member.page.getByLabel('Language').locator('option').allTextContents(), ['English', 'Deutsch'], 'only the site\'s languages are offered')
  })

  t.test('the admin edits a user: account, location, areas, state; the profiles overview', async (t) => {
    const { page } = await open(t, { userId: ADMIN, isAdmin: true })
    await page.goto('/admin/users')
    await page.getByRole('link', { name: 'Edit Bob' }).click()
    await page.getByRole('heading', { name: 'Edit user' }).waitFor()
    const form = page.getByRole('region', { name: 'Account' })
    await form.getByLabel('Notes (only admins see them)').fill('met at the community day')
    await form.getByLabel('Latitude').fill('95')
    await form.getByRole('button', { name: 'Save account' }).click()
    await form.getByText('Enter a latitude between -90 and 90.').waitFor()
    await form.getByLabel('Latitude').fill('51.15')
    await form.getByRole('checkbox', { name: 'Harbour' }).check()
    await form.getByLabel('Language of alert messages').selectOption('de')
    await form.getByRole('button', { name: 'Save account' }).click()
    await form.getByText('Saved.').waitFor()
    const [row] = await app.engineDb.pool.query('SELECT notes, language, latitude, area FROM humans WHERE id = ?', [MEMBER]) as Array<{ notes: string, language: string, latitude: number, area: string }>
    t.equal(row?.notes, 'met at the community day')
    t.equal(row?.language, 'de')
    t.ok(Math.abs(Number(row?.latitude) - 51.15) < 1e-5, `the location (${String(row?.latitude)})`)
    t.same(JSON.parse(row?.area ?? '[]'), ['harbour'], 'the areas')

    const profiles = page.getByRole('region', { name: 'Profiles and alarms' })
    const rows = profiles.locator('tbody tr')
    t.equal(await rows.count(), 2, 'both profiles')
    t.match(await rows.nth(1).textContent(), /Work/)
    await page.getByRole('checkbox', { name: 'Alerts on' }).click()
    await page.getByRole('checkbox', { name: 'Alerts on' }).and(page.locator(':not(:checked)')).waitFor()
    const [paused] = await app.engineDb.pool.query('SELECT enabled FROM humans WHERE id = ?', [MEMBER]) as Array<{ enabled: number }>
    t.equal(Number(paused?.enabled), 0, 'alerts paused')
    t.same(await axeViolations(page), [], 'the edit screen passes axe at 360 px')
    t.ok(await noSidewaysScroll(page), 'and fits 360 px')
    await shoot(page, 'admin-user-edit-phone-light')
  })

  t.test('the users list on a phone: webhook addresses masked, nothing scrolls sideways, deletion asks in a dialog', async (t) => {
    const { page } = await open(t, { userId: ADMIN, isAdmin: true })
    await page.goto('/admin/users')
    await page.getByText('Raid channel', { exact: true }).waitFor()
    const text = await page.locator('main').textContent() ?? ''
    t.notOk(text.includes('very-secret-token'), 'the token is not on the page')
    t.ok(text.includes('https://discord.com/…'), 'the masked address is')
    t.ok(await noSidewaysScroll(page), 'no sideways scroll at 360 px')
    t.same(await axeViolations(page), [], 'axe at 360 px')
    await shoot(page, 'admin-users-phone-light')
    if (screenshots !== undefined) {
      await page.setViewportSize(DESKTOP)
      await shoot(page, 'admin-users-desktop-light')
      await page.setViewportSize(PHONE)
    }
    await page.getByRole('button', { name: 'Delete alarms' }).first().click()
    const dialog = page.getByRole('dialog')
    await dialog.waitFor()
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'hidden' })
    t.pass('a dialog of the page, not the browser\'s confirm')
  })

  t.test('the help page: from the user menu, in English and German, axe clean', async (t) => {
    const { page } = await open(t, { userId: MEMBER })
    await page.goto('/')
    await page.getByRole('button', { name: 'Account menu' }).click()
    await page.getByRole('link', { name: 'Help' }).click()
    await page.getByRole('heading', { name: 'Help', level: 1 }).waitFor()
    await page.getByRole('heading', { name: 'Where an alarm applies: distance or areas' }).waitFor()
    t.match(await page.locator('main').textContent(), /A wild pokémon appears/)
    t.same(await axeViolations(page), [], 'axe at 360 px')
    t.ok(await noSidewaysScroll(page), 'fits 360 px')
    await shoot(page, 'help-phone-light')

    const german = await open(t, { userId: MEMBER, language: 'de' })
    await german.page.goto('/help')
    await german.page.getByRole('heading', { name: 'Hilfe', level: 1 }).waitFor()
    await german.page.getByRole('heading', { name: 'Wohin Alarme gehen' }).waitFor()
    t.same(await axeViolations(german.page), [], 'German too')
  })

  t.test('a profile name in use is refused at its field', async (t) => {
    const { page } = await open(t, { userId: MEMBER })
    await page.goto('/profiles')
    const create = page.getByRole('region', { name: 'Create profile' })
    await create.getByLabel('Profile name').fill('work')
    await create.getByRole('button', { name: 'Create profile' }).click()
    await create.getByText('You already have a profile with this name.').waitFor()
    t.equal(await create.getByLabel('Profile name').getAttribute('aria-invalid'), 'true')
    const [rows] = await app.engineDb.pool.query('SELECT COUNT(*) AS n FROM profiles WHERE id = ?', [MEMBER]) as Array<{ n: number }>
    t.equal(Number(rows?.n), 2, 'no profile was added')
  })

  t.test('the desktop sidebar stays in place on a long page', async (t) => {
    const { page } = await open(t, { userId: ADMIN, isAdmin: true, viewport: DESKTOP })
    await page.goto('/admin/settings')
    await page.getByRole('region', { name: 'Icon sets' }).waitFor()
    const nav = page.getByRole('navigation', { name: 'Main navigation' })
    const before = (await nav.boundingBox())?.y ?? -1
    await page.mouse.wheel(0, 2000)
    await page.waitForFunction(() => window.scrollY > 500)
    const after = (await nav.boundingBox())?.y ?? -1
    // It sits under the top bar (60 px, give or take the bar's border) before and after 2000 px of page.
    t.ok(Math.abs(after - before) <= 1 && after >= 55 && after <= 65, `the sidebar did not move with the page (${before} → ${after})`)
  })
}
