import t from 'tap'
import type { Page } from 'playwright-core'
import { axeViolations, browserMissing, DESKTOP, PHONE, startBrowserApp } from './browser.js'
import { insertAlarm } from './fakes/engine-db.js'
import { seedHuman } from './helper.js'
import { INT_MAX } from '../schemas/alarm-types.js'

/**
 * Game words on the alarm cards (Debian's Chromium, the engine fake's tables): sizes XXS–XXL, rarity
 * names, time left in minutes, m/km in the reader's language, no 2147483647 for an open top, a member's
 * own fence without the engine's ~u<id>, the team's badge. Each pins a number the cards showed before.
 */
/** Tall enough for every card: the list draws only what is on screen. */
const TALL = 2400

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await browserTests()

/** Every card's sentence, once `count` are drawn. */
const sentences = async (page: Page, count: number): Promise<string[]> => {
  await page.waitForFunction((n) => document.querySelectorAll('.alarm-text').length >= n, count)
  return await page.locator('.alarm-text').allTextContents()
}

async function browserTests (): Promise<void> {
  const env = await startBrowserApp(t)
  const pool = env.testApp.app.engineDb.pool
  const member = { id: '9200', name: 'member9200', latitude: 51.1, longitude: 7.1 }
  await env.signIn(t, member, '/help')
  for (const row of [
    { pokemon_id: 1, size: 5, max_size: 5 },
    { pokemon_id: 4, size: 1, max_size: 2 },
    { pokemon_id: 7, rarity: 4 },
    { pokemon_id: 10, min_time: 300 },
    { pokemon_id: 13, min_cp: 2500, max_cp: INT_MAX },
    { pokemon_id: 16, distance: 2500 },
    { pokemon_id: 19, distance: 750 },
    { pokemon_id: 25, override_areas: JSON.stringify(['my corner ~u7', 'harbour']) }
  ]) await insertAlarm(pool, 'pokemon', { id: member.id, ...row })
  await insertAlarm(pool, 'raid', { id: member.id, pokemon_id: 9000, level: 5, team: 2 })

  for (const [size, viewport] of [['360 px', { ...PHONE, height: TALL }], ['desktop', { ...DESKTOP, height: TALL }]] as const) {
    t.test(`${size}: pokémon cards in game words`, async (t) => {
      const page = await env.signIn(t, { ...member, seeded: true }, '/alarms/monsters', viewport)
      const all = await sentences(page, 8)
      const has = (words: RegExp, what: string): void => { t.ok(all.some((s) => words.test(s)), `${what}: ${String(words)}`) }
      has(/, size XXL,/, 'one size by its letters')
      has(/, size XXS–XS,/, 'a span of sizes')
      has(/, rarity ≥ Very rare,/, 'a rarity by name')
      has(/: 5 min,/, 'time left in minutes')
      t.notOk(all.some((s) => /\b300\b/.test(s)), 'no seconds')
      has(/, CP ≥ 2,500,/, 'an open top reads ≥')
      t.notOk(all.some((s) => /2,?147,?483,?647/.test(s)), 'no engine sentinel on any card')
      has(/, within 2\.5 km$/, 'kilometres')
      has(/, within 750 m$/, 'metres')
      has(/, in my corner, harbour$/, 'a member\'s own fence by its display name')
      t.notOk((await page.locator('main').innerText()).includes('~u'), 'no engine suffix on the page')
      t.same(await axeViolations(page), [], 'axe-clean')
    })
  }

  t.test('the editor says a size span in the game\'s letters, to the eye and to screen readers', async (t) => {
    const page = await env.signIn(t, { ...member, seeded: true }, '/alarms/monsters', { ...PHONE, height: TALL })
    await page.getByRole('button', { name: /^Edit: .*size XXS–XS/ }).click()
    const editor = page.getByRole('dialog')
    await editor.waitFor()
    await editor.getByText('More filters').click()
    // The section's fields are drawn once it is open: the pair's words are waited for, then counted.
    const state = editor.locator('.range-state', { hasText: 'XXS – XS' })
    await state.first().waitFor({ timeout: 10_000 })
    t.equal(await state.count(), 1, 'the pair\'s state line')
    t.equal(await editor.locator('[role="slider"][aria-valuetext="XS"]').count(), 1, 'the upper thumb\'s value text')
  })

  t.test('in German: the decimal comma and the rarity\'s German name', async (t) => {
    const page = await env.signIn(t, { ...member, seeded: true }, '/help', { ...PHONE, height: TALL })
    await page.evaluate(() => { localStorage.setItem('aw.language', 'de') })
    await page.goto('/alarms/monsters')
    await page.waitForFunction(() => document.documentElement.lang === 'de')
    const all = await sentences(page, 8)
    t.ok(all.some((s) => / 2,5 km$/.test(s)), 'the decimal comma')
    t.ok(all.some((s) => /≥ Sehr selten,/.test(s)), 'the rarity in German')
  })

  for (const [size, viewport, id] of [['360 px', PHONE, '9201'], ['desktop', DESKTOP, '9202']] as const) {
    t.test(`${size}: a raid boss's evolution is a list of names, never a number box`, async (t) => {
      const raider = { ...member, id, name: `member${id}` }
      await seedHuman(env.testApp, raider)
      const uid = await insertAlarm(pool, 'raid', { id, pokemon_id: 150, level: 9000, evolution: 1 })
      const page = await env.signIn(t, { ...raider, seeded: true }, `/alarms/raids?edit=${uid}&field=evolution`, viewport)
      await page.locator('.pill', { hasText: 'Mega' }).first().waitFor()
      t.pass('the card names the evolution')
      const field = page.getByRole('dialog').getByLabel('Evolution', { exact: true })
      await field.waitFor()
      t.equal(await field.evaluate((el) => el.tagName), 'SELECT')
      t.same(await field.locator('option').allTextContents(), ['Any', 'Not mega evolved', 'Mega', 'Mega X', 'Mega Y', 'Primal'])
      t.equal(await field.inputValue(), '1', 'the alarm\'s own evolution chosen')
      t.equal(await page.getByRole('dialog').getByRole('spinbutton', { name: 'Evolution' }).count(), 0, 'no number box')
      t.same(await axeViolations(page), [], 'axe-clean')
    })
  }

  t.test('a raid\'s team filter wears the team\'s badge', async (t) => {
    const page = await env.signIn(t, { ...member, seeded: true }, '/alarms/raids', PHONE)
    const pill = page.locator('.pill', { hasText: 'Valor' })
    await pill.waitFor()
    t.equal(await pill.locator('.game-icon').count(), 1, 'the badge beside the team\'s name')
    t.same(await axeViolations(page), [], 'axe-clean')
  })
}
