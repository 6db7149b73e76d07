import t from 'tap'
import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { DESKTOP, PHONE, axeViolations, browserMissing, choosePokemon, setMinIv } from './browser.js'
import { bearer, seedHuman } from './helper.js'
import { ADMIN, startQuickPicksApp } from './quick-picks-browser-app.js'
import { insertAlarm } from './fakes/engine-db.js'

/**
 * Quick picks in Chromium on a 360-px phone against the whole service and the engine fake: an admin
 * edits a pick's alarm in the alarm editor members use, and a member applies it leaving a pokemon out
 * and reads what was created and what was already there; a refused apply says why. axe-core checks each step.
 */
const MEMBER = '111111111111111111'

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await pickTests()

async function pickTests (): Promise<void> {
  const env = await startQuickPicksApp(t)
  const { testApp, rows, open } = env
  const { app } = testApp

  t.test('an admin edits a pick in the alarm editor and saves it', async (t) => {
    const page = await open(t, ADMIN, { isAdmin: true })
    await page.getByRole('button', { name: 'Edit 100% IV' }).click()
    const sheet = page.getByRole('dialog')
    t.equal(await sheet.getByRole('textbox', { name: 'Name' }).inputValue(), '100% IV', 'the pick\'s name')
    t.equal(await sheet.getByRole('textbox', { name: 'IV from' }).inputValue(), '100', 'the pick\'s alarm in the editor')
    await sheet.getByRole('textbox', { name: 'Name' }).fill('95% IV')
    await setMinIv(page, '95')
    await sheet.getByText(/IV ≥ 95%/).waitFor()
    t.same(await axeViolations(page), [], 'axe: the pick editor at 360 px')
    if (process.env.SCREENSHOTS === '1') {
      const dir = fileURLToPath(new URL('../docs/screenshots/', import.meta.url))
      mkdirSync(dir, { recursive: true })
      await sheet.getByRole('textbox', { name: 'Name' }).scrollIntoViewIfNeeded()
      await page.screenshot({ path: `${dir}/quick-picks-editor-phone.png` })
    }
    await sheet.getByRole('button', { name: 'Save', exact: true }).click()
    await page.getByRole('status').getByText('95% IV is saved.').waitFor()
    const [row] = await app.db.pool.query('SELECT name, filters_json AS filters FROM quick_pick_definitions WHERE id = ?', ['hundo']) as Array<{ name: string, filters: unknown }>
    const filters = typeof row?.filters === 'string' ? JSON.parse(row.filters) as Record<string, unknown> : row?.filters as Record<string, unknown>
    t.equal(row?.name, '95% IV')
    t.match(filters, { pokemon_id: 0, min_iv: 95, max_iv: 100 }, 'the editor\'s alarm became the pick\'s filters')
  })

  t.test('a member applies the pick leaving Pikachu out and is told what was created and what was there', async (t) => {
    await seedHuman(testApp, { id: MEMBER, name: 'Bob', latitude: 51.5, longitude: -0.12, area: ['centre'] })
    await insertAlarm(app.engineDb.pool, 'pokemon', { id: MEMBER, pokemon_id: 4, min_iv: 95, max_iv: 100, clean: 1 })
    const page = await open(t, MEMBER)
    t.equal(await page.getByRole('button', { name: 'Edit 95% IV' }).count(), 0, 'members do not edit global picks')
    await page.getByRole('button', { name: 'Apply 95% IV' }).click()
    const sheet = page.getByRole('dialog')
    await choosePokemon(page, 'pika', 'Pikachu')
    await sheet.getByRole('checkbox', { name: 'Delete the alerts once they expire' }).check()
    t.same(await axeViolations(page), [], 'axe: the apply form at 360 px')
    await sheet.getByRole('button', { name: 'Apply 95% IV' }).click()
    const result = page.getByRole('status').getByText(/^95% IV applied: /)
    await result.waitFor()
    const species = (await rows('monsters', MEMBER)).map((r) => Number(r.pokemon_id))
    t.notOk(species.includes(25), 'Pikachu was left out')
    t.same([...species].sort((a, b) => a - b), [1, 2, 3, 4, 7, 129, 150, 201], 'one alarm per remaining species, Charmander once')
    t.equal(await result.textContent(), '95% IV applied: 7 alarms added, 1 was already there.', 'created and already there, told apart')
    await page.getByText(/Applied · \d+ alarms? · 1 pokémon left out/).waitFor()
    t.same(await axeViolations(page), [], 'axe: the result at 360 px')
  })

  for (const [size, viewport, member] of [['360 px', PHONE, '333333333333333331'], ['desktop', DESKTOP, '333333333333333332']] as const) {
    t.test(`${size}: Giovanni applied over a member's own Giovanni alarm within 3 km leaves it as it is, and so does Remove`, async (t) => {
      await seedHuman(testApp, { id: member, name: 'Gio', latitude: 51.5, longitude: -0.12, area: ['centre'] })
      const mine = await insertAlarm(app.engineDb.pool, 'invasion', { id: member, grunt_type: 'giovanni', distance: 3000 })
      const page = await open(t, member, { viewport })
      await page.getByRole('button', { name: 'Apply Giovanni' }).click()
      await page.getByRole('dialog').getByRole('button', { name: 'Apply Giovanni' }).click()
      const result = page.getByRole('status').getByText(/^Giovanni applied: /)
      await result.waitFor()
      t.equal(await result.textContent(), 'Giovanni applied: 0 alarms added, 1 left out so an alarm of yours stays as it is.', 'nothing added, and why')
      t.same((await rows('invasion', member)).map((r) => [r.uid, r.distance]), [[mine, 3000]], 'the member\'s alarm keeps its distance')
      t.same(await axeViolations(page), [], `axe: the result at ${size}`)
      await page.getByRole('button', { name: 'Remove Giovanni' }).click()
      await page.getByRole('status').getByText('Giovanni removed: its alarms are deleted.').waitFor()
      t.same((await rows('invasion', member)).map((r) => [r.uid, r.distance]), [[mine, 3000]], 'remove left the member\'s alarm')
    })
  }

  for (const [size, viewport, member, columns] of [['360 px', PHONE, '444444444444444441', 1], ['desktop', DESKTOP, '444444444444444442', 2]] as const) {
    t.test(`${size}: picks by category with chips in ${columns} column(s); "all except…" a set adds only the species kept, never over the member's own`, async (t) => {
      await seedHuman(testApp, { id: member, name: 'Sam', latitude: 51.5, longitude: -0.12, area: ['centre'] })
      const saved = await app.inject({ method: 'POST', url: '/api/quick-picks/user', headers: bearer(app, { userId: member }), payload: { name: 'Starters', alarmType: 'monster', filters: { pokemon_id: [1, 4, 7], min_iv: 90 } } })
      t.equal(saved.statusCode, 200)
      const own = await insertAlarm(app.engineDb.pool, 'pokemon', { id: member, pokemon_id: 7, min_iv: 90, distance: 1000 })
      const page = await open(t, member, { viewport })
      const site = page.getByRole('region', { name: 'Available quick picks' })
      const chips = site.getByRole('group', { name: 'Categories' })
      await chips.getByRole('button', { name: 'Raids (8)' }).click()
      t.equal(await site.getByRole('button', { name: 'Apply Giovanni' }).count(), 0, 'a chip shows its category alone')
      t.equal(await site.getByRole('button', { name: /^Apply / }).count(), 8)
      t.equal(await site.getByRole('heading', { name: 'Raids' }).count(), 1)
      t.equal(await site.locator('.pick-grid').first().evaluate((list) => getComputedStyle(list).gridTemplateColumns.split(' ').length), columns)
      t.equal(await site.locator('.pick-icon .game-icon').count(), 8, 'each pick shows its alarm\'s game icon (placeholders here: no icon set is configured)')
      t.same(await axeViolations(page), [], `axe: the picks by category at ${size}`)
      await chips.getByRole('button', { name: 'All', exact: true }).click()
      if (process.env.SCREENSHOTS === '1' && viewport === DESKTOP) await page.screenshot({ path: fileURLToPath(new URL('../docs/screenshots/quick-picks-desktop.png', import.meta.url)), fullPage: true })
      await site.getByRole('button', { name: 'Apply Giovanni' }).waitFor()

      await page.getByRole('button', { name: 'Apply Starters' }).click()
      const sheet = page.getByRole('dialog')
      const except = sheet.getByRole('group', { name: 'All except…' })
      await except.getByText('3 of 3 get an alarm', { exact: false }).waitFor()
      await except.getByRole('checkbox', { name: 'Charmander' }).uncheck()
      await except.getByText('2 of 3 get an alarm', { exact: false }).waitFor()
      t.same(await axeViolations(page), [], `axe: "all except…" at ${size}`)
      await sheet.getByRole('button', { name: 'Apply Starters' }).click()
      const result = page.getByRole('status').getByText(/^Starters applied: /)
      await result.waitFor()
      t.equal(await result.textContent(), 'Starters applied: 1 alarm added, 1 left out so an alarm of yours stays as it is.')
      t.same((await rows('monsters', member)).map((r) => [Number(r.pokemon_id), Number(r.distance)]).sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0)), [[1, 0], [7, 1000]], 'Bulbasaur added, Charmander left out, the own Squirtle as it was')
      await page.getByRole('button', { name: 'Remove Starters' }).click()
      await page.getByRole('status').getByText('Starters removed: its alarms are deleted.').waitFor()
      t.same((await rows('monsters', member)).map((r) => Number(r.uid)), [own], 'remove deleted the Bulbasaur alone')
    })
  }

  t.test('a refused apply keeps the form open with the server\'s reason and creates nothing', async (t) => {
    const page = await open(t, MEMBER)
    // Lures are switched off after the page loaded: the pick is still listed, the server refuses it.
    await app.db.pool.query("INSERT INTO site_settings (`key`, value) VALUES ('disable_lures', 'true')")
    app.siteSettings.evict('disable_lures')
    t.teardown(async () => {
      await app.db.pool.query("DELETE FROM site_settings WHERE `key` = 'disable_lures'")
      app.siteSettings.evict('disable_lures')
    })
    await page.getByRole('button', { name: 'Apply Golden lures' }).click()
    const sheet = page.getByRole('dialog')
    await sheet.getByRole('button', { name: 'Apply Golden lures' }).click()
    await sheet.getByRole('alert').getByText(/^Golden lures was not applied: /).waitFor()
    t.same(await rows('lures', MEMBER), [], 'no lure alarm')
    t.same(await axeViolations(page), [], 'axe: the refusal at 360 px')
  })
}
