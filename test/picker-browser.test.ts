import { fileURLToPath } from 'node:url'
import t from 'tap'
import type { Page } from 'playwright-core'
import { axeViolations, browserMissing, DESKTOP, PHONE, startBrowserApp } from './browser.js'
import { imagesAllDrawn, startUiconsFake } from './fakes/uicons.js'
import { buildPickerHarness } from './fixtures/picker-harness/build.js'

/**
 * The pokemon grid in Chromium against the whole service, its engine fake and a UICONS set served like a
 * static host: tiles, the search language, filters, select-visible, forms, keyboard, icons through
 * index.json with the fallback chain, on a phone and a desktop.
 */
const SCREENSHOTS = fileURLToPath(new URL('../docs/screenshots/', import.meta.url))

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await pickerTests()

async function pickerTests (): Promise<void> {
  const icons = await startUiconsFake()
  t.teardown(() => icons.close())
  const harness = await buildPickerHarness()
  // Icons on plain http are allowed by the CSP only from the map tile origin: the set lives there, as on a
  // private network that serves its own tiles and icons.
  const env = await startBrowserApp(t, { env: { UICONS_URL: icons.base, MAP_TILE_URL: `${icons.origin}/tiles/{z}/{x}/{y}.png` }, routes: harness })
  let nextUser = 3000
  const human = () => ({ id: String(++nextUser), name: `member${nextUser}`, latitude: 51.5, longitude: -0.12, area: ['centre'] })

  const grid = (page: Page) => page.getByTestId('pokemon-grid')
  const tile = (page: Page, name: string) => grid(page).getByRole('button', { name, exact: true })
  const chosen = async (page: Page, what = 'pokemon') => (await page.getByTestId(`chosen-${what}`).textContent()) ?? ''
  const search = (page: Page) => page.getByRole('searchbox', { name: 'Search pokémon' })
  const shownNames = async (page: Page) => (await grid(page).getByRole('button').evaluateAll((buttons) => buttons.map((b) => b.querySelector('img,[role=img]')?.getAttribute('alt') ?? b.querySelector('[role=img]')?.getAttribute('aria-label') ?? ''))).sort()

  t.test('pokemon by tile, search language, filters and select-visible on a phone', async (t) => {
    const page = await env.signIn(t, human(), '/harness/index.html?kinds=maxLevel', PHONE)
    await tile(page, 'Pikachu').waitFor()
    t.equal(await page.getByRole('status').filter({ hasText: 'Showing' }).textContent(), 'Showing 9 / 9')
    t.equal(await tile(page, 'Pikachu').evaluate((b) => getComputedStyle(b.parentElement as HTMLElement).gridTemplateColumns.split(' ').length), 3, 'three columns on a phone')

    await tile(page, 'Pikachu').click()
    await tile(page, 'Squirtle').click()
    t.equal(await tile(page, 'Pikachu').getAttribute('aria-pressed'), 'true')
    t.equal(await chosen(page), '25-0,7-0')
    await page.getByRole('button', { name: 'Remove Squirtle' }).click()
    t.equal(await chosen(page), '25-0', 'a chip removes its pokemon')

    await search(page).fill('pika, magi')
    t.same(await shownNames(page), ['Magikarp', 'Pikachu'], ', is OR')
    await search(page).fill('grass & gen1')
    t.same(await shownNames(page), ['Bulbasaur', 'Ivysaur', 'Venusaur'], '& is AND over type and generation')
    await search(page).fill('+ivy')
    t.same(await shownNames(page), ['Bulbasaur', 'Ivysaur', 'Venusaur'], '+ is the evolution family')
    await search(page).fill('150')
    t.same(await shownNames(page), ['Mewtwo'], 'a number is the dex number')

    await page.getByRole('button', { name: 'Reset' }).click()
    await page.getByRole('button', { name: /^Filters/ }).click()
    await page.getByRole('checkbox', { name: 'Water' }).check()
    t.same(await shownNames(page), ['Magikarp', 'Squirtle'])
    await page.getByText('Showing 2 / 9').waitFor()
    await page.getByRole('button', { name: 'Select all 2 shown', exact: true }).click()
    t.equal(await chosen(page), '25-0,7-0,129-0', 'every visible tile, once')
    await page.getByRole('checkbox', { name: 'Water' }).uncheck()
    await page.getByRole('checkbox', { name: 'Selected only' }).check()
    t.same(await shownNames(page), ['Magikarp', 'Pikachu', 'Squirtle'])
    await page.getByRole('button', { name: 'Deselect all 3 shown', exact: true }).click()
    t.equal(await chosen(page), '')
    await page.getByRole('button', { name: 'Reset' }).click()

    await page.getByRole('button', { name: /^Everything/ }).click()
    t.equal(await chosen(page), '0-0', 'everything is a choice of its own')

    await page.getByRole('switch', { name: 'All forms' }).uncheck()
    await tile(page, 'Mewtwo (Armored)').click()
    t.match(await chosen(page), /150-135/)
    const armored = await tile(page, 'Mewtwo (Armored)').locator('img').getAttribute('src')
    t.equal(armored, `${icons.base}/pokemon/150_f135.png`, 'a form the set has: its own sprite')
    t.equal(await tile(page, 'Unown (A)').locator('img').getAttribute('src'), `${icons.base}/pokemon/201.png`, 'a form the set lacks: the base sprite')

    // Keyboard: arrows move between tiles, space toggles.
    await search(page).fill('gen1 & grass')
    await tile(page, 'Bulbasaur').focus()
    await page.keyboard.press('ArrowRight')
    t.equal(await page.evaluate(() => document.activeElement?.querySelector('img')?.getAttribute('alt')), 'Ivysaur')
    await page.keyboard.press('Space')
    t.match(await chosen(page), /2-0/)

    await search(page).fill('')
    t.ok(await imagesAllDrawn(t, page, icons) > 5)
    t.same(await axeViolations(page), [], 'axe-core finds nothing')
    await page.getByRole('button', { name: /^Filters/ }).click()
    if (process.env.SCREENSHOTS === '1') await page.screenshot({ path: `${SCREENSHOTS}picker-pokemon-phone-light.png`, fullPage: true })
  })

  t.test('more columns on a desktop', async (t) => {
    const page = await env.signIn(t, human(), '/harness/index.html', DESKTOP)
    await tile(page, 'Pikachu').waitFor()
    t.ok(await tile(page, 'Pikachu').evaluate((b) => getComputedStyle(b.parentElement as HTMLElement).gridTemplateColumns.split(' ').length) >= 6)
    t.same(await axeViolations(page), [])
  })

  for (const [size, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
    t.test(`"one alarm for every pokémon" is offered only when every pokémon is chosen, on a ${size}`, async (t) => {
      const page = await env.signIn(t, human(), '/harness/index.html', viewport)
      const offer = page.getByTestId('everything-offer')
      await tile(page, 'Pikachu').waitFor()
      await search(page).fill('+ivy')
      await page.getByRole('button', { name: 'Select all 3 shown', exact: true }).click()
      t.equal(await chosen(page), '1-0,2-0,3-0')
      t.equal(await offer.count(), 0, 'never for a family')
      await page.getByRole('button', { name: 'Reset' }).click()
      await page.getByRole('button', { name: /^Filters/ }).click()
      await page.getByRole('checkbox', { name: 'Gen 1' }).check()
      await page.getByRole('button', { name: /^Select all \d+ shown$/ }).click()
      t.equal(await offer.count(), 0, 'not when a filter narrows the pokémon chosen')
      await page.getByRole('checkbox', { name: 'Gen 1' }).uncheck()
      await page.getByRole('button', { name: 'Select all 9 shown', exact: true }).click()
      await offer.waitFor()
      t.same(await axeViolations(page), [], 'axe-clean with the offer shown')
      await tile(page, 'Pikachu').click()
      t.equal(await offer.count(), 0, 'gone once one pokémon is left out')
      await tile(page, 'Pikachu').click()
      await offer.getByRole('button', { name: 'Use one alarm for every pokémon' }).click()
      t.equal(await chosen(page), '0-0', 'the offer replaces the nine with every pokémon')
      t.equal(await offer.count(), 0)
    })
  }
}
