import { fileURLToPath } from 'node:url'
import t from 'tap'
import { bearer } from './helper.js'
import { axeViolations, browserMissing, choosePokemon, DESKTOP, PHONE, setMinIv, startScannerBrowserApp } from './browser.js'

/**
 * The estimate in the alarm editor, in a real browser: it follows the filters as they change, warns about
 * a flood, names the alarm that already covers the one being written in words (a link opens it), and the
 * cards, the alarm page and the dashboard show their figures.
 */
const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await browserTests()

async function browserTests (): Promise<void> {
  const env = await startScannerBrowserApp(t)
  const { scanner } = env
  const { app } = env.testApp
  // Town is a fence of the engine's own geofence file.
  env.testApp.engine.set({ fences: [{ name: 'Town', path: [[51, 7], [51, 7.2], [51.2, 7.2], [51.2, 7]] }] })
  // A typical day in Town: 1,000 Pikachu, 600 of them encountered, 5 hundos.
  for (const day of ['2026-11-19', '2026-11-20', '2026-11-21', '2026-11-22', '2026-11-23', '2026-11-24', '2026-11-25']) {
    await scanner.query('INSERT INTO pokemon_stats (date, area, fence, pokemon_id, form_id, count) VALUES (?, \'Region\', \'Town\', 25, 0, 1000)', [day])
    await scanner.query('INSERT INTO pokemon_iv_stats (date, area, fence, pokemon_id, form_id, count) VALUES (?, \'Region\', \'Town\', 25, 0, 600)', [day])
    await scanner.query('INSERT INTO pokemon_hundo_stats (date, area, fence, pokemon_id, form_id, count) VALUES (?, \'Region\', \'Town\', 25, 0, 5)', [day])
  }
  const now = Date.parse('2026-11-26T12:00:00Z') / 1000
  await scanner.query(`INSERT INTO pokemon (id, lat, lon, pokemon_id, form, atk_iv, def_iv, sta_iv, iv, first_seen_timestamp, expire_timestamp, expire_timestamp_verified)
    SELECT CONCAT('b', seq), 51.1, 7.1, 25, 0, 15, 15, 15, 100, ?, ?, 1 FROM seq_1_to_3`, [now - 600, now + 600])

  t.test('the live estimate, the flood warning and the overlap sentence', async (t) => {
    const user = { id: '5551', name: 'member5551', latitude: 51.1, longitude: 7.1, area: ['town'] }
    const page = await env.signIn(t, user, '/', PHONE)
    const created = await app.inject({ method: 'POST', url: '/api/monsters', headers: bearer(app, { userId: user.id }), payload: { pokemon_id: 0, min_iv: 90 } })
    t.equal(created.statusCode, 201)
    const uid = (created.json() as { uid: number }).uid
    await page.goto('/alarms/monsters')
    await page.locator('.alarm-estimate').getByText(/alerts a day/).waitFor()
    t.pass('the card shows its figure')
    await page.getByRole('button', { name: 'Add alarm' }).click()
    await choosePokemon(page, 'pika', 'Pikachu')
    const warning = page.getByText('That is a lot: about 1,000 alerts a day.', { exact: false })
    await warning.waitFor()
    t.pass('every Pikachu, even unencountered: a flood warning with the typical day')
    t.equal(await page.locator('[data-overlap]').count(), 0, 'not covered: the existing alarm asks for IV 90')
    await setMinIv(page, '100')
    const estimate = page.locator('.form-estimate')
    await estimate.getByText('About 5 alerts a day.', { exact: false }).waitFor()
    await warning.waitFor({ state: 'detached' })
    t.pass('the hundo share of the typical day, and the warning went with the change')
    await estimate.getByText('3 alerts in the last 1 h.', { exact: false }).waitFor()
    const sentence = page.locator('[data-overlap=covered]')
    await sentence.waitFor()
    t.equal(await sentence.innerText(), 'You already get every alert of this alarm from your alarm “Every pokémon, IV ≥ 90%, in your areas”', 'the covering alarm in words')
    t.equal(await sentence.getByRole('link').getAttribute('href'), `/alarms/monsters?edit=${uid}`, 'the link opens the covering alarm\'s editor')
    t.same(await axeViolations(page), [], 'axe-clean with the estimate and the overlap shown')
    if (process.env.SCREENSHOTS === '1') {
      await sentence.scrollIntoViewIfNeeded()
      await page.screenshot({ path: fileURLToPath(new URL('../docs/screenshots/overlap-note-phone.png', import.meta.url)) })
    }
    await page.getByRole('button', { name: 'Create 1 alarm', exact: true }).click()
    await page.getByText('Pikachu, IV ≥ 100%, in your areas', { exact: true }).waitFor()
    await page.goto('/')
    await page.getByText(/Your alarms send you about [\d,]+ alerts on a typical day\./).waitFor()
    t.pass('the dashboard shows the profile\'s total')
  })

  t.test('the overlap\'s link opens the covering alarm in the editor, on a desktop', async (t) => {
    const user = { id: '5553', name: 'member5553', latitude: 51.1, longitude: 7.1, area: ['town'] }
    const page = await env.signIn(t, user, '/', DESKTOP)
    const created = await app.inject({ method: 'POST', url: '/api/monsters', headers: bearer(app, { userId: user.id }), payload: { pokemon_id: 0, min_iv: 90 } })
    const uid = (created.json() as { uid: number }).uid
    await page.goto('/alarms/monsters')
    await page.getByRole('button', { name: 'Add alarm' }).click()
    await choosePokemon(page, 'pika', 'Pikachu')
    await setMinIv(page, '95')
    const link = page.locator('[data-overlap=covered]').getByRole('link')
    await link.waitFor()
    t.equal(await link.innerText(), 'alarm “Every pokémon, IV ≥ 90%, in your areas”')
    t.same(await axeViolations(page), [], 'axe-clean with the overlap shown')
    await link.click()
    await page.getByRole('heading', { name: 'Edit alarm', level: 2 }).waitFor()
    t.equal(new URL(page.url()).search, `?edit=${uid}`)
    t.equal(await page.getByRole('button', { name: 'Create 1 alarm', exact: true }).count(), 0, 'the new alarm\'s editor made way for the covering one')
    t.equal(await page.getByRole('textbox', { name: 'IV from' }).inputValue(), '90', 'the covering alarm\'s own filters')
  })

  t.test('the editor never waits for the estimate: a slow or failing scanner shows a note, saving works', async (t) => {
    const user = { id: '5552', name: 'member5552', latitude: 51.1, longitude: 7.1, area: ['town'] }
    const page = await env.signIn(t, user, '/alarms/monsters', PHONE)
    await page.route('**/api/alarm-estimates', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ basis: 'unavailable', windowHours: 1, recent: null, perDay: null, perDayBasis: null, areas: ['town'], coveredBy: [], covers: [] }) }))
    await page.getByRole('button', { name: 'Add alarm' }).click()
    await choosePokemon(page, 'pika', 'Pikachu')
    await page.getByText('No estimate right now', { exact: false }).waitFor()
    await page.getByRole('button', { name: 'Create 1 alarm', exact: true }).click()
    await page.getByText('Pikachu, in your areas', { exact: true }).waitFor()
    t.pass('saved')
  })
}
