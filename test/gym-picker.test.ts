import t from 'tap'
import type { Page } from 'playwright-core'
import { rootConnection } from './helper.js'
import { scannerDatabase } from './fakes/scanner-db.js'
import { s2CellIdSigned } from '../lib/s2.js'
import { axeViolations, browserMissing, PHONE, startBrowserApp } from './browser.js'

/**
 * The gym picker of the raid, egg and gym alarm forms in a real browser: with the scanner (its Golbat
 * tables in MariaDB, the areas from the engine's fences) a gym is found by name and stored by id, and
 * the cards name it; without a scanner the picker is hidden and alarms keep "any gym".
 */
const GYMS: Array<[string, string, number, number]> = [
  ['g1', 'Central Fountain', 51.1, 7.1],
  ['g2', 'Central Station Mural', 51.12, 7.12],
  ['g3', 'Old Mill', 10, 10]
]

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await gymPickerTests()

async function gymPickerTests (): Promise<void> {
  const save = (page: Page) => page.getByRole('button', { name: /^(Save|Create 1 alarm)$/ }).click()
  const combobox = (page: Page) => page.getByRole('combobox', { name: 'Gym' })
  /** Taps a tile of the level grid (a group of toggle buttons) and waits for it to read as chosen. */
  const chooseLevel = async (page: Page, level: string, group: string | RegExp = 'Level') => {
    const grid = page.getByRole('group', { name: group, exact: true })
    await grid.getByRole('button', { name: level, exact: true }).click()
    await grid.getByRole('button', { name: level, exact: true, pressed: true }).waitFor()
  }

  t.test('with the scanner: a gym picked by name is stored by id and named on the card', async (t) => {
    const database = await scannerDatabase()
    const scanner = await rootConnection()
    t.teardown(() => scanner.end())
    await scanner.query(`USE \`${database}\``)
    for (const [id, name, lat, lon] of GYMS) await scanner.query('INSERT INTO gym (id, name, lat, lon) VALUES (?, ?, ?, ?)', [id, name, lat, lon])
    const env = await startBrowserApp(t, {
      env: { SCANNER_DB_HOST: '127.0.0.1', SCANNER_DB_USER: 'root', SCANNER_DB_NAME: database }
    })
    // A gym's area is the engine's fence containing it (here its own geofence file).
    env.testApp.engine.set({ fences: [{ name: 'Town', path: [[51, 7], [51, 7.2], [51.2, 7.2], [51.2, 7]] }] })
    const user = { id: '400000000000000001', name: 'Misty', latitude: 51.1, longitude: 7.1 }
    // Rain over the member's pin: the dashboard names it and the types it boosts.
    await scanner.query('INSERT INTO weather (id, level, latitude, longitude, gameplay_condition, updated) VALUES (?, 10, 51.1, 7.1, 2, ?)', [s2CellIdSigned(51.1, 7.1, 10), Math.floor(Date.now() / 1000)])
    const home = await env.signIn(t, user, '/', PHONE)
    await home.getByText('In-game weather at your location: Rain').waitFor()
    await home.getByText('· Boosts Water, Electric, and Bug').waitFor()
    t.same(await axeViolations(home), [], 'axe-core: the dashboard with the weather')
    await home.evaluate(() => { localStorage.setItem('aw.language', 'de') })
    await home.reload()
    await home.getByText('Spielwetter an deinem Standort: Regen').waitFor()
    await home.getByText('· Verstärkt Wasser, Elektro und Käfer').waitFor()
    t.pass('the weather and the boosted types in the game\'s own German names')
    await home.evaluate(() => { localStorage.setItem('aw.language', 'en') })
    const page = await env.signIn(t, { ...user, seeded: true }, '/alarms/raids', PHONE)
    const searches: string[] = []
    page.on('request', (request) => { if (request.url().includes('/api/scanner/gyms?')) searches.push(new URL(request.url()).searchParams.get('search') ?? '') })

    await page.getByRole('button', { name: 'Add alarm' }).click()
    await chooseLevel(page, '5-Star Raid')
    const gym = combobox(page)
    await page.getByText('Selected: Any gym').waitFor()
    t.pass('"any gym" is the default')

    await gym.pressSequentially('c')
    await page.getByText('Type at least 2 letters of the gym\'s name.').waitFor()
    await gym.pressSequentially('entr', { delay: 40 })
    const options = page.getByRole('listbox', { name: 'Gyms' }).getByRole('option')
    await options.first().waitFor()
    t.same(await options.allTextContents(), ['Central FountainTown', 'Central Station MuralTown'], 'name and area of each match')
    // Four keystrokes past 2 characters: without the pause each would search ('ce', 'cen', 'cent', 'centr').
    t.ok(searches.length < 4, `fewer searches than keystrokes (${searches.join(', ')}; one on an idle machine)`)
    t.equal(searches.at(-1), 'centr', 'the last search is the whole name typed')
    t.notOk(searches.some((term) => term.length < 2), 'none below 2 characters')
    t.equal(await gym.getAttribute('aria-expanded'), 'true', 'the list of matches is open')
    t.same(await axeViolations(page), [], 'axe-core: the open combobox')

    await gym.press('ArrowDown')
    await gym.press('ArrowDown')
    await gym.press('ArrowUp')
    t.equal(await gym.getAttribute('aria-activedescendant'), await options.first().getAttribute('id'), 'the arrow keys move through the matches')
    await gym.press('Enter')
    await page.getByText('Selected: Central Fountain (Town)').waitFor()
    t.equal(await gym.getAttribute('aria-expanded'), 'false', 'the list closes on a choice')
    t.equal(await page.getByRole('button', { name: 'Create 1 alarm' }).count(), 1, 'Enter chose the gym and did not submit the form')

    await save(page)
    await page.getByText('Raids: 5-Star Raid, Gym: Central Fountain, in your areas', { exact: true }).waitFor()
    t.match(await env.rows('raid', user.id), [{ level: 5, gym_id: 'g1' }], 'the engine holds the gym id')

    await page.getByRole('button', { name: /^Edit: Raids: 5-Star Raid/ }).click()
    await page.getByText('Selected: Central Fountain (Town)').waitFor()
    t.pass('an opened alarm names its gym, read by id')
    await page.getByRole('button', { name: 'Any gym instead' }).click()
    await page.getByText('Selected: Any gym').waitFor()
    await save(page)
    await page.getByText('Raids: 5-Star Raid, in your areas', { exact: true }).waitFor()
    t.match(await env.rows('raid', user.id), [{ level: 5, gym_id: null }], 'back to any gym')

    // Eggs (and a gym outside every area, shown with its coordinates), chosen with a tap.
    await page.goto('/alarms/eggs')
    await page.getByRole('button', { name: 'Add alarm' }).click()
    await chooseLevel(page, '5-Star Raid', /^Level/)
    await combobox(page).fill('mill')
    await page.getByRole('listbox', { name: 'Gyms' }).getByRole('option', { name: /Old Mill/ }).click()
    await page.getByText('Selected: Old Mill (10, 10)').waitFor()
    await save(page)
    await page.getByText('Eggs: 5-Star Raid, Gym: Old Mill, in your areas', { exact: true }).waitFor()
    t.match(await env.rows('egg', user.id), [{ level: 5, gym_id: 'g3' }])

    await page.getByRole('button', { name: 'Add alarm' }).click()
    await combobox(page).fill('zz')
    await page.getByText('No gym matches “zz”.').waitFor()
    t.equal(await combobox(page).getAttribute('aria-expanded'), 'false', 'no list without matches')

    await page.goto('/alarms/gyms')
    await page.getByRole('button', { name: 'Add alarm' }).click()
    await combobox(page).fill('station')
    await page.getByRole('listbox', { name: 'Gyms' }).getByRole('option', { name: /Central Station Mural/ }).click()
    await save(page)
    await page.getByText(/^Gyms of Any team, Gym: Central Station Mural/).waitFor()
    t.match(await env.rows('gym', user.id), [{ gym_id: 'g2' }], 'gym alarms take the picker too')

    // The site's configuration (which says it has a scanner) cannot be read as the editor opens: the editor
    // works without the gym search that time, and the next opening asks again.
    await page.route('**/api/config', async (route) => { await route.abort('internetdisconnected') }, { times: 1 })
    await page.goto('/alarms/raids')
    const failed = page.waitForEvent('requestfailed', (request) => new URL(request.url()).pathname === '/api/config')
    await page.getByRole('button', { name: 'Add alarm' }).click()
    await failed
    await chooseLevel(page, '5-Star Raid')
    t.equal(await combobox(page).count(), 0, 'no gym search while the configuration is unknown')
    await page.getByRole('button', { name: 'Cancel' }).click()
    await page.getByRole('button', { name: 'Add alarm' }).click()
    await combobox(page).waitFor()
    t.pass('the next opening reads the configuration again and offers the gym search')
  })

  t.test('without the scanner: no picker, and a raid alarm saves "any gym"', async (t) => {
    const env = await startBrowserApp(t)
    const user = { id: '400000000000000002', name: 'Brock', latitude: 51.1, longitude: 7.1 }
    const home = await env.signIn(t, user, '/', PHONE)
    // The dashboard has its place (never coordinates): this pin is in no area and the site has no geocoder.
    await home.getByText('Location set', { exact: true }).waitFor()
    await home.waitForLoadState('networkidle')
    t.equal(await home.getByText(/In-game weather/).count(), 0, 'no scanner: the dashboard shows no weather')
    const page = await env.signIn(t, { ...user, seeded: true }, '/alarms/raids', PHONE)
    const config = page.waitForResponse((res) => res.url().endsWith('/api/config'))
    await page.getByRole('button', { name: 'Add alarm' }).click()
    t.equal((await (await config).json()).gymPicker, false, 'the site says it has no scanner')
    await chooseLevel(page, '5-Star Raid')
    t.equal(await combobox(page).count(), 0, 'no gym picker')
    t.equal(await page.getByLabel('Gym', { exact: true }).count(), 0, 'and no gym id box either')
    await save(page)
    await page.getByText('Raids: 5-Star Raid, in your areas', { exact: true }).waitFor()
    t.match(await env.rows('raid', user.id), [{ level: 5, gym_id: null }], 'any gym')
  })
}
