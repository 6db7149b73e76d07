import t, { type Test } from 'tap'
import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import { axeViolations, browserMissing, choosePokemon, countRequests, DESKTOP, PHONE, startBrowserApp, startPokemonAlarm } from './browser.js'
import { insertAlarm } from './fakes/engine-db.js'
import { startMasterfileFake } from './fakes/masterfile.js'

/**
 * The alarm editor and list in Chromium on a 360-px phone and a desktop, against the whole service and
 * the engine fake of each generation (PoracleNG and PoracleJS): many alarms from one form, sliders, the
 * list's search and select mode, bulk edit, personal defaults, and never a native dialog.
 */
const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else {
  for (const engineMode of ['ng', 'js'] as const) {
    await t.test(engineMode === 'ng' ? 'PoracleNG' : 'PoracleJS', async (t) => { await editorTests(t, engineMode) })
  }
}

async function editorTests (t: Test, engineMode: 'ng' | 'js'): Promise<void> {
  // The master file names the bosses' moves.
  const masterfile = await startMasterfileFake()
  t.teardown(() => masterfile.close())
  const env = await startBrowserApp(t, { engineMode, env: { MASTERFILE_URL: masterfile.url } })
  const { testApp, rows } = env
  const pool = testApp.app.engineDb.pool
  let nextUser = 5000
  const human = () => ({ id: String(++nextUser), name: `member${nextUser}`, latitude: 51.5, longitude: -0.12, area: ['centre'] })

  /** A native confirm, prompt or alert fails the test: the client has its own dialog. */
  const noNativeDialogs = (t: Test, page: Page) => {
    page.on('dialog', (dialog) => { t.fail(`native ${dialog.type()} dialog: ${dialog.message()}`); dialog.dismiss().catch(() => undefined) })
  }

  t.test('phone: a closed section\'s fields enter the page as it opens, and keep their values as it closes', async (t) => {
    const user = human()
    const page = await env.signIn(t, user, '/alarms/monsters', PHONE)
    const sheet = await startPokemonAlarm(page, 'pika', 'Pikachu')
    const cpFrom = sheet.getByRole('textbox', { name: 'CP from' })
    const more = sheet.getByText('More filters', { exact: true })
    t.equal(await sheet.getByRole('textbox', { name: 'CP from', includeHidden: true }).count(), 0, 'closed: its sliders are not built, not even hidden')
    await more.click()
    await cpFrom.fill('1500')
    await cpFrom.press('Tab')
    await more.click()
    await cpFrom.waitFor({ state: 'detached' })
    await sheet.getByRole('button', { name: 'Create 1 alarm' }).click()
    await page.getByText('1 alarm created.').waitFor()
    t.match(await rows('monsters', user.id), [{ pokemon_id: 25, min_cp: 1500 }], 'the closed section\'s value is saved')
  })

  for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
    t.test(`${label}: one form creates many alarms and reports created, already there and refused`, async (t) => {
      const user = human()
      const page = await env.signIn(t, user, '/alarms/monsters', viewport)
      noNativeDialogs(t, page)
      await page.getByText('No alarms of this type yet.').waitFor()
      await insertAlarm(pool, 'pokemon', { id: user.id, pokemon_id: 4, min_iv: 90 })
      await insertAlarm(pool, 'pokemon', { id: user.id, pokemon_id: 1, min_iv: 80 })
      await page.reload()
      await page.getByRole('button', { name: 'Add alarm' }).click()
      const sheet = page.getByRole('dialog')
      await choosePokemon(page, 'pika', 'Pikachu')
      await choosePokemon(page, 'bulb', 'Bulbasaur')
      await choosePokemon(page, 'charm', 'Charmander')
      // Keyboard: the IV slider's lower thumb, ten steps a Page Up.
      const low = sheet.getByRole('slider', { name: 'IV from' })
      await low.focus()
      for (let i = 0; i < 9; i++) await page.keyboard.press('PageUp')
      t.equal(await sheet.getByRole('textbox', { name: 'IV from' }).inputValue(), '90', 'the number field follows the slider')
      await sheet.getByText(/Pikachu, Bulbasaur,? or Charmander, IV ≥ 90%/).waitFor()
      await sheet.getByRole('button', { name: 'Create 3 alarms' }).click()
      await sheet.getByText('1 of 3 alarms created').waitFor()
      await sheet.getByText(/Pikachu: created/).waitFor()
      await sheet.getByText(/Bulbasaur: refused/).waitFor()
      await sheet.getByText(/Charmander: already there/).waitFor()
      t.same(await axeViolations(page), [], 'axe: the report')
      await sheet.getByRole('button', { name: 'Done' }).click()
      await page.getByText('Showing 3 of 3').waitFor()
      t.same((await rows('monsters', user.id)).map((r) => [r.pokemon_id, r.min_iv]).sort(), [[1, 80], [25, 90], [4, 90]])
    })
  }

  t.test('phone: several egg levels and several grunts in one form, one alarm each', async (t) => {
    const user = human()
    const page = await env.signIn(t, user, '/alarms/eggs', PHONE)
    noNativeDialogs(t, page)
    await page.getByText('No alarms of this type yet.').waitFor()
    await insertAlarm(pool, 'egg', { id: user.id, level: 3 })
    await page.reload()
    await page.getByRole('button', { name: 'Add alarm' }).click()
    const sheet = page.getByRole('dialog')
    t.equal(await sheet.getByRole('button', { name: 'Create alarms' }).count(), 1, 'nothing picked: no count on the button')
    const levels = sheet.getByRole('group', { name: 'Level', exact: true })
    for (const level of ['1-Star Raid', '3-Star Raid', '5-Star Raid']) await levels.getByRole('button', { name: level, exact: true }).click()
    t.same(await levels.locator('[aria-pressed=true]').count(), 3, 'three tiles pressed')
    await sheet.getByText(/: Eggs: 1-Star Raid, 3-Star Raid, or 5-Star Raid, in your areas$/).waitFor()
    await sheet.getByRole('button', { name: 'Create 3 alarms' }).click()
    await sheet.getByText('2 of 3 alarms created').waitFor()
    await sheet.getByText('Eggs: 3-Star Raid: already there').waitFor()
    t.same(await axeViolations(page), [], 'axe: the report of a level pick')
    await sheet.getByRole('button', { name: 'Done' }).click()
    await page.getByText('Showing 3 of 3').waitFor()
    t.same((await rows('egg', user.id)).map((r) => r.level).sort(), [1, 3, 5])

    await page.goto('/alarms/invasions')
    await page.getByRole('button', { name: 'Add alarm' }).click()
    const grunts = sheet.getByRole('group', { name: 'Grunt type', exact: true })
    for (const name of ['Cliff', 'Giovanni']) await grunts.getByRole('button', { name, exact: true }).click()
    await grunts.getByRole('button', { name: 'Cliff', exact: true }).click()
    await sheet.getByRole('button', { name: 'Create 1 alarm' }).click()
    await page.getByText('1 alarm created.').waitFor()
    t.same((await rows('invasion', user.id)).map((r) => r.grunt_type), ['giovanni'], 'a tile pressed twice is not picked')
    await page.getByRole('button', { name: 'Add alarm' }).click()
    for (const name of ['Arlo', 'Sierra']) await grunts.getByRole('button', { name, exact: true }).click()
    await sheet.getByRole('button', { name: 'Create 2 alarms' }).click()
    await page.getByText('2 alarms created.').waitFor()
    t.same((await rows('invasion', user.id)).map((r) => r.grunt_type).sort(), ['arlo', 'giovanni', 'sierra'])
  })

  t.test('phone: the slider by pointer, the full range reads "any", and the list is clean for axe', async (t) => {
    const user = human()
    const page = await env.signIn(t, user, '/alarms/monsters', PHONE)
    noNativeDialogs(t, page)
    await page.getByRole('button', { name: 'Add alarm' }).click()
    const sheet = page.getByRole('dialog')
    const field = sheet.locator('.range-field').filter({ hasText: 'Level' }).first()
    await field.getByText('Any').waitFor()
    const track = field.locator('.slider')
    // The sprite grid comes first in the sheet: the slider is below the fold on a phone.
    await track.scrollIntoViewIfNeeded()
    const box = await track.boundingBox()
    if (box === null) throw new Error('no slider')
    // Drag the upper thumb from the right end to the middle.
    await page.mouse.move(box.x + box.width - 4, box.y + box.height / 2)
    await page.mouse.down()
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 5 })
    await page.mouse.up()
    const high = Number(await field.getByRole('textbox', { name: 'level up to' }).inputValue())
    t.ok(high > 20 && high < 35, `pointer moved the top to ${high}`)
    t.notOk(await field.getByText('Any').isVisible(), 'no longer "any"')
    t.same(await axeViolations(page), [], 'axe: the editor sheet')
    const viewport = page.viewportSize()
    const sheetBox = await sheet.boundingBox()
    t.equal(Math.round(sheetBox?.width ?? 0), viewport?.width, 'the editor fills the phone screen')
    if (process.env.SCREENSHOTS === '1') {
      const dir = fileURLToPath(new URL('../docs/screenshots/', import.meta.url))
      mkdirSync(dir, { recursive: true })
      await page.screenshot({ path: `${dir}/phone-alarm-editor.png` })
    }
  })

  t.test('phone: search, sort, select mode, bulk edit and confirmed delete', async (t) => {
    const user = human()
    const uids: number[] = []
    for (const [id, iv, distance] of [[25, 90, 0], [1, 0, 500], [4, 95, 0], [0, 100, 0]] as const) {
      uids.push(await insertAlarm(pool, 'pokemon', { id: user.id, pokemon_id: id, min_iv: iv, distance, template: 'keep', max_cp: 3000 }))
    }
    const page = await env.signIn(t, user, '/alarms/monsters', PHONE)
    noNativeDialogs(t, page)
    await page.getByText('Showing 4 of 4').waitFor()
    const titles = async () => await page.locator('.alarm-title strong').allTextContents()
    t.same(await titles(), ['Every pokémon', 'Bulbasaur', 'Charmander', 'Pikachu'], 'everything first, then by name')
    await page.getByLabel('Sort by').selectOption({ label: 'Newest' })
    t.same(await titles(), ['Every pokémon', 'Charmander', 'Bulbasaur', 'Pikachu'])
    await page.getByRole('searchbox', { name: 'Search alarms' }).fill('pika')
    await page.getByText('Showing 1 of 4').waitFor()
    await page.getByRole('searchbox', { name: 'Search alarms' }).fill('')
    await page.getByRole('button', { name: 'High IV' }).click()
    await page.getByText('Showing 3 of 4').waitFor()
    if (process.env.SCREENSHOTS === '1') {
      await page.getByRole('button', { name: 'High IV' }).click()
      await page.screenshot({ path: fileURLToPath(new URL('../docs/screenshots/phone-alarm-list.png', import.meta.url)), fullPage: true })
      await page.getByRole('button', { name: 'High IV' }).click()
    }

    await page.getByRole('button', { name: 'Select', exact: true }).click()
    await page.getByRole('button', { name: 'Select all 3' }).click()
    await page.getByText('3 selected', { exact: true }).waitFor()
    t.same(await axeViolations(page), [], 'axe: select mode')
    await page.getByRole('button', { name: 'Edit selected' }).click()
    const sheet = page.getByRole('dialog')
    await sheet.getByLabel('Change Distance').check()
    await sheet.getByRole('textbox', { name: 'Distance' }).fill('700')
    await sheet.getByLabel('Change Clean-up').check()
    await sheet.getByRole('combobox', { name: 'Clean-up' }).selectOption('1')
    await sheet.getByRole('button', { name: 'Change 3 alarms' }).click()
    await page.getByText('3 changed, 0 already so.').waitFor()
    const stored = await rows('monsters', user.id)
    t.same(stored.filter((r) => r.distance === 700).map((r) => r.pokemon_id).sort(), [0, 25, 4], 'the three chosen')
    t.ok(stored.every((r) => r.template === 'keep' && r.max_cp === 3000), 'no field dropped')
    t.same(stored.filter((r) => r.clean === 1).length, 3)

    // Undo puts back each alarm's own earlier values; a failing undo says so and changes nothing.
    const announcer = page.getByRole('status').filter({ hasText: '3 changed' })
    testApp.engine.failWith({ status: 500, times: 1, path: /\/api\/tracking\/pokemon\// })
    await announcer.getByRole('button', { name: 'Undo' }).click()
    await page.locator('.announcer .notice-error').waitFor()
    t.same((await rows('monsters', user.id)).filter((r) => r.distance === 700).length, 3, 'a failed undo leaves the change in place')
    await page.getByRole('button', { name: 'Edit selected' }).click()
    await sheet.getByLabel('Change Distance').check()
    await sheet.getByRole('textbox', { name: 'Distance' }).fill('900')
    await sheet.getByLabel('Change IV').check()
    await sheet.getByRole('textbox', { name: 'IV from' }).fill('50')
    await sheet.getByRole('button', { name: 'Change 3 alarms' }).click()
    await page.getByText('3 changed, 0 already so.').waitFor()
    await page.getByRole('status').filter({ hasText: '3 changed' }).getByRole('button', { name: 'Undo' }).click()
    await page.getByText('3 alarms restored.').waitFor()
    await page.getByText('Showing 3 of 4').waitFor()
    const undone = await rows('monsters', user.id)
    t.same(undone.map((r) => [r.pokemon_id, r.min_iv, r.distance, r.clean]).sort(), [[0, 100, 700, 1], [1, 0, 500, 0], [25, 90, 700, 1], [4, 95, 700, 1]], 'each alarm has its own IV and the distance before the second change again, clean-up kept')
    t.ok(undone.every((r) => r.template === 'keep' && r.max_cp === 3000), 'no field dropped by the undo')

    await page.getByRole('button', { name: /^Delete 3/ }).click()
    const confirm = page.getByRole('dialog')
    await confirm.getByText('Delete 3 alarms?').waitFor()
    await confirm.getByRole('button', { name: 'Cancel' }).click()
    t.equal((await rows('monsters', user.id)).length, 4, 'cancel keeps them')
    await page.getByRole('button', { name: /^Delete 3/ }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Delete', exact: true }).click()
    await page.getByText('3 alarms deleted.').waitFor()
    t.same((await rows('monsters', user.id)).map((r) => r.pokemon_id), [1])
  })

  if (engineMode === 'js') {
    t.test('phone: PoracleJS keeps no summaries, and preferences offer none', async (t) => {
      const page = await env.signIn(t, human(), '/preferences', PHONE)
      noNativeDialogs(t, page)
      await page.getByRole('button', { name: 'Save defaults' }).waitFor()
      await page.waitForLoadState('networkidle')
      t.equal(await page.getByRole('region', { name: 'Quest summary' }).count(), 0)
      t.same(await axeViolations(page), [], 'axe: the preferences page')
    })
  } else {
    t.test('phone: the quest summary is sent at once on request, and a refusal is said', async (t) => {
      const user = human()
      const page = await env.signIn(t, user, '/preferences', PHONE)
      noNativeDialogs(t, page)
      const summary = page.getByRole('region', { name: 'Quest summary' })
      const sent = () => testApp.engine.requests.filter((r) => r.method === 'POST' && r.path === `/api/summaries/${user.id}/quest/trigger`).length
      await summary.getByRole('button', { name: 'Send my summary now' }).click()
      await summary.getByText('Your quest summary is on its way.').waitFor()
      t.equal(sent(), 1, 'the engine was asked once')
      t.same(await axeViolations(page), [], 'axe: the preferences page after sending')
      testApp.engine.set({ summaryFeature: false })
      t.teardown(() => { testApp.engine.set({ summaryFeature: true }) })
      await summary.getByRole('button', { name: 'Send my summary now' }).click()
      await summary.getByRole('alert').getByText(/./).waitFor()
      t.notOk(await summary.getByText('Your quest summary is on its way.').isVisible(), 'no success while the engine refuses')
    })
  }

  t.test('desktop: personal defaults prefill a new alarm and an edited raid keeps its place and shows its team', async (t) => {
    const user = human()
    const page = await env.signIn(t, user, '/preferences', DESKTOP)
    noNativeDialogs(t, page)
    await page.getByLabel('Distance').fill('1500')
    await page.getByRole('button', { name: 'Save defaults' }).click()
    await page.getByText('Defaults saved.').waitFor()
    // Only the pages whose cards name raid levels read them: an answer coming in after the list is drawn
    // would draw it again.
    const levelReads = countRequests(page, '/api/masterdata/raid-levels')
    const configReads = countRequests(page, '/api/config')
    await page.goto('/alarms/monsters')
    await page.getByRole('button', { name: 'Add alarm' }).click()
    await choosePokemon(page, 'pika', 'Pikachu')
    await page.getByRole('dialog').getByText(/Pikachu, within 1\.5 km/).waitFor()
    t.equal(levelReads(), 0, 'the pokémon list and its editor read no raid levels')
    t.equal(configReads(), 1, 'the editor reads the engine\'s configuration once (leagues and the gym search alike)')
    await page.getByRole('button', { name: 'Create 1 alarm' }).click()
    await page.getByText('1 alarm created.').waitFor()
    t.match(await rows('monsters', user.id), [{ pokemon_id: 25, distance: 1500 }])
    // Cards name a form the game data knows, a species by its base form or else its first one, and an id
    // it does not know by number.
    for (const [id, form] of [[150, 135], [150, 0], [201, 0], [9999, 0]] as const) await insertAlarm(pool, 'pokemon', { id: user.id, pokemon_id: id, form })
    await page.reload()
    await page.getByText('Showing 5 of 5').waitFor()
    t.same((await page.locator('.alarm-title strong').allTextContents()).sort(), ['#9999', 'Mewtwo', 'Mewtwo (Armored)', 'Pikachu', 'Unown'])

    for (const level of [1, 3, 5]) await insertAlarm(pool, 'raid', { id: user.id, pokemon_id: 9000, level, team: 4 })
    await page.goto('/alarms/raids')
    await page.getByText('Showing 3 of 3').waitFor()
    t.equal(levelReads(), 1, 'the raid list reads them once')
    const before = await page.locator('.alarm-title strong').allTextContents()
    await page.getByRole('button', { name: /^Edit: Raids: 1-Star/ }).click()
    await page.getByLabel('Team').selectOption({ label: 'Mystic (blue)' })
    // The boss's move by name from the game data, never the engine's 9000 in a box.
    await page.getByText('More filters', { exact: true }).click()
    const move = page.getByLabel('Move', { exact: true })
    await move.locator('option', { hasText: 'Hyper Beam' }).waitFor({ state: 'attached' })
    t.same(await move.locator('option').allTextContents(), ['Any move', 'Hyper Beam', 'Wrap'], '"any move" first, then the moves by name')
    await move.selectOption({ label: 'Hyper Beam' })
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await page.getByText('Saved.').waitFor()
    t.same(await page.locator('.alarm-title strong').allTextContents(), before, 'the card kept its place')
    t.match(await page.locator('.alarm-card').first().textContent(), /Mystic/, 'the raid\'s team is on its card')
    t.match(await page.locator('.alarm-card').first().textContent(), /Hyper Beam/, 'and its move by name')
    t.match((await rows('raid', user.id)).find((r) => r.level === 1), { team: 1, move: 14 }, 'the engine has the move\'s id')
  })

  t.test('desktop: without the engine\'s configuration the editor offers the standard leagues and saves; the next opening reads it again', async (t) => {
    const user = human()
    const page = await env.signIn(t, user, '/alarms/monsters', DESKTOP)
    noNativeDialogs(t, page)
    const configReads = countRequests(page, '/api/config')
    // The connection drops as the editor asks for the configuration.
    await page.route('**/api/config', async (route) => { await route.abort('internetdisconnected') }, { times: 1 })
    const sheet = page.getByRole('dialog')
    const league = sheet.getByLabel('PvP league')
    const caps = sheet.getByLabel('PvP level cap').locator('option')
    await page.getByRole('button', { name: 'Add alarm' }).click()
    await sheet.locator('summary', { hasText: 'PvP' }).click()
    t.same(await league.locator('option').allTextContents(), ['None', 'Great League (1500)', 'Ultra League (2500)', 'Little Cup (500)'], 'the standard leagues')
    await league.selectOption({ label: 'Great League (1500)' })
    t.same(await caps.allTextContents(), ['Every level cap'], 'no cap the engine has not named')
    await choosePokemon(page, 'pika', 'Pikachu')
    await sheet.getByRole('button', { name: 'Create 1 alarm' }).click()
    await page.getByText('1 alarm created.').waitFor()
    t.match(await rows('monsters', user.id), [{ pokemon_id: 25, pvp_ranking_league: 1500 }], 'the alarm is saved with its league')
    t.equal(configReads(), 1, 'one read, failed')

    await page.getByRole('button', { name: 'Add alarm' }).click()
    await league.selectOption({ label: 'Great League (1500)' })
    await caps.filter({ hasText: 'Level 50' }).waitFor({ state: 'attached' })
    t.same(await caps.allTextContents(), ['Every level cap', 'Level 50'], 'the engine\'s caps, read at this opening')
    t.equal(configReads(), 2, 'the failed read is not kept: the next opening asks again')
  })

  t.test('desktop: a failed save of the defaults is said, and the next editor prefills what the server keeps', async (t) => {
    const user = human()
    const page = await env.signIn(t, user, '/preferences', DESKTOP)
    noNativeDialogs(t, page)
    const defaults = page.getByRole('region', { name: 'Defaults for new alarms' })
    await defaults.getByLabel('Distance').fill('1500')
    await defaults.getByRole('button', { name: 'Save defaults' }).click()
    await defaults.getByText('Defaults saved.').waitFor()
    // The connection drops as the next save is sent.
    await page.route('**/api/alarm-defaults', async (route) => { await (route.request().method() === 'PUT' ? route.abort('internetdisconnected') : route.fallback()) })
    await defaults.getByLabel('Distance').fill('2500')
    await defaults.getByRole('button', { name: 'Save defaults' }).click()
    await defaults.getByRole('alert').getByText(/./).waitFor()
    await page.unroute('**/api/alarm-defaults')
    // On to the pokémon page without loading the page again: the failed save is not what the editor gets.
    await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Pokémon' }).click()
    const sheet = await startPokemonAlarm(page, 'pika', 'Pikachu')
    await sheet.getByText(/Pikachu, within 1\.5 km/).waitFor()
    t.pass('the editor starts from the defaults the server kept (1.5 km), not the unsaved 2.5 km')
  })
}
