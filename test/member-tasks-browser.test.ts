import t, { type Test } from 'tap'
import type { Locator, Page } from 'playwright-core'
import { axeViolations, browserMissing, PHONE, startBrowserApp } from './browser.js'

/**
 * The reference's everyday tasks, done as a member does them on a 360-px phone from each alarm list, with
 * every tap counted: each must land the right alarms in the engine in no more taps than the count the
 * site was held to before (docs/member-client.md, "Taps per task"). A native select counts two taps (open,
 * choose); a text field counts one (the tap into it) whatever is typed.
 *
 * The engine fake's game data is small: the Bulbasaur family stands in for the Dratini family and Gen 1
 * Water for Gen 3 Water; the taps are the same (one family search, one filtered search).
 */
/** Counts the taps of one task. */
class Taps {
  count = 0
  async tap (target: Locator): Promise<void> { this.count++; await target.click() }
  async type (field: Locator, text: string): Promise<void> { this.count++; await field.fill(text) }
  async choose (select: Locator, label: string): Promise<void> { this.count += 2; await select.selectOption({ label }) }
}

interface Task {
  name: string
  /** The taps the site was held to before. */
  before: number
  list: string
  table: string
  steps: (page: Page, taps: Taps) => Promise<void>
  /** What the engine must hold afterwards, row by row in uid order. */
  rows: Array<Record<string, unknown>>
}

const dialog = (page: Page) => page.getByRole('dialog')
const add = async (page: Page, taps: Taps) => { await taps.tap(page.getByRole('button', { name: 'Add alarm' })) }
const create = async (page: Page, taps: Taps, count: number) => {
  await taps.tap(dialog(page).getByRole('button', { name: `Create ${count} alarm${count === 1 ? '' : 's'}` }))
  await page.getByText(count === 1 ? '1 alarm created.' : `${count} alarms created.`).waitFor()
}
const search = (page: Page) => dialog(page).getByRole('searchbox', { name: 'Search pokémon' })
const tile = (page: Page, group: string, name: string) => dialog(page).getByRole('group', { name: group, exact: true }).getByRole('button', { name, exact: true })
/** A task that is tiles alone: Add, each tile of its group, Create (`created` alarms). */
const tiles = (picks: Array<[group: string, name: string]>, created: number) => async (page: Page, taps: Taps) => {
  await add(page, taps)
  for (const [group, name] of picks) await taps.tap(tile(page, group, name))
  await create(page, taps, created)
}

const TASKS: Task[] = [
  {
    name: 'All hundos near me',
    before: 7,
    list: 'monsters',
    table: 'monsters',
    steps: async (page, taps) => {
      await add(page, taps)
      await taps.tap(dialog(page).getByRole('button', { name: /^Everything/ }))
      await taps.type(dialog(page).getByRole('textbox', { name: 'IV from' }), '100')
      await taps.tap(dialog(page).getByText('Delivery options', { exact: true }))
      await taps.tap(dialog(page).getByRole('radio', { name: 'Within a distance of my location' }))
      await create(page, taps, 1)
    },
    rows: [{ pokemon_id: 0, min_iv: 100, distance: 1000 }]
  },
  {
    name: 'A family, IV ≥ 90',
    before: 5,
    list: 'monsters',
    table: 'monsters',
    steps: async (page, taps) => {
      await add(page, taps)
      await taps.type(search(page), '+bulb')
      await taps.tap(dialog(page).getByRole('button', { name: 'Select all 3 shown', exact: true }))
      await taps.type(dialog(page).getByRole('textbox', { name: 'IV from' }), '90')
      await create(page, taps, 3)
    },
    rows: [{ pokemon_id: 1, min_iv: 90 }, { pokemon_id: 2, min_iv: 90 }, { pokemon_id: 3, min_iv: 90 }]
  },
  {
    name: 'Great League rank 1–10 of one species',
    before: 8,
    list: 'monsters',
    table: 'monsters',
    steps: async (page, taps) => {
      await add(page, taps)
      await taps.type(search(page), 'pika')
      await taps.tap(dialog(page).getByTestId('pokemon-grid').getByRole('button', { name: 'Pikachu', exact: true }))
      await taps.tap(dialog(page).getByText('PvP', { exact: true }))
      await taps.choose(dialog(page).getByLabel('PvP league'), 'Great League (1500)')
      await taps.type(dialog(page).getByRole('textbox', { name: 'Best PvP rank up to' }), '10')
      await create(page, taps, 1)
    },
    rows: [{ pokemon_id: 25, pvp_ranking_league: 1500, pvp_ranking_best: 1, pvp_ranking_worst: 10 }]
  },
  {
    name: '5★ and Mega raids',
    before: 4,
    list: 'raids',
    table: 'raid',
    steps: tiles([['Level', '5-Star Raid'], ['Level', 'Mega Raid']], 2),
    rows: [{ pokemon_id: 9000, level: 5 }, { pokemon_id: 9000, level: 6 }]
  },
  {
    name: 'Giovanni',
    before: 3,
    list: 'invasions',
    table: 'invasion',
    steps: tiles([['Grunt type', 'Giovanni']], 1),
    rows: [{ grunt_type: 'giovanni' }]
  },
  {
    name: 'Glacial lures',
    before: 3,
    list: 'lures',
    table: 'lures',
    steps: tiles([['Lure', 'Glacial lure']], 1),
    rows: [{ lure_id: 502 }]
  },
  {
    name: 'Rare Candy quests',
    before: 5,
    list: 'quests',
    table: 'quest',
    steps: tiles([['Reward type', 'Item'], ['Reward', 'Rare Candy']], 1),
    rows: [{ reward_type: 2, reward: 1301 }]
  },
  {
    name: 'All Water of one generation',
    before: 4,
    list: 'monsters',
    table: 'monsters',
    steps: async (page, taps) => {
      await add(page, taps)
      await taps.type(search(page), 'gen1 & water')
      await taps.tap(dialog(page).getByRole('button', { name: 'Select all 2 shown', exact: true }))
      await create(page, taps, 2)
    },
    rows: [{ pokemon_id: 7 }, { pokemon_id: 129 }]
  }
]

