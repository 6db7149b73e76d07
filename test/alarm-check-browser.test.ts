import t from 'tap'
import { fileURLToPath } from 'node:url'
import type { Locator, Page } from 'playwright-core'
import { bearer, seedHuman } from './helper.js'
import { axeViolations, browserMissing, DESKTOP, PHONE, startScannerBrowserApp } from './browser.js'

/**
 * The editor's "Check this alarm" in a real browser, at 360 px and on a desktop: a described Magikarp that
 * meets the alarm (yes) and one whose IV falls short (no, the IV in words), the other alarms' sentences, a
 * point of the map by keyboard, a raid alarm's boss (yes) and an egg (no);
 * "Why no alert?" opening the editor at the failed filter with focus there (and at a field of a closed
 * section); "Add an alarm for this" prefilled from the event; axe-clean. At 360 px, quests, invasions and
 * lures described by their own fields (a reward and its amount, a grunt, a kind of lure), each both ways,
 * and so eggs, nests, gyms, fort changes and max battles; a grunt list that cannot be read is said, with a retry.
 * `SCREENSHOTS=1` saves the check to docs/screenshots/.
 */
const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await browserTests()

async function browserTests (): Promise<void> {
  const env = await startScannerBrowserApp(t)
  const { scanner } = env
  const { app } = env.testApp
  env.testApp.engine.set({ fences: [{ name: 'Centre', path: [[51, 7], [51, 7.2], [51.2, 7.2], [51.2, 7]] }] })
  const now = Math.floor(Date.now() / 1000)
  // A Magikarp of 82 % (the member's alarm wants 90) and a Squirtle of 82 % (no alarm of theirs) in the centre.
  for (const [id, lat, species, seen] of [['m1', 51.1, 129, now - 300], ['s1', 51.12, 7, now - 200]] as const) {
    await scanner.query(`INSERT INTO pokemon (id, lat, lon, pokemon_id, form, atk_iv, def_iv, sta_iv, iv, cp, level, gender, first_seen_timestamp, expire_timestamp, expire_timestamp_verified, updated)
      VALUES (?, ?, 7.1, ?, 0, 15, 15, 7, 82.22, 500, 20, 1, ?, ?, 1, ?)`, [id, lat, species, seen, seen + 1800, seen])
  }
  const screenshots = process.env.SCREENSHOTS === '1' ? fileURLToPath(new URL('../docs/screenshots/', import.meta.url)) : undefined
  const focusedId = async (page: Page): Promise<string> => await page.evaluate(() => document.activeElement?.id ?? '')

  for (const [viewport, name, id] of [[PHONE, 'phone', '8871'], [DESKTOP, 'desktop', '8872']] as const) {
    t.test(`${name}: check an alarm, open it at the failed filter, add one from an event`, async (t) => {
      const user = { id, name: `member${id}`, latitude: 51.1, longitude: 7.1, area: ['centre'] }
      const headers = bearer(app, { userId: id })
      await seedHuman(env.testApp, user)
      const magikarp = await app.inject({ method: 'POST', url: '/api/monsters', headers, payload: { pokemon_id: 129, min_iv: 90 } })
      t.equal(magikarp.statusCode, 201, 'a Magikarp alarm, IV ≥ 90')
      const uid = (magikarp.json() as { uid: number }).uid
      const pikachu = await app.inject({ method: 'POST', url: '/api/monsters', headers, payload: { pokemon_id: 25, min_iv: 0 } })
      t.equal(pikachu.statusCode, 201, 'a Pikachu alarm')

      const page = await env.signIn(t, { ...user, seeded: true }, `/alarms/monsters?edit=${uid}`, viewport)
      const dialog = page.getByRole('dialog')
      await dialog.getByRole('heading', { name: 'Edit alarm' }).first().waitFor()
      const open = dialog.getByRole('button', { name: 'Check this alarm' })
      await open.click()
      t.equal(await open.getAttribute('aria-expanded'), 'true', 'the check is a disclosure')
      const check = dialog.locator('.alarm-check')
      t.equal(await check.getByLabel('Pokémon', { exact: true }).inputValue(), '129-0', 'the species defaults to the alarm\'s')
      await check.getByText('IV: 100%').waitFor()
      await check.getByText(/Point: 51\.1, 7\.1/).waitFor()
      await check.getByRole('button', { name: 'Check', exact: true }).click()
      await check.getByText('This alarm would alert you.').waitFor()
      t.pass('a hundo Magikarp at the pin: yes')
      await check.locator('.explain-alarm', { hasText: 'Pikachu' }).waitFor()
      t.match(await check.locator('.explain-alarm').allInnerTexts(), [/Pikachu.*: no/], 'the other alarm, in a sentence')

      await check.getByLabel('Attack', { exact: true }).fill('7')
      await check.getByText('IV: 82.22%').waitFor()
      await check.getByRole('button', { name: 'Check', exact: true }).click()
      await check.getByText('This alarm would not alert you: IV was 82.22%').waitFor()
      t.pass('an 82 % Magikarp: no, the IV in words')
      t.same(await axeViolations(page), [], 'axe-clean: the check and its answer')
      if (screenshots !== undefined) {
        // The sheet scrolls inside itself: the picture is of the screen, with the answer in it.
        await check.locator('.explain-alarms').scrollIntoViewIfNeeded()
        await page.screenshot({ path: `${screenshots}${name}-alarm-check.png` })
      }

      await check.getByLabel('A point on the map').check()
      await check.getByRole('button', { name: 'Use the map\'s centre' }).click()
      await check.getByText(/Point: 51\.1, 7\.1/).waitFor()
      t.pass('a point on the map, by keyboard: the map\'s centre')

      // A raid: the boss of the alarm, then an egg.
      const mewtwo = await app.inject({ method: 'POST', url: '/api/raids', headers, payload: { pokemon_id: 150 } })
      t.equal(mewtwo.statusCode, 201, 'a Mewtwo raid alarm')
      await page.goto(`/alarms/raids?edit=${(mewtwo.json() as { uid: number }).uid}`)
      await page.getByRole('dialog').getByRole('button', { name: 'Check this alarm' }).click()
      const raid = page.getByRole('dialog').locator('.alarm-check')
      t.equal(await raid.getByLabel('Boss', { exact: true }).inputValue(), '150-0', 'the boss defaults to the alarm\'s')
      await raid.getByText(/Point: 51\.1, 7\.1/).waitFor()
      await raid.getByRole('button', { name: 'Check', exact: true }).click()
      await raid.getByText('This alarm would alert you.').waitFor()
      await raid.getByLabel('Boss', { exact: true }).selectOption('0-0')
      await raid.getByRole('button', { name: 'Check', exact: true }).click()
      await raid.getByText(/^This alarm would not alert you: /).waitFor()
      t.pass('a Mewtwo raid: yes; an egg: no')

      // From "Why no alert?": the Magikarp alarm opens at its IV, focused.
      await page.goto('/why')
      const list = page.locator('.explain-list')
      await list.getByRole('button', { name: /Magikarp 82.22%/ }).click()
      await page.locator('.explain-alarm', { hasText: 'IV was 82.22%' }).getByRole('link', { name: 'Open this alarm' }).click()
      await page.waitForURL(/edit=\d+&field=min_iv/)
      await page.getByRole('dialog').waitFor()
      await page.waitForFunction(() => document.activeElement?.id === 'field-pokemon-min_iv')
      t.equal(await focusedId(page), 'field-pokemon-min_iv', 'the failed filter has focus')

      // A field of a closed section: the section opens.
      await page.goto(`/alarms/monsters?edit=${uid}&field=min_cp`)
      await page.waitForFunction(() => document.activeElement?.id === 'field-pokemon-min_cp')
      t.equal(await page.locator('details.more[open] #field-pokemon-min_cp').count(), 1, 'the advanced section is open at CP')

      // "Add an alarm for this" on the Squirtle: the species and the IV floor come with it.
      await page.goto('/why')
      await page.locator('.explain-list').getByRole('button', { name: /Squirtle 82.22%/ }).click()
      await page.getByRole('link', { name: 'Add an alarm for this' }).click()
      await page.waitForURL(/add=new&pokemon_id=7&form=0&min_iv=82/)
      const adding = page.getByRole('dialog')
      await adding.getByRole('button', { name: /Create 1/ }).waitFor()
      t.equal(await page.locator('#field-pokemon-min_iv').inputValue(), '82', 'the IV floor at the event\'s IV')
      t.same(await axeViolations(page), [], 'axe-clean: the prefilled editor')
      await adding.getByRole('button', { name: /Create 1/ }).click()
      await page.getByText('1 alarm created.').waitFor()
      const rows = await env.rows('monsters', id)
      t.ok(rows.some((r) => r.pokemon_id === 7 && r.min_iv === 82), 'a Squirtle alarm from 82 %')
    })
  }

  t.test('phone: quests, invasions and lures, each described by its own fields', async (t) => {
    const id = '8873'
    const user = { id, name: `member${id}`, latitude: 51.1, longitude: 7.1, area: ['centre'] }
    const headers = bearer(app, { userId: id })
    await seedHuman(env.testApp, user)
    const created = async (path: string, payload: object): Promise<number> => {
      const res = await app.inject({ method: 'POST', url: `/api${path}`, headers, payload })
      t.equal(res.statusCode, 201, `${path}: ${res.body}`)
      return (res.json() as { uid: number }).uid
    }
    const quest = await created('/quests', { reward_type: 2, reward: 1, amount: 5 })
    const invasion = await created('/invasions', { grunt_type: 'fire' })
    const lure = await created('/lures', { lure_id: 502 })
    const page = await env.signIn(t, { ...user, seeded: true }, `/alarms/quests?edit=${quest}`, PHONE)
    const checkOf = async (): Promise<ReturnType<Page['locator']>> => {
      await page.getByRole('dialog').getByRole('button', { name: 'Check this alarm' }).click()
      const check = page.getByRole('dialog').locator('.alarm-check')
      await check.getByText(/Point: 51\.1, 7\.1/).waitFor()
      return check
    }
    const verdict = async (check: ReturnType<Page['locator']>, text: string | RegExp): Promise<void> => {
      await check.getByRole('button', { name: 'Check', exact: true }).click()
      await check.getByText(text).waitFor()
    }

    // Five Poké Balls wanted: one is too few, five alert.
    const q = await checkOf()
    t.equal(await q.getByLabel('Reward type', { exact: true }).inputValue(), '2', 'the reward kind defaults to the alarm\'s')
    t.equal(await q.getByLabel('Reward', { exact: true }).inputValue(), '1', 'and its item')
    await verdict(q, /^This alarm would not alert you: /)
    await q.getByLabel('Amount', { exact: true }).fill('5')
    await verdict(q, 'This alarm would alert you.')
    t.pass('a quest of five Poké Balls: yes; of one: no')
    t.same(await axeViolations(page), [], 'axe-clean: a quest described')

    await page.goto(`/alarms/invasions?edit=${invasion}`)
    const i = await checkOf()
    t.equal(await i.getByLabel('Grunt type', { exact: true }).inputValue(), '18', 'the alarm\'s grunt type: the fire grunt')
    await verdict(i, 'This alarm would alert you.')
    await i.getByLabel('Grunt type', { exact: true }).selectOption('6')
    await verdict(i, /^This alarm would not alert you: /)
    t.pass('a fire grunt: yes; a bug grunt: no')
    t.same(await axeViolations(page), [], 'axe-clean: an invasion described')

    await page.goto(`/alarms/lures?edit=${lure}`)
    const l = await checkOf()
    t.equal(await l.getByLabel('Lure', { exact: true }).inputValue(), '502', 'the alarm\'s lure')
    await verdict(l, 'This alarm would alert you.')
    await l.getByLabel('Lure', { exact: true }).selectOption('503')
    await verdict(l, /^This alarm would not alert you: /)
    t.pass('a glacial lure: yes; a mossy one: no')
    t.same(await axeViolations(page), [], 'axe-clean: a lure described')
    t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'nothing wider than the 360 px screen')
  })
  t.test('360 px: eggs, nests, gyms, fort changes and max battles described by their own fields, each both ways; an invasion\'s grunt list that fails says so and is read again', async (t) => {
    const id = '8874'
    const user = { id, name: `member${id}`, latitude: 51.1, longitude: 7.1, area: ['centre'] }
    const headers = bearer(app, { userId: id })
    await seedHuman(env.testApp, user)
    /** An alarm of each type, the event the check starts from (which it meets), and one change that it does not. */
    const cases: Array<{ type: string, page: string, payload: object, change: (check: Locator) => Promise<void> }> = [
      { type: 'egg', page: 'eggs', payload: { level: 5 }, change: async (c) => { await c.getByLabel('Raid level', { exact: true }).selectOption('3') } },
      { type: 'nest', page: 'nests', payload: { pokemon_id: 129, min_spawn_avg: 10 }, change: async (c) => { await c.getByLabel('Spawns per hour', { exact: true }).fill('2') } },
      { type: 'gym', page: 'gyms', payload: { team: 1 }, change: async (c) => { await c.getByLabel('Team', { exact: true }).selectOption('2') } },
      { type: 'fort', page: 'fort-changes', payload: { fort_type: 'pokestop', change_types: ['new'] }, change: async (c) => { await c.getByLabel('What changed', { exact: true }).selectOption('removal') } },
      { type: 'maxbattle', page: 'maxbattles', payload: { level: 1 }, change: async (c) => { await c.getByLabel('Battle level', { exact: true }).selectOption('3') } }
    ]
    let page: Page | undefined
    for (const { type, page: list, payload, change } of cases) {
      const res = await app.inject({ method: 'POST', url: `/api/${list}`, headers, payload })
      t.equal(res.statusCode, 201, `${type}: ${res.body}`)
      const path = `/alarms/${list}?edit=${(res.json() as { uid: number }).uid}`
      if (page === undefined) page = await env.signIn(t, { ...user, seeded: true }, path, PHONE)
      else await page.goto(path)
      const dialog = page.getByRole('dialog')
      await dialog.getByRole('button', { name: 'Check this alarm' }).click()
      const check = dialog.locator('.alarm-check')
      await check.getByText(/Point: 51\.1, 7\.1/).waitFor()
      const verdict = async (text: string | RegExp): Promise<void> => {
        await check.getByRole('button', { name: 'Check', exact: true }).click()
        await check.getByText(text).waitFor()
      }
      await verdict('This alarm would alert you.')
      await change(check)
      await verdict(/^This alarm would not alert you: /)
      t.pass(`${type}: the alarm's own event alerts; the changed one does not`)
      t.same(await axeViolations(page), [], `axe-clean: ${type} described`)
    }

    const invasion = await app.inject({ method: 'POST', url: '/api/invasions', headers, payload: { grunt_type: 'fire' } })
    const grunts = '**/api/masterdata/grunts'
    await page!.route(grunts, async (route) => { await route.abort('internetdisconnected') })
    await page!.goto(`/alarms/invasions?edit=${(invasion.json() as { uid: number }).uid}`)
    const dialog = page!.getByRole('dialog')
    await dialog.getByRole('button', { name: 'Check this alarm' }).click()
    const failed = dialog.getByRole('alert').filter({ hasText: 'The list of grunts could not be loaded.' })
    await failed.waitFor()
    t.same(await axeViolations(page!), [], 'axe-clean with the failure said')
    await page!.unroute(grunts)
    await failed.getByRole('button', { name: 'Try again' }).click()
    t.equal(await dialog.locator('.alarm-check').getByLabel('Grunt type', { exact: true }).inputValue(), '18', 'read again: the alarm\'s fire grunt')
  })
}
