import t from 'tap'
import type { Connection } from 'mariadb'
import { rootConnection } from './helper.js'
import { axeViolations, browserMissing, PHONE, startBrowserApp } from './browser.js'
import { scannerDatabase } from './fakes/scanner-db.js'
import { s2CellIdSigned } from '../lib/s2.js'

/**
 * The in-game weather on the dashboard (a real browser, a scanner database with Golbat's weather table):
 * the pin's cell reading in the reader's language with the types it boosts, and, when the scanner cannot
 * be read, a dashboard that works as before with no weather line and no error.
 */
const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await browserTests()

async function browserTests (): Promise<void> {
  const database = await scannerDatabase()
  const scanner: Connection = await rootConnection()
  await scanner.query(`USE \`${database}\``)
  t.teardown(() => scanner.end())
  const pin = { latitude: 51.1, longitude: 7.1 }
  await scanner.query('INSERT INTO weather (id, level, latitude, longitude, gameplay_condition, updated) VALUES (?, 10, ?, ?, 2, ?)',
    [s2CellIdSigned(pin.latitude, pin.longitude, 10), pin.latitude, pin.longitude, Math.floor(Date.now() / 1000)])
  const env = await startBrowserApp(t, { env: { SCANNER_DB_HOST: '127.0.0.1', SCANNER_DB_USER: 'root', SCANNER_DB_NAME: database } })

  t.test('the pin\'s weather and the types it boosts, in the reader\'s language', async (t) => {
    const page = await env.signIn(t, { id: '8801', name: 'member8801', ...pin }, '/', PHONE)
    const line = page.locator('.pin-weather')
    await line.getByText('In-game weather at your location: Rain').waitFor()
    t.match(await line.textContent(), /Boosts Water, Electric,? and Bug/, 'the boosted types, listed')
    t.equal(await line.getByRole('img', { name: 'Rain' }).count(), 1, 'the weather icon has a text alternative')
    t.same(await axeViolations(page), [], 'axe-clean with the weather shown')
  })

  t.test('a scanner that cannot be read leaves the dashboard whole and says nothing of weather', async (t) => {
    await scanner.query('RENAME TABLE weather TO weather_away')
    t.teardown(() => scanner.query('RENAME TABLE weather_away TO weather'))
    const page = await env.signIn(t, { id: '8802', name: 'member8802', ...pin }, '/help', PHONE)
    const answered = page.waitForResponse((r) => r.url().endsWith('/api/location/weather'))
    await page.goto('/')
    await page.getByRole('heading', { name: /Your alarms/ }).waitFor()
    t.equal((await answered).status(), 204, 'the service answers "no reading", not an error')
    t.equal(await page.locator('.pin-weather').count(), 0, 'no weather line')
    t.equal(await page.locator('.notice-error').count(), 0, 'no error notice for a decoration')
    t.same(await axeViolations(page), [], 'axe-clean without the weather')
  })
}
