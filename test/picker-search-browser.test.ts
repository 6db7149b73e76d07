import t from 'tap'
import type { Page } from 'playwright-core'
import { axeViolations, browserMissing, DESKTOP, PHONE, startBrowserApp } from './browser.js'
import { startUiconsFake } from './fakes/uicons.js'
import { buildPickerHarness } from './fixtures/picker-harness/build.js'

/**
 * The pokemon grid's search forgiving a member's spelling, in Chromium at 360 px and on a desktop, against
 * the whole service and the picker harness page: a misspelt name still finds the pokemon with the letters
 * found marked, a form is found by its name whether or not "All forms" is on, and the filters in force
 * are chips that remove one filter each. With SCREENSHOT_DIR set, the grid is saved there at both sizes.
 */

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await searchTests()

async function searchTests (): Promise<void> {
  const icons = await startUiconsFake()
  t.teardown(() => icons.close())
  const harness = await buildPickerHarness()
  const env = await startBrowserApp(t, { env: { UICONS_URL: icons.base, MAP_TILE_URL: `${icons.origin}/tiles/{z}/{x}/{y}.png` }, routes: harness })
  let nextUser = 5000
  const human = () => ({ id: String(++nextUser), name: `member${nextUser}`, latitude: 51.5, longitude: -0.12, area: ['centre'] })

  const grid = (page: Page) => page.getByTestId('pokemon-grid')
  const search = (page: Page) => page.getByRole('searchbox', { name: 'Search pokémon' })
  const shownNames = async (page: Page) => (await grid(page).getByRole('button').evaluateAll((buttons) => buttons.map((b) => b.querySelector('img')?.getAttribute('alt') ?? ''))).sort()
  const marked = async (page: Page) => await grid(page).locator('mark').allTextContents()

  for (const [size, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
    t.test(`a misspelt name finds the pokemon with its letters marked; forms found under either switch (${size})`, async (t) => {
      const page = await env.signIn(t, human(), '/harness/index.html', viewport)
      await grid(page).getByRole('button', { name: 'Pikachu', exact: true }).waitFor()

      await search(page).fill('pikchu')
      t.same(await shownNames(page), ['Pikachu'], 'a letter left out')
      t.same(await marked(page), ['Pik', 'chu'], 'the letters found are marked, the missing one is not')
      await search(page).fill('pikahcu')
      t.same(await shownNames(page), ['Pikachu'], 'two letters swapped')
      await search(page).fill('bulbasuar, magikrap')
      t.same(await shownNames(page), ['Bulbasaur', 'Magikarp'], 'each word of an OR forgiven')
      await search(page).fill('pika')
      t.same(await marked(page), ['Pika'], 'a word as written marks its run')
      await search(page).fill('grass')
      t.same(await shownNames(page), ['Bulbasaur', 'Ivysaur', 'Venusaur'], 'a word that finds something as written is not stretched')
      await search(page).fill('zzzzzz')
      await page.getByText('No pokémon match').waitFor()

      const allForms = page.getByRole('switch', { name: 'All forms' })
      t.ok(await allForms.isChecked(), 'the grid starts with one tile per species')
      await search(page).fill('armored')
      t.same(await shownNames(page), ['Mewtwo (Armored)'], 'a form name finds the form with "All forms" on')
      t.same(await marked(page), ['Armored'])
      await search(page).fill('mewtwo')
      t.same(await shownNames(page), ['Mewtwo'], 'a species found is not repeated by its forms')
      await allForms.uncheck()
      await search(page).fill('armored')
      t.same(await shownNames(page), ['Mewtwo (Armored)'], 'and with it off')

      // Filters in force stay in sight as chips with the panel closed, and each goes on its own.
      await search(page).fill('')
      await allForms.check()
      const filters = page.getByRole('button', { name: /^Filters/ })
      await filters.click()
      await page.getByRole('checkbox', { name: 'Water' }).check()
      await page.getByRole('checkbox', { name: 'Gen 1' }).check()
      await filters.click()
      const chips = page.getByRole('list', { name: 'Filters in force' })
      t.same(await chips.getByRole('listitem').allTextContents(), ['Gen 1✕', 'Water✕'], 'both filters shown as chips')
      t.same(await shownNames(page), ['Magikarp', 'Squirtle'])
      await chips.getByRole('button', { name: 'Remove the filter Water' }).click()
      t.same(await chips.getByRole('listitem').allTextContents(), ['Gen 1✕'], 'one chip removed')
      t.ok((await shownNames(page)).includes('Pikachu'), 'the type filter is gone from the grid')
      await filters.click()
      t.notOk(await page.getByRole('checkbox', { name: 'Water' }).isChecked(), 'and from the panel')
      await filters.click()

      await search(page).fill('pikchu')
      t.same(await axeViolations(page), [], 'axe-core finds nothing with marks in the grid and a filter chip')
      if (process.env.SCREENSHOT_DIR !== undefined) await page.screenshot({ path: `${process.env.SCREENSHOT_DIR}/picker-search-${size}.png`, fullPage: true })
    })
  }
}