async function taskTests (): Promise<void> {
  const env = await startBrowserApp(t)
  let nextUser = 7000
  const measured: Array<[string, number, number]> = []

  for (const task of TASKS) {
    await t.test(`${task.name}: no more than ${task.before} taps from the list`, async (t) => {
      const user = { id: String(++nextUser), name: `member${nextUser}`, latitude: 51.5, longitude: -0.12, area: ['centre'] }
      const page = await env.signIn(t, user, `/alarms/${task.list}`, PHONE)
      await page.getByText('No alarms of this type yet.').waitFor()
      const taps = new Taps()
      await task.steps(page, taps)
      const rows = await env.rows(task.table, user.id)
      t.equal(rows.length, task.rows.length, 'as many alarms as asked for')
      t.match(rows, task.rows, 'the engine has these alarms')
      t.ok(taps.count <= task.before, `${taps.count} taps, held to ${task.before}`)
      measured.push([task.name, task.before, taps.count])
    })
  }
  t.test('a quest\'s reward kinds are tiles; its reward and amount wait for the kind, the amount with no 2147483647', async (t) => {
    const page = await env.signIn(t, { id: String(++nextUser), name: `member${nextUser}` }, '/alarms/quests', PHONE)
    await page.getByText('No alarms of this type yet.').waitFor()
    await page.getByRole('button', { name: 'Add alarm' }).click()
    const kinds = dialog(page).getByRole('group', { name: 'Reward type', exact: true })
    const names = await kinds.getByRole('button').evaluateAll((tiles) => tiles.map((tile) => tile.querySelector('.tile-name')?.textContent ?? ''))
    t.same(names, ['Pokémon encounter', 'Item', 'Mega energy', 'Candy', 'Stardust'], 'every kind the engine stores, as tiles')
    t.equal(await dialog(page).getByRole('textbox', { name: 'Minimum amount' }).count(), 0, 'nothing to count before the kind')
    await kinds.getByRole('button', { name: 'Stardust', exact: true }).click()
    t.equal(await dialog(page).getByRole('textbox', { name: 'Minimum amount' }).count(), 0, 'stardust has its floor in the reward, no amount')
    await kinds.getByRole('button', { name: 'Candy', exact: true }).click()
    const amount = dialog(page).getByRole('textbox', { name: 'Minimum amount' })
    t.equal(await page.locator(`#${await amount.getAttribute('aria-describedby') ?? ''}`).textContent(), '0 or more.', 'an open top is "or more"')
    await amount.fill('-1')
    await dialog(page).getByRole('button', { name: /^Create/ }).click()
    await dialog(page).getByText('Must be at least 0.').waitFor()
    t.same(await axeViolations(page), [], 'axe-clean with the tiles and the error')
    t.equal(await dialog(page).getByText('For stardust, the minimum amount.').count(), 0, 'a candy reward is a pokémon: no word of stardust')
    if (process.env.SCREENSHOTS === '1') {
      await kinds.scrollIntoViewIfNeeded()
      await page.screenshot({ path: 'docs/screenshots/quest-reward-kinds-phone.png' })
    }
  })

  t.test('the table', async (t: Test) => {
    t.equal(measured.length, TASKS.length, 'every task measured')
    t.comment(['Task | before | now', ...measured.map(([name, before, now]) => `${name} | ${before} | ${now}`)].join('\n'))
  })
}

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await taskTests()
