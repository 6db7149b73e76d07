import t from 'tap'
import type { Page } from 'playwright-core'
import { axeViolations, browserMissing, DESKTOP, noSidewaysScroll, PHONE, startBrowserApp } from './browser.js'
import { bearer, build, seedHuman } from './helper.js'
import { insertAlarm } from './fakes/engine-db.js'
import { startNominatimFake } from './fakes/nominatim.js'

/**
 * The dashboard in Debian's Chromium, at 360 px and on a desktop, against the whole app and the engine
 * fake: a new member is started off (the editor or a quick pick in one tap), the pin is named in words
 * (address, else the areas holding it, else "Location set", never coordinates), what to do next follows
 * what is missing, each offered type has its icon and count, and the phone's drawer lists the alarm
 * types before the settings.
 */
const ADMIN = '222222222222222222'
const HARBOUR: Array<[number, number]> = [[51, 7], [51, 7.2], [51.2, 7.2], [51.2, 7]]
const PIN = { latitude: 51.1234, longitude: 7.1234 }
const BAKER = 'Baker Street 221b, Marylebone, London, NW1 6XE, United Kingdom'

t.setTimeout(300_000)

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await browserTests()

const facts = (page: Page) => page.locator('#home-where').locator('xpath=..').locator('dl.facts')
const nextSteps = (page: Page) => page.locator('.next-steps')

