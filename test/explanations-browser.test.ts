import t from 'tap'
import { fileURLToPath } from 'node:url'
import { bearer } from './helper.js'
import { axeViolations, browserMissing, DESKTOP, PHONE, startScannerBrowserApp } from './browser.js'

/**
 * "Why didn't I get…?" in a real browser, at 360 px and on a desktop: the recent list of what the scanner
 * saw in the member's areas, its search, a tapped event's sentence per alarm (the IV that stopped one,
 * the other profile that would have sent it), the link to the alarm's editor, and axe-clean. `SCREENSHOTS=1`
 * saves the page to docs/screenshots/.
 */
const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await browserTests()

async function browserTests (): Promise<void> {
  const env = await startScannerBrowserApp(t)
  const { scanner } = env
  const { app } = env.testApp
  env.testApp.engine.set({ fences: [{ name: 'Centre', path: [[51, 7], [51, 7.2], [51.2, 7.2], [51.2, 7]] }] })
  const now = Date.parse('2026-11-26T12:00:00Z') / 1000
  // A Magikarp of 82 % and a Pikachu hundo in the centre; a Magikarp far away.
  const spawns: Array<[string, number, number, number, number, number, number, number]> = [
    ['d1', 51.1, 7.1, 129, 15, 15, 7, now - 300],
    ['p1', 51.12, 7.12, 25, 15, 15, 15, now - 900],
    ['far', 53.1, 7.1, 129, 15, 15, 15, now - 200]
  ]
  for (const [id, lat, lon, species, a, d, s, seen] of spawns) {
    await scanner.query(`INSERT INTO pokemon (id, lat, lon, pokemon_id, form, atk_iv, def_iv, sta_iv, iv, cp, level, gender, first_seen_timestamp, expire_timestamp, expire_timestamp_verified, updated)
      VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?, 500, 20, 1, ?, ?, 1, ?)`, [id, lat, lon, species, a, d, s, Math.round(((a + d + s) * 10000) / 45) / 100, seen, seen + 1800, seen])
  }
  const screenshots = process.env.SCREENSHOTS === '1' ? fileURLToPath(new URL('../docs/screenshots/', import.meta.url)) : undefined

  for (const [viewport, name, id] of [[PHONE, 'phone', '7771'], [DESKTOP, 'desktop', '7772']] as const) {
    t.test(`${name}: the list, the search, a sentence per alarm, the alarm's editor`, async (t) => {
      const user = { id, name: `member${id}`, latitude: 51.1, longitude: 7.1, area: ['centre'] }
      const page = await env.signIn(t, user, '/', viewport)
      const headers = bearer(app, { userId: id })
      const magikarp = await app.inject({ method: 'POST', url: '/api/monsters', headers, payload: { pokemon_id: 129, min_iv: 90 } })
      t.equal(magikarp.statusCode, 201)
      const uid = (magikarp.json() as { uid: number }).uid
      const work = await app.inject({ method: 'POST', url: '/api/profiles', headers, payload: { name: 'Work' } })
      t.equal(work.statusCode, 201, work.body)
      const hundo = await app.inject({ method: 'POST', url: '/api/monsters', headers, payload: { pokemon_id: 25, min_iv: 100 } })
      await app.engineDb.pool.query('UPDATE monsters SET profile_no = 2 WHERE uid = ?', [(hundo.json() as { uid: number }).uid])

      if (viewport === PHONE) {
        await page.getByRole('button', { name: 'Menu', exact: true }).click()
      }
      await page.getByRole('link', { name: 'Why no alert?' }).click()
      await page.getByRole('heading', { name: 'Why didn\'t I get…?' }).waitFor()
      const list = page.locator('.explain-list')
      await list.getByText('Magikarp 82.22%').waitFor()
      t.same(await list.locator('.explain-event-name').allInnerTexts(), ['Magikarp 82.22%', 'Pikachu 100%'], 'the centre\'s, newest first; not the far one')
      t.match(await list.locator('.explain-event').first().innerText(), /Centre/, 'the area, never a position')
      t.same(await axeViolations(page), [], 'axe-clean: the list')

      await page.getByRole('searchbox', { name: 'Search' }).fill('pika')
      await page.getByText('1 event', { exact: true }).waitFor()
      await page.getByRole('searchbox', { name: 'Search' }).fill('')

      await list.getByRole('button', { name: /Magikarp 82.22%/ }).click()
      await page.getByText('No alert was sent for Magikarp 82.22%.').waitFor()
      await page.getByText('Magikarp, IV ≥ 90%, in your areas: no — IV was 82.22%', { exact: false }).waitFor()
      t.pass('the Magikarp alarm: stopped by its IV, in words')
      t.equal(await list.getByRole('button', { name: /Magikarp 82.22%/ }).getAttribute('aria-expanded'), 'true')
      t.same(await axeViolations(page), [], 'axe-clean: an answer open')

      await list.getByRole('button', { name: /Pikachu 100%/ }).click()
      await page.getByText('your Work profile would have, but it was not active then', { exact: false }).waitFor()
      t.pass('the hundo alarm of the other profile')
      if (screenshots !== undefined) await page.screenshot({ path: `${screenshots}${name}-why-no-alert.png`, fullPage: true })

      await list.getByRole('button', { name: /Magikarp 82.22%/ }).click()
      await page.getByRole('link', { name: 'Open this alarm' }).click()
      await page.waitForURL(/\/alarms\/monsters/)
      await page.getByRole('dialog').waitFor()
      t.equal(await page.getByRole('dialog').getByRole('heading').first().innerText(), 'Edit alarm', `the editor of alarm ${uid}`)
    })
  }

  t.test('an admin: the same from the member\'s page, only when asked for', async (t) => {
    const page = await env.signIn(t, { id: '7779', name: 'admin7779', isAdmin: true }, '/admin/users/edit?id=7771', PHONE)
    const show = page.getByRole('button', { name: 'Show their recent events' })
    await show.waitFor()
    const audited = async () => (await app.inject({ url: '/api/admin/audit?action=alarm-explanations.recent', headers: bearer(app, { userId: '7779', isAdmin: true }) })).json() as { entries: unknown[] }
    t.equal((await audited()).entries.length, 0, 'nothing read (nor audited) before the admin asks')
    await show.click()
    const list = page.locator('.explain-list')
    await list.getByRole('button', { name: /Magikarp 82.22%/ }).click()
    await page.getByText('Magikarp, IV ≥ 90%, in your areas: no — IV was 82.22%', { exact: false }).waitFor()
    t.equal(await page.getByRole('link', { name: 'Open this alarm' }).count(), 0, 'the member\'s editor is not the admin\'s to open')
    t.equal((await audited()).entries.length, 1, 'the look is audited')
    t.same(await axeViolations(page), [], 'axe-clean')
    if (screenshots !== undefined) await page.screenshot({ path: `${screenshots}phone-admin-why-no-alert.png`, fullPage: true })
  })
}
