import t from 'tap'
import { axeViolations, browserMissing, PHONE, startBrowserApp } from './browser.js'
import { bearer } from './helper.js'
import { startNominatimFake } from './fakes/nominatim.js'

/**
 * Address search on the location page in Debian's Chromium, against the whole app, the engine fake
 * (whose configuration names the geocoder) and the Nominatim fake.
 */
const MEMBER = { id: '666666666666666666', name: 'Carol', latitude: 51.5237, longitude: -0.1585 }
const BAKER = 'Baker Street 221b, Marylebone, London, NW1 6XE, United Kingdom'
const TOWER = 'Tower Bridge, Southwark, London, SE1 2UP, United Kingdom'

t.setTimeout(240_000)

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else {
  t.test('search an address on a phone, pick it, and the engine has the new pin; the pin\'s address is shown', async (t) => {
    const nominatim = await startNominatimFake({ places: [{ name: BAKER, lat: 51.5237, lon: -0.1585 }, { name: TOWER, lat: 51.5055, lon: -0.0754 }] })
    t.teardown(() => nominatim.close())
    const site = await startBrowserApp(t)
    site.testApp.engine.set({ providerURL: nominatim.url })
    const page = await site.signIn(t, MEMBER, '/location', PHONE)

    const facts = page.locator('dl.facts')
    await facts.getByText(BAKER).waitFor()
    const search = page.getByRole('searchbox', { name: 'Address or place' })
    await search.fill('tower bridge')
    await search.press('Enter')
    await page.getByText('1 address found. Choose it to move your pin there.').waitFor()
    t.same(await axeViolations(page), [], 'axe-core finds nothing with the results showing')

    await page.getByRole('button', { name: `Move the pin to ${TOWER}` }).click()
    await page.getByText('Location saved.').waitFor()
    await facts.getByText(TOWER).waitFor()
    const pool = site.testApp.app.engineDb.pool
    for (const table of ['humans', 'profiles']) {
      const [row] = await pool.query(`SELECT latitude, longitude FROM \`${table}\` WHERE id = ?`, [MEMBER.id]) as Array<{ latitude: number, longitude: number }>
      t.ok(Math.abs(Number(row?.latitude) - 51.5055) < 1e-6 && Math.abs(Number(row?.longitude) + 0.0754) < 1e-6, `the engine's ${table} row holds the picked point`)
    }
    t.equal(await page.evaluate(() => document.activeElement?.getAttribute('type')), 'search', 'focus returns to the search field')

    await search.fill('atlantis')
    await page.getByRole('button', { name: 'Search', exact: true }).click()
    await page.getByText('No address matches “atlantis”.').waitFor()

    nominatim.fail('down')
    await search.fill('baker')
    await search.press('Enter')
    await page.getByRole('alert').getByText('Address search sent an answer this site cannot use. Please try again later.').waitFor()

    t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling at 360 px')
    t.same(await axeViolations(page), [], 'axe-core finds nothing on the location page')
    t.ok(nominatim.requests.every((r) => r.headers['accept-language'] === 'en'), 'the interface language went to the geocoder')
  })

  t.test('"use my current position" saves the device\'s position; a refused position says what to do instead', async (t) => {
    const site = await startBrowserApp(t)
    const page = await site.signIn(t, MEMBER, '/location', PHONE)
    const useMine = page.getByRole('button', { name: 'Use my current position' })
    await useMine.waitFor()
    await useMine.click()
    await page.getByRole('alert').getByText('Your position could not be read. Tap the map where you want your alerts centred.').waitFor()
    t.pass('a refused position is explained without a geocoder to point to')

    await page.context().grantPermissions(['geolocation'])
    await page.context().setGeolocation({ latitude: 48.1371234567, longitude: 11.5754321 })
    await useMine.click()
    await page.getByText('Location saved.').waitFor()
    const [row] = await site.testApp.app.engineDb.pool.query('SELECT latitude, longitude FROM humans WHERE id = ?', [MEMBER.id]) as Array<{ latitude: number, longitude: number }>
    t.ok(Math.abs(Number(row?.latitude) - 48.137123) < 1e-6 && Math.abs(Number(row?.longitude) - 11.575432) < 1e-6, 'the engine holds the device\'s position')
    t.same(await axeViolations(page), [], 'axe-core finds nothing after saving')
  })

  t.test('without a geocoder the page offers no search and no address', async (t) => {
    const site = await startBrowserApp(t)
    const page = await site.signIn(t, MEMBER, '/location', PHONE)
    await page.getByText('Alarm distances').waitFor()
    t.equal(await page.getByRole('searchbox', { name: 'Address or place' }).count(), 0)
    t.equal(await page.getByText('Address', { exact: true }).count(), 0)
  })

  t.test('the distances of the user\'s alarms are listed once each, smallest first', async (t) => {
    const site = await startBrowserApp(t)
    const { app } = site.testApp
    const auth = bearer(app, { userId: MEMBER.id })
    const page = await site.signIn(t, MEMBER, '/location', PHONE)
    await page.getByText('None of your alarms uses a distance.').waitFor()
    for (const [pokemonId, distance] of [[1, 2500], [4, 500], [7, 2500], [10, 0]]) {
      const res = await app.inject({ method: 'POST', url: '/api/monsters', headers: auth, payload: { pokemon_id: pokemonId, min_iv: 80, distance } })
      t.equal(res.statusCode, 201)
    }
    await page.reload()
    await page.locator('dl.facts').getByText('0.5 km, 2.5 km', { exact: true }).waitFor()
  })
}
