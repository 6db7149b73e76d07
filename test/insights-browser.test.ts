import { mkdirSync, readFileSync } from 'node:fs'
import t from 'tap'
import type { Page } from 'playwright-core'
import { axeViolations, browserMissing, DESKTOP, PHONE, startBrowserApp, type BrowserApp, testContext } from './browser.js'
import { bearer, seedHuman, type Test } from './helper.js'
import { insertAlarm } from './fakes/engine-db.js'

/**
 * The admin insights page in Debian's Chromium against the whole app: every panel draws its chart with a
 * text alternative and has its numbers behind it (table and CSV), in light and dark, at 360 px and on a
 * desktop, axe clean; a failed panel says so and retries on its own, an empty one says there is nothing
 * yet. With SCREENSHOT_DIR set, the page is saved (insights-desktop-light.png, insights-phone-dark.png).
 */

const ADMIN = '920000000000000001'
const PANELS = ['Members', 'Alarms', 'Areas', 'Noise', 'Sign-in methods']

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await browserTests()

async function browserTests (): Promise<void> {
  const noSidewaysScroll = async (page: Page): Promise<boolean> => await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)

  async function community (site: BrowserApp): Promise<void> {
    const { app, clock } = site.testApp
    site.testApp.engine.set({ fences: [{ name: 'Town', path: [[51, 7], [51, 7.2], [51.2, 7.2], [51.2, 7]] }, { name: 'Harbour', path: [[53, 8], [53, 8.1], [53.1, 8.1], [53.1, 8]] }] })
    for (let i = 0; i < 12; i++) {
      const id = `9200000000000001${String(i).padStart(2, '0')}`
      await seedHuman(site.testApp, { id, name: `Member ${i}`, area: i % 3 === 0 ? ['harbour'] : ['town'], enabled: i !== 4 })
      for (let n = 0; n < i; n++) await insertAlarm(app.engineDb.pool, 'pokemon', { id, pokemon_id: [25, 150, 1][n % 3] as number })
      await insertAlarm(app.engineDb.pool, 'raid', { id, pokemon_id: 150, level: 5 })
    }
    const rows = Array.from({ length: 120 }, (_, i) => [`9200000000000001${String(i % 12).padStart(2, '0')}`, ['discord', 'telegram', 'oidc'][i % 3],
      new Date(clock.now() - (i % 60) * 86_400_000 - 3_600_000).toISOString().replace('T', ' ').replace('Z', '')])
    await app.db.pool.batch('INSERT INTO sign_ins (user_id, method, at) VALUES (?, ?, ?)', rows)
  }

  async function open (test: Test, site: BrowserApp, viewport: { width: number, height: number }, colorScheme: 'light' | 'dark'): Promise<Page> {
    const context = await testContext(site.browser, { baseURL: site.base, viewport, colorScheme, acceptDownloads: true })
    test.teardown(async () => { await context.close() })
    const page = await context.newPage()
    const token = bearer(site.testApp.app, { userId: ADMIN, isAdmin: true }).authorization.slice('Bearer '.length)
    await page.goto('/login?loggedout=1')
    await page.evaluate((value) => { localStorage.setItem('aw.token', value); localStorage.setItem('aw.signIn', 'discord') }, token)
    await page.goto('/admin/insights')
    await page.getByRole('heading', { level: 1, name: 'Community insight' }).waitFor()
    return page
  }

  async function screenshot (page: Page, name: string): Promise<void> {
    const dir = process.env.SCREENSHOT_DIR
    if (dir === undefined) return
    mkdirSync(dir, { recursive: true })
    await page.evaluate(() => { window.scrollTo(0, 0) })
    await page.screenshot({ path: `${dir}/${name}`, fullPage: true })
  }

  t.test('every panel: a chart with a text alternative, its numbers behind it, CSV; light and dark, phone and desktop, axe clean', async (t) => {
    const site = await startBrowserApp(t)
    site.testApp.clock.set(Date.now())
    await seedHuman(site.testApp, { id: ADMIN, name: 'Ada' })
    await community(site)

    for (const [viewport, scheme, name] of [[DESKTOP, 'light', 'insights-desktop-light.png'], [PHONE, 'dark', 'insights-phone-dark.png'], [PHONE, 'light', null], [DESKTOP, 'dark', null]] as const) {
      const page = await open(t, site, viewport, scheme)
      const what = `${viewport.width} px, ${scheme}`
      for (const panel of PANELS) await page.getByRole('region', { name: panel, exact: true }).getByText(/^Figures as of /).waitFor()
      const members = page.getByRole('region', { name: 'Members', exact: true })
      t.equal(await members.locator('.insight-tile').filter({ hasText: /^Members/ }).locator('dd').textContent(), '13', `${what}: the member count`)
      const charts = page.getByRole('img', { name: /chart/ })
      await charts.first().waitFor()
      const labels = await charts.evaluateAll((nodes) => nodes.map((n) => n.getAttribute('aria-label') ?? ''))
      t.equal(labels.length, 8, `${what}: eight charts drawn (noise has no scanner here; no push device, so no browsers chart)`)
      t.ok(labels.some((l) => /^Line chart of sign-ins per day over the last 90 days: 120 in total/.test(l)), `${what}: the sign-in chart says its total`)
      t.ok(labels.some((l) => /^Bar chart of members per area, 2 areas; the most members in Town \(8\)/.test(l)), `${what}: the area chart says its largest area`)
      const drawn = await page.locator('.insight-chart canvas').first().evaluate((c) => (c as HTMLCanvasElement).width > 0)
      t.ok(drawn, `${what}: the canvas has a size`)

      const alarms = page.getByRole('region', { name: 'Alarms', exact: true })
      t.equal(await alarms.locator('.insight-ranking li').count(), 3, `${what}: the three tracked species, each with its icon`)
      t.equal(await alarms.locator('.insight-ranking li .game-icon').count(), 3)
      const areas = page.getByRole('region', { name: 'Areas', exact: true })
      await areas.getByText('Show the numbers').click()
      t.same(await areas.getByRole('table').getByRole('row').allTextContents(), ['AreaMembersKnown to the alarm engine', 'Town8Yes', 'Harbour4Yes'], `${what}: the table behind the area chart`)
      t.same(await axeViolations(page), [], `${what}: axe-core finds nothing`)
      if (viewport === PHONE) t.ok(await noSidewaysScroll(page), `${what}: no sideways scrolling at 360 px`)
      if (scheme === 'dark') {
        const background = await page.locator('.insight-panel').first().evaluate((e) => getComputedStyle(e).backgroundColor)
        t.equal(background, 'rgb(28, 31, 36)', `${what}: the dark theme's surface`)
      }
      if (name !== null) await screenshot(page, name)
      if (viewport === DESKTOP && scheme === 'light') {
        const [download] = await Promise.all([page.waitForEvent('download'), areas.getByRole('button', { name: /Download “Members per area” as CSV/ }).click()])
        const path = await download.path()
        t.equal(readFileSync(path, 'utf8'), '\uFEFFArea,Members,Known to the alarm engine\r\nTown,8,true\r\nHarbour,4,true\r\n', 'the CSV is the table')
        t.equal(download.suggestedFilename(), 'Members per area.csv')
      }
    }
  })

  t.test('a failed panel says so and tries again; an empty one says there is nothing yet; the others are unaffected', async (t) => {
    const site = await startBrowserApp(t)
    site.testApp.clock.set(Date.now())
    await seedHuman(site.testApp, { id: ADMIN, name: 'Ada' })
    const context = await testContext(site.browser, { baseURL: site.base, viewport: PHONE })
    t.teardown(async () => { await context.close() })
    let failures = 1
    await context.route('**/api/admin/insights/alarms', async (route) => {
      if (failures-- > 0) await route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: 'The alarm engine is unavailable.' }) })
      else await route.continue()
    })
    const page = await context.newPage()
    const token = bearer(site.testApp.app, { userId: ADMIN, isAdmin: true }).authorization.slice('Bearer '.length)
    await page.goto('/login?loggedout=1')
    await page.evaluate((value) => { localStorage.setItem('aw.token', value); localStorage.setItem('aw.signIn', 'discord') }, token)
    await page.goto('/admin/insights')
    const alarms = page.getByRole('region', { name: 'Alarms', exact: true })
    await alarms.getByRole('alert').waitFor()
    t.match(await alarms.getByRole('alert').textContent(), /The alarm engine is unavailable/)
    await page.getByRole('region', { name: 'Members', exact: true }).getByText(/^Figures as of /).waitFor()
    const signIns = page.getByRole('region', { name: 'Sign-in methods', exact: true })
    await signIns.getByText('Nothing to show yet.').waitFor()
    t.pass('an empty panel says there is nothing yet')
    t.same(await axeViolations(page), [], 'axe-core finds nothing on the error and empty states')
    await alarms.getByRole('button', { name: 'Try again' }).click()
    await alarms.getByText(/^Figures as of /).waitFor()
    t.equal(await alarms.getByRole('alert').count(), 0, 'the retry loaded the panel')
  })
  t.test('the areas map: fences shaded by members; a click on one, or the list, reads its members and the pokémon tracked most there', async (t) => {
    const site = await startBrowserApp(t)
    await seedHuman(site.testApp, { id: ADMIN, name: 'Ada' })
    await community(site)
    for (const viewport of [PHONE, DESKTOP]) {
      const page = await open(t, site, viewport, 'light')
      const areas = page.getByRole('region', { name: 'Areas', exact: true })
      const town = areas.locator('path.insight-area[data-area="Town"]')
      await town.waitFor()
      const shade = async (name: string) => Number(await areas.locator(`path.insight-area[data-area="${name}"]`).getAttribute('fill-opacity'))
      t.equal(await town.getAttribute('data-members'), '8')
      t.ok(await shade('Town') > await shade('Harbour'), `${viewport.width} px: Town (8 members) is darker than Harbour (4)`)
      await town.click()
      const figures = areas.locator('.insight-area-figures')
      await figures.getByText('Town — members: 8. Tracked most there: Pikachu (8), Mewtwo (7), Bulbasaur (6).').waitFor()
      t.pass(`${viewport.width} px: a click names the area's members and its most tracked pokémon`)
      await areas.getByLabel('Area', { exact: true }).selectOption('Harbour')
      await figures.getByText(/^Harbour — members: 4\. Tracked most there: /).waitFor()
      t.same(await axeViolations(page), [], `${viewport.width} px: axe-clean with the map and an area's figures`)
      t.ok(await noSidewaysScroll(page), `${viewport.width} px: nothing wider than the screen`)
    }
  })
}
