import { mkdirSync } from 'node:fs'
import { createServer } from 'node:http'
import t from 'tap'
import type { Page } from 'playwright-core'
import { axeViolations, type BrowserApp, browserMissing, DESKTOP, noSidewaysScroll, PHONE, startBrowserApp } from './browser.js'
import type { Test } from './helper.js'
import { MAP_PNG } from './fakes/alarm-engine.js'
import { startNominatimFake } from './fakes/nominatim.js'

/**
 * The areas and location pages as a member uses them, in Debian's Chromium at 360 px and on a desktop,
 * against the whole app, the engine fake and the Nominatim fake: ticks that answer at once and come back
 * when the engine refuses, select all / none per group, names on the map, fit and full screen; a pin
 * dragged, nudged from the keyboard and put back with Undo, its address following it.
 * With SCREENSHOT_DIR set, both pages are saved there at both sizes.
 */

const BAKER = 'Baker Street 221b, Marylebone, London, NW1 6XE, United Kingdom'
const REGENT = 'Regent Street 1, Mayfair, London, W1B 4HA, United Kingdom'
const PIN = { latitude: 51.5237, longitude: -0.1585 }
/** About 1 km east of the pin: a drag of some 150 px at zoom 14 lands nearer here than Baker Street. */
const EAST = { latitude: 51.5237, longitude: -0.1435 }
const TOWN: Array<[number, number]> = [[51.50, -0.12], [51.50, -0.10], [51.51, -0.10], [51.51, -0.12]]
const PARK: Array<[number, number]> = [[51.51, -0.12], [51.51, -0.10], [51.52, -0.10], [51.52, -0.12]]
const HARBOUR: Array<[number, number]> = [[51.50, -0.09], [51.50, -0.07], [51.51, -0.07], [51.51, -0.09]]

t.setTimeout(300_000)

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await browserTests()

