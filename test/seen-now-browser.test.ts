import t from 'tap'
import type { Connection } from 'mariadb'
import type { Page } from 'playwright-core'
import { rootConnection } from './helper.js'
import { axeViolations, browserMissing, PHONE, startBrowserApp } from './browser.js'
import { golbatDatabase } from './fakes/golbat-db.js'
import { STATION_TABLE } from './fakes/scanner-db.js'

/**
 * What the scanner sees now, in the pokémon picker of each alarm type (a real browser, a scanner database
 * with Golbat's schema): the raid boss grid starts narrowed to the bosses of the raids running now, the
 * max-battle grid to the pokémon at power spots, and the quest reward grid offers today's rewards of its
 * kind as a filter. The game data of the engine fake has 9 species.
 */
const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await browserTests()

const SPECIES = 9

async function status (page: Page, shown: number): Promise<void> {
  await page.locator('.grid-picker').getByText(`Showing ${shown} / ${SPECIES}`, { exact: true }).waitFor()
}

async function browserTests (): Promise<void> {
  const database = await golbatDatabase()
  const scanner: Connection = await rootConnection()
  await scanner.query(`USE \`${database}\``)
  t.teardown(() => scanner.end())
  const now = Date.parse('2026-11-26T12:00:00Z') / 1000
  // A running level-5 Mewtwo raid, an ended Bulbasaur one and an egg (no boss yet).
  await scanner.query(`INSERT INTO gym (id, lat, lon, updated, first_seen_timestamp, raid_level, raid_pokemon_id, raid_pokemon_form, raid_end_timestamp, team_id) VALUES
    ('g1', 51.1, 7.1, ?, ?, 5, 150, 0, ?, 1), ('g2', 51.1, 7.1, ?, ?, 1, 1, 0, ?, 1), ('g3', 51.1, 7.1, ?, ?, 3, 0, 0, ?, 1)`,
  [now, now, now + 1800, now, now, now - 60, now, now, now + 1800])
  await scanner.query(STATION_TABLE)
  await scanner.query('INSERT INTO station (id, battle_pokemon_id) VALUES (\'a\', 129), (\'b\', 3), (\'c\', 129)')
  await scanner.query(`INSERT INTO pokestop (id, lat, lon, updated, first_seen_timestamp, quest_reward_type, quest_pokemon_id, quest_pokemon_form_id, quest_expiry) VALUES
    ('s1', 51.1, 7.1, ?, ?, 7, 25, 0, ?), ('s2', 51.1, 7.1, ?, ?, 12, 3, 0, ?)`, [now, now, now + 3600, now, now, now + 3600])

  const env = await startBrowserApp(t, { env: { SCANNER_DB_HOST: '127.0.0.1', SCANNER_DB_USER: 'root', SCANNER_DB_NAME: database } })

  t.test('raid bosses: the grid starts at the bosses running now; Reset shows every species', async (t) => {
    const page = await env.signIn(t, { id: '7771', name: 'member7771' }, '/alarms/raids', PHONE)
    await page.getByRole('button', { name: 'Add alarm' }).click()
    await page.getByRole('radio', { name: 'One pokémon' }).check()
    await status(page, 1)
    const grid = page.getByTestId('pokemon-grid')
    await grid.getByRole('button', { name: 'Mewtwo', exact: true }).waitFor()
    t.equal(await grid.getByRole('button', { name: 'Bulbasaur', exact: true }).count(), 0, 'an ended raid\'s boss is not offered first')
    await page.getByRole('button', { name: 'Filters (1)' }).click()
    const facet = page.getByRole('checkbox', { name: 'Raid bosses now' })
    t.ok(await facet.isChecked(), 'the filter says why')
    t.same(await axeViolations(page), [], 'axe-clean with the filters open')
    await page.getByRole('button', { name: 'Reset' }).click()
    await status(page, SPECIES)
    t.notOk(await facet.isChecked(), 'every species after Reset')
  })

  t.test('max battles: the pokémon at power spots now', async (t) => {
    const page = await env.signIn(t, { id: '7772', name: 'member7772' }, '/alarms/maxbattles', PHONE)
    await page.getByRole('button', { name: 'Add alarm' }).click()
    await page.getByRole('radio', { name: 'One pokémon' }).check()
    await status(page, 2)
    const grid = page.getByTestId('pokemon-grid')
    for (const name of ['Venusaur', 'Magikarp']) await grid.getByRole('button', { name, exact: true }).waitFor()
    t.pass('Venusaur and Magikarp, once each')
  })

  t.test('quest rewards: today\'s pokémon encounters as a filter of the reward grid, by kind', async (t) => {
    const page = await env.signIn(t, { id: '7773', name: 'member7773' }, '/alarms/quests', PHONE)
    await page.getByRole('button', { name: 'Add alarm' }).click()
    const rewardType = page.getByRole('group', { name: 'Reward type', exact: true })
    await rewardType.getByRole('button', { name: 'Pokémon encounter', exact: true }).click()
    await status(page, SPECIES)
    await page.getByRole('button', { name: 'Filters' }).click()
    await page.getByRole('checkbox', { name: 'Quest rewards today' }).check()
    await status(page, 1)
    await page.getByTestId('pokemon-grid').getByRole('button', { name: 'Pikachu', exact: true }).waitFor()
    await rewardType.getByRole('button', { name: 'Mega energy', exact: true }).click()
    t.ok(await page.getByRole('checkbox', { name: 'Mega energy rewards today' }).isChecked(), 'the filter stays on and now reads mega energy rewards')
    await status(page, 1)
    await page.getByTestId('pokemon-grid').getByRole('button', { name: 'Venusaur', exact: true }).waitFor()
    t.pass('each reward kind reads its own rewards')
  })

  t.test('the wild pokémon grid offers no "seen now" filter without a spawn source', async (t) => {
    const page = await env.signIn(t, { id: '7774', name: 'member7774' }, '/alarms/monsters', PHONE)
    await page.getByRole('button', { name: 'Add alarm' }).click()
    await status(page, SPECIES)
    await page.getByRole('button', { name: 'Filters' }).click()
    await page.getByRole('checkbox', { name: 'Selected only' }).waitFor()
    t.equal(await page.getByRole('checkbox', { name: 'Spawning now' }).count(), 0)
  })
}
