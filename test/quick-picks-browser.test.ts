import t, { type Test } from 'tap'
import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import { axeViolations, browserMissing, choosePokemon, PHONE, setMinIv, startBrowserApp } from './browser.js'
import { bearer, seedHuman } from './helper.js'
import { insertAlarm } from './fakes/engine-db.js'

/**
 * Quick picks in Chromium on a 360-px phone against the whole service and the engine fake: an admin
 * edits a pick's alarm in the alarm editor members use, and a member applies it leaving a pokemon out
 * and reads what was created and what was already there; a refused apply says why. axe-core checks each step.
 */
const ADMIN = '222222222222222222'
const MEMBER = '111111111111111111'

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await pickTests()

async function pickTests (): Promise<void> {
  const env = await startBrowserApp(t, { env: { PORACLE_ADMIN_IDS: ADMIN } })
  const { testApp, rows } = env
  const { app } = testApp
  await seedHuman(testApp, { id: ADMIN, name: 'Alice' })
  const seeded = await app.inject({ method: 'POST', url: '/api/quick-picks/seed', headers: bearer(app, { userId: ADMIN, isAdmin: true }) })
  t.equal(seeded.statusCode, 204, 'built-ins seeded')

  /** A phone signed in as `userId`, admin or not, on the quick picks page. */
  const open = async (test: Test, userId: string, isAdmin: boolean): Promise<Page> => {
    const context = await env.browser.newContext({ baseURL: env.base, viewport: PHONE })
    test.teardown(async () => { await context.close() })
    const page = await context.newPage()
    page.on('dialog', (dialog) => { test.fail(`native ${dialog.type()} dialog`); dialog.dismiss().catch(() => undefined) })
    const token = bearer(app, { userId, isAdmin }).authorization.slice('Bearer '.length)
    await page.goto('/login?loggedout=1')
    await page.evaluate((value) => { localStorage.setItem('aw.token', value); localStorage.setItem('aw.signIn', 'discord') }, token)
    await page.goto('/quick-picks')
    await page.getByRole('heading', { name: 'Available quick picks' }).waitFor()
    return page
  }

  t.test('an admin edits a pick in the alarm editor and saves it', async (t) => {
    const page = await open(t, ADMIN, true)
    await page.getByRole('button', { name: 'Edit 100% IV' }).click()
    const sheet = page.getByRole('dialog')
    t.equal(await sheet.getByRole('textbox', { name: 'Name' }).inputValue(), '100% IV', 'the pick\'s name')
    t.equal(await sheet.getByRole('textbox', { name: 'IV from' }).inputValue(), '100', 'the pick\'s alarm in the editor')
    await sheet.getByRole('textbox', { name: 'Name' }).fill('95% IV')
    await setMinIv(page, '95')
    await sheet.getByText(/IV ≥ 95%/).waitFor()
    t.same(await axeViolations(page), [], 'axe: the pick editor at 360 px')
    const dir = fileURLToPath(new URL('../docs/screenshots/', import.meta.url))
    mkdirSync(dir, { recursive: true })
    await sheet.getByRole('textbox', { name: 'Name' }).scrollIntoViewIfNeeded()
    await page.screenshot({ path: `${dir}/quick-picks-editor-phone.png` })
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
    const page = await open(t, MEMBER, false)
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

  t.test('a refused apply keeps the form open with the server\'s reason and creates nothing', async (t) => {
    const page = await open(t, MEMBER, false)
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