async function browserTests (): Promise<void> {
  // Tiles from a local stand-in, so the screenshots show a map ground and nothing leaves the machine.
  const tiles = createServer((_request, response) => { response.writeHead(200, { 'content-type': 'image/png' }).end(MAP_PNG) })
  await new Promise<void>((resolve) => tiles.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { tiles.close() })
  const address = tiles.address()
  const tileUrl = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/{z}/{x}/{y}.png`
  const nominatim = await startNominatimFake({ places: [{ name: BAKER, ...lonLat(PIN) }, { name: REGENT, ...lonLat(EAST) }] })
  t.teardown(() => nominatim.close())
  const site = await startBrowserApp(t, { env: { MAP_TILE_URL: tileUrl } })
  site.testApp.engine.set({ providerURL: nominatim.url, fences: [{ name: 'Town', group: 'North', path: TOWN }, { name: 'Park', group: 'North', path: PARK }, { name: 'Harbour', group: 'South', path: HARBOUR }] })

  const screenshots = process.env.SCREENSHOT_DIR
  if (screenshots !== undefined) mkdirSync(screenshots, { recursive: true })
  async function snap (page: Page, name: string): Promise<void> {
    if (screenshots === undefined) return
    await page.evaluate(() => { window.scrollTo(0, 0) })
    await page.screenshot({ path: `${screenshots}/${name}.png`, fullPage: true })
  }
  let next = 0
  /** A member of their own per test, so one test's areas and pin never meet another's. */
  const member = (): { id: string, name: string, latitude: number, longitude: number } => ({ id: `7777777777777777${String(10 + next++)}`, name: 'Dana', ...PIN })

  async function engineAreas (id: string): Promise<string[]> {
    const [row] = await site.testApp.app.engineDb.pool.query('SELECT area FROM humans WHERE id = ?', [id]) as Array<{ area: string }>
    return JSON.parse(row?.area ?? '[]') as string[]
  }
  async function enginePin (id: string): Promise<{ latitude: number, longitude: number }> {
    const [row] = await site.testApp.app.engineDb.pool.query('SELECT latitude, longitude FROM humans WHERE id = ?', [id]) as Array<{ latitude: number, longitude: number }>
    return { latitude: Number(row?.latitude), longitude: Number(row?.longitude) }
  }

  for (const [size, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
    t.test(`areas (${size}): select all / none per group with counts, names on the map, fit and full screen`, async (t) => {
      const human = member()
      const page = await site.signIn(t, human, '/areas', viewport)
      const north = page.getByRole('group', { name: /^North/ })
      await north.getByText('0 of 2 selected').waitFor()
      t.same(await page.locator('.leaflet-tooltip.area-label').allTextContents(), ['Town', 'Park', 'Harbour'], 'every area is named on the map')

      await north.getByRole('button', { name: 'Select all in North' }).click()
      await north.getByText('2 of 2 selected').waitFor()
      await page.getByText('Saved. The alarm engine now has: town, park.').waitFor()
      t.same((await engineAreas(human.id)).sort(), ['park', 'town'], 'both areas of the group reached the engine')
      t.ok(await north.getByRole('button', { name: 'Select all in North' }).isDisabled(), 'select all is done once all are ticked')
      await page.locator('.leaflet-tooltip.area-label-selected', { hasText: 'Park' }).waitFor()

      await page.getByRole('group', { name: /^South/ }).getByRole('checkbox', { name: 'Harbour' }).click()
      await page.getByText('Saved. The alarm engine now has: town, park, harbour.').waitFor()
      await north.getByRole('button', { name: 'Select none in North' }).click()
      await page.getByText('Saved. The alarm engine now has: harbour.').waitFor()
      await north.getByText('0 of 2 selected').waitFor()
      t.same(await engineAreas(human.id), ['harbour'], 'select none cleared only its own group')

      // Fit: after the view is moved far off, the button brings every area back into sight.
      const map = page.getByRole('region', { name: 'Map of the areas you can choose' })
      await map.scrollIntoViewIfNeeded()
      const box = await map.boundingBox()
      if (box === null) throw new Error('no map on the page')
      for (let i = 0; i < 3; i++) {
        await page.mouse.move(box.x + box.width * 0.8, box.y + box.height * 0.5)
        await page.mouse.down()
        await page.mouse.move(box.x + box.width * 0.1, box.y + box.height * 0.5, { steps: 5 })
        await page.mouse.up()
      }
      const inView = async (): Promise<boolean> => await page.locator('path[data-area="harbour"]').evaluate((path) => {
        const frame = path.closest('.map')?.getBoundingClientRect()
        const shape = path.getBoundingClientRect()
        return frame !== undefined && shape.left >= frame.left && shape.right <= frame.right && shape.width > 0
      })
      t.notOk(await inView(), 'dragged away, the harbour is out of view')
      await page.getByRole('button', { name: 'Show all areas' }).click()
      await page.waitForFunction(() => {
        const path = document.querySelector('path[data-area="harbour"]')
        const frame = path?.closest('.map')?.getBoundingClientRect()
        const shape = path?.getBoundingClientRect()
        return frame !== undefined && shape !== undefined && shape.left >= frame.left && shape.right <= frame.right
      })
      t.ok(await inView(), 'fit brings the areas back into view')

      const full = page.getByRole('button', { name: 'Full screen' })
      await full.click()
      t.equal(await full.getAttribute('aria-pressed'), 'true', 'the full screen button says it is on')
      const wide = await map.boundingBox()
      t.ok(wide !== null && wide.width >= viewport.width - 24 && wide.height >= viewport.height * 0.8, 'the map fills the window')
      t.same(await axeViolations(page), [], 'axe-core finds nothing with the map full screen')
      await page.keyboard.press('Escape')
      t.equal(await full.getAttribute('aria-pressed'), 'false', 'Escape leaves full screen')

      t.ok(await noSidewaysScroll(page), 'no sideways scrolling')
      t.same(await axeViolations(page), [], 'axe-core finds nothing on the areas page')
      await snap(page, `areas-${size}`)
    })
  }

  t.test('areas (phone): a tick answers before the engine does, and a refused save puts it back with the reason', async (t) => {
    const human = member()
    const page = await site.signIn(t, human, '/areas', PHONE)
    const town = page.getByRole('checkbox', { name: 'Town' })
    await town.waitFor()
    site.testApp.engine.delay(1500)
    site.testApp.engine.failWith({ path: /setAreas/, times: 1 })
    t.teardown(() => { site.testApp.engine.reset() })
    await town.click()
    t.ok(await town.isChecked(), 'ticked at once, while the engine is still answering')
    t.equal(await page.locator('.leaflet-tooltip.area-label-selected').count(), 1, 'the map shows it chosen at once too')
    const alert = page.getByRole('alert').getByText(/Your last change was not saved: .+ The ticks show your saved areas again\./)
    await alert.waitFor()
    t.notOk(await town.isChecked(), 'the tick is rolled back')
    t.same(await engineAreas(human.id), [], 'the engine has nothing')
    site.testApp.engine.reset()

    await town.click()
    await page.getByText('Saved. The alarm engine now has: town.').waitFor()
    t.equal(await alert.count(), 0, 'the failure message goes once a change is saved')
    t.same(await engineAreas(human.id), ['town'])
  })

  t.test('areas (phone): quick taps while a save is under way end with the engine holding what the screen shows', async (t) => {
    const human = member()
    const page = await site.signIn(t, human, '/areas', PHONE)
    await page.getByRole('checkbox', { name: 'Town' }).waitFor()
    site.testApp.engine.delay(400)
    t.teardown(() => { site.testApp.engine.reset() })
    for (const name of ['Town', 'Park', 'Harbour', 'Park']) await page.getByRole('checkbox', { name }).click()
    await page.getByText('Saved. The alarm engine now has: town, harbour.').waitFor()
    t.same(await engineAreas(human.id), ['town', 'harbour'], 'the last state won')
  })

  async function dragPin (page: Page, dx: number): Promise<void> {
    const pin = page.locator('.location-pin')
    await pin.scrollIntoViewIfNeeded()
    const box = await pin.boundingBox()
    if (box === null) throw new Error('no pin on the map')
    const x = box.x + box.width / 2
    const y = box.y + box.height / 2
    await page.mouse.move(x, y)
    await page.mouse.down()
    await page.mouse.move(x + dx, y, { steps: 8 })
    await page.mouse.up()
  }

  for (const [size, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
    t.test(`location (${size}): drag the pin, its address follows, Undo puts it back, the buttons move it without a mouse`, async (t) => {
      const human = member()
      const page = await setUpLocation(t, site, human, viewport)
      const facts = page.locator('dl.facts')
      await facts.getByText(BAKER).waitFor()
      const undo = page.getByRole('button', { name: 'Undo last move' })
      t.ok(await undo.isDisabled(), 'nothing to undo yet')

      await dragPin(page, 150)
      await page.getByText('Location saved.').waitFor()
      await facts.getByText(REGENT).waitFor()
      const dragged = await enginePin(human.id)
      t.ok(dragged.longitude > PIN.longitude + 0.005 && Math.abs(dragged.latitude - PIN.latitude) < 0.002, `the engine has the dragged point (${dragged.latitude}, ${dragged.longitude})`)

      await undo.click()
      await page.getByText('The pin is back where it was.').waitFor()
      await facts.getByText(BAKER).waitFor()
      t.ok(samePoint(await enginePin(human.id), PIN), 'Undo saved the earlier point')
      t.ok(await undo.isDisabled(), 'one step of undo')

      const moves = page.getByRole('group', { name: 'Move the pin 100 m' })
      await moves.getByRole('button', { name: 'North' }).focus()
      await page.keyboard.press('Enter')
      await page.getByText('Location saved.').waitFor()
      const north = await enginePin(human.id)
      t.ok(Math.abs(north.latitude - PIN.latitude - 100 / 111_320) < 2e-6 && Math.abs(north.longitude - PIN.longitude) < 2e-6, 'North moves the pin 100 m north')
      await undo.click()
      await page.getByText('The pin is back where it was.').waitFor()

      t.ok(await noSidewaysScroll(page), 'no sideways scrolling')
      t.same(await axeViolations(page), [], 'axe-core finds nothing on the location page')
      await snap(page, `location-${size}`)
    })
  }

  t.test('location (phone): a refused drag puts the pin back where the engine has it', async (t) => {
    const human = member()
    const page = await setUpLocation(t, site, human, PHONE)
    await page.locator('dl.facts').getByText(BAKER).waitFor()
    const before = await page.locator('.location-pin').boundingBox()
    site.testApp.engine.failWith({ path: /setLocation/, times: 1 })
    t.teardown(() => { site.testApp.engine.reset() })
    await dragPin(page, 120)
    await page.getByRole('alert').locator('.notice-error').waitFor()
    await page.waitForFunction((x) => {
      const box = document.querySelector('.location-pin')?.getBoundingClientRect()
      return box !== undefined && Math.abs(box.x - x) < 2
    }, before?.x ?? 0)
    t.ok(samePoint(await enginePin(human.id), PIN), 'the engine still has the first point')
    t.ok(await page.getByRole('button', { name: 'Undo last move' }).isDisabled(), 'a refused move leaves nothing to undo')
  })
}

/** The engine keeps coordinates as doubles: equal to a micro-degree is the same point. */
function samePoint (a: { latitude: number, longitude: number }, b: { latitude: number, longitude: number }): boolean {
  return Math.abs(a.latitude - b.latitude) < 2e-6 && Math.abs(a.longitude - b.longitude) < 2e-6
}

function lonLat (point: { latitude: number, longitude: number }): { lat: number, lon: number } {
  return { lat: point.latitude, lon: point.longitude }
}

async function setUpLocation (t: Test, site: BrowserApp, human: { id: string, name: string, latitude: number, longitude: number }, viewport: { width: number, height: number }): Promise<Page> {
  const page = await site.signIn(t, human, '/location', viewport)
  await page.locator('.location-pin').waitFor()
  return page
}