async function browserTests (): Promise<void> {
  // The engine names a geocoder from the start (the service trusts what it read for a while); the site's
  // switch turns address lookups off for every test but the one about addresses.
  const nominatim = await startNominatimFake({ places: [{ name: BAKER, lat: PIN.latitude, lon: PIN.longitude }] })
  t.teardown(() => nominatim.close())
  const env = await startBrowserApp(t, { env: { PORACLE_ADMIN_IDS: ADMIN } })
  const { app } = env.testApp
  env.testApp.engine.set({ providerURL: nominatim.url })
  await seedHuman(env.testApp, { id: ADMIN, name: 'Alice' })
  const admin = bearer(app, { userId: ADMIN, isAdmin: true })
  const addressLookups = async (on: boolean): Promise<void> => {
    const answer = await app.inject({ method: 'PUT', url: '/api/settings/disable_nominatim', headers: admin, payload: { value: on ? 'false' : 'true' } })
    if (answer.statusCode !== 200) throw new Error(`address lookups not switched: ${answer.statusCode}`)
  }
  await addressLookups(false)
  t.equal((await app.inject({ method: 'POST', url: '/api/quick-picks/seed', headers: admin })).statusCode, 204, 'built-in picks seeded')
  env.testApp.engine.set({ fences: [{ name: 'Harbour', path: HARBOUR }, { name: 'my corner ~u7', path: HARBOUR }] })

  for (const [size, viewport] of [['360 px', PHONE], ['desktop', DESKTOP]] as const) {
    t.test(`${size}: a new member adds a first alarm from the dashboard with one tap`, async (t) => {
      const id = size === '360 px' ? '9100' : '9101'
      const page = await env.signIn(t, { id, name: `new${id}` }, '/', viewport)
      const first = page.getByRole('region', { name: 'Your first alarm' })
      await first.getByRole('link', { name: 'Add your first alarm' }).waitFor()
      await first.getByRole('button', { name: 'Add 100% IV' }).waitFor()
      t.equal(await first.getByRole('button', { name: /^Add / }).count() > 5, true, 'the site\'s quick picks are offered')
      await nextSteps(page).getByRole('button', { name: 'Set your location' }).waitFor()
      t.equal(await nextSteps(page).getByRole('button', { name: 'Choose your areas' }).count(), 1, 'no location and no areas: choose areas is next')
      t.equal(await nextSteps(page).getByRole('button', { name: 'Resume alerts' }).count(), 0, 'alerts are on: nothing to resume')
      t.equal(await facts(page).locator('dd').nth(1).textContent(), 'Not set', 'no location said in words')
      const tiles = page.locator('.tile-with-icon')
      await tiles.first().waitFor()
      // Counted in the markup: on a phone the closed drawer hides its links from the accessibility tree.
      const offered = await page.locator('#site-nav a[href^="/alarms/"]').count()
      t.equal(await tiles.count(), offered, 'a tile for each offered type, no more')
      t.equal(await tiles.locator('.game-icon').count(), offered, 'each tile has its icon')
      t.same(await axeViolations(page), [], 'axe-clean for a new member')
      if (viewport === PHONE) t.ok(await noSidewaysScroll(page), 'no sideways scrolling at 360 px')

      // The measured path: sign-in, then this one tap, is a first alarm.
      await first.getByRole('button', { name: 'Add 100% IV' }).click()
      await page.getByRole('status').getByText('100% IV applied: 1 alarm added.').waitFor()
      await first.waitFor({ state: 'detached' })
      t.equal((await env.rows('monsters', id)).length, 1, 'the engine has the alarm')
      await page.locator('.tile-with-icon', { hasText: 'Pokémon' }).locator('.tile-count', { hasText: '1' }).waitFor()
      t.same(await axeViolations(page), [], 'axe-clean after the first alarm')
    })
  }

  t.test('"Add your first alarm" opens the new alarm\'s editor; closing it leaves a plain page', async (t) => {
    const page = await env.signIn(t, { id: '9102', name: 'new9102' }, '/', PHONE)
    await page.getByRole('link', { name: 'Add your first alarm' }).click()
    const editor = page.getByRole('dialog', { name: 'New alarm: Pokémon' })
    await editor.waitFor()
    t.match(page.url(), /\/alarms\/monsters\?add=new$/)
    t.same(await axeViolations(page), [], 'axe-clean with the editor open')
    await editor.getByRole('button', { name: 'Cancel' }).click()
    await editor.waitFor({ state: 'detached' })
    t.match(page.url(), /\/alarms\/monsters$/, 'the address no longer asks for the editor')
  })

  t.test('the pin in words: the address where a geocoder is configured, never the coordinates', async (t) => {
    await addressLookups(true)
    t.teardown(() => addressLookups(false))
    const page = await env.signIn(t, { id: '9103', name: 'member9103', ...PIN, area: ['harbour'] }, '/', PHONE)
    await facts(page).getByText(BAKER).waitFor()
    const text = await page.locator('main').innerText()
    t.notOk(text.includes('51.12') || text.includes('51,12') || text.includes('7.12') || text.includes('7,12'), 'no coordinate on the page')
    t.equal(await nextSteps(page).count(), 0, 'location, areas and alerts on: no next step')
    t.same(await axeViolations(page), [], 'axe-clean')
  })

  t.test('without a geocoder the areas holding the pin name it, a member\'s own fence by its display name', async (t) => {
    const page = await env.signIn(t, { id: '9104', name: 'member9104', ...PIN, area: ['my corner ~u7'] }, '/', DESKTOP)
    await facts(page).getByText('In Harbour, my corner').waitFor()
    t.equal(await facts(page).locator('dd').nth(2).textContent(), 'my corner', 'the chosen own fence without its ~u suffix')
    t.notOk((await page.locator('main').innerText()).includes('~u'), 'no engine suffix anywhere')
  })

  t.test('a pin outside every area is "Location set"; a distance alarm makes areas unnecessary', async (t) => {
    const id = '9105'
    await seedHuman(env.testApp, { id, name: 'member9105', latitude: 40, longitude: -3 })
    const page = await env.signIn(t, { id, name: 'member9105', seeded: true }, '/', PHONE)
    await facts(page).getByText('Location set').waitFor()
    await nextSteps(page).getByRole('button', { name: 'Choose your areas' }).waitFor()
    t.equal(await nextSteps(page).getByRole('button', { name: 'Set your location' }).count(), 0, 'the location is set')

    await insertAlarm(app.engineDb.pool, 'pokemon', { id, pokemon_id: 25, distance: 500 })
    await page.reload()
    await facts(page).getByText('Location set').waitFor()
    await page.locator('.tile-count', { hasText: '1' }).first().waitFor()
    t.equal(await nextSteps(page).count(), 0, 'an alarm with a distance reaches the member without areas')
  })

  t.test('paused alerts: resuming is the next step, and it goes once done', async (t) => {
    const page = await env.signIn(t, { id: '9106', name: 'member9106', ...PIN, area: ['harbour'], enabled: false }, '/', PHONE)
    const resume = nextSteps(page).getByRole('button', { name: 'Resume alerts' })
    await resume.waitFor()
    t.same(await axeViolations(page), [], 'axe-clean with a next step')
    await resume.click()
    await nextSteps(page).waitFor({ state: 'detached' })
    t.equal(await page.getByText('Your alerts are on.').count(), 1)
  })

  t.test('the phone\'s drawer lists Home, the alarm types, then the settings; the desktop keeps its order', async (t) => {
    const order = async (page: Page): Promise<string[]> => await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link').allInnerTexts()
    const phone = await env.signIn(t, { id: '9107', name: 'member9107', ...PIN }, '/', PHONE)
    await phone.getByRole('button', { name: 'Menu', exact: true }).click()
    await phone.getByRole('navigation').getByRole('link', { name: 'Pokémon' }).waitFor()
    const onPhone = await order(phone)
    t.equal(onPhone[0], 'Home')
    t.equal(onPhone[1], 'Pokémon', 'the alarm types right after Home')
    t.ok(onPhone.indexOf('Profiles') > onPhone.indexOf('Raids'), 'the settings after the alarm types')
    await phone.getByRole('heading', { name: 'Settings' }).waitFor()
    t.same(await axeViolations(phone), [], 'axe-clean with the drawer open')

    const desktop = await env.signIn(t, { id: '9107', name: 'member9107', seeded: true }, '/', DESKTOP)
    await desktop.getByRole('navigation').getByRole('link', { name: 'Pokémon' }).waitFor()
    const onDesktop = await order(desktop)
    t.ok(onDesktop.indexOf('Profiles') < onDesktop.indexOf('Pokémon'), 'the desktop lists the pages first')
    t.equal(await desktop.getByRole('heading', { name: 'Settings' }).count(), 0)
  })
}

t.test('GET /api/dashboard/place refuses what is not a point, and strangers', async (t) => {
  const testApp = await build(t)
  await seedHuman(testApp, { id: '9110', name: 'member9110' })
  const headers = bearer(testApp.app, { userId: '9110' })
  const get = async (query: string, auth = true) => await testApp.app.inject({ method: 'GET', url: `/api/dashboard/place?${query}`, ...(auth && { headers }) })
  t.equal((await get('lat=91&lon=7')).statusCode, 400, 'a latitude past the pole')
  t.equal((await get('lat=51')).statusCode, 400, 'no longitude')
  t.equal((await get('lat=51&lon=7', false)).statusCode, 401, 'no session')
  testApp.engine.set({ fences: [{ name: 'North', path: HARBOUR }, { name: 'South', path: [[48, 9], [48, 9.5], [49, 9.5], [49, 9]] }] })
  t.same((await get('lat=51.1&lon=7.1')).json(), { address: null, areas: ['North'], distanceAlarms: 0 }, 'the fence holding the point, no geocoder')
})
