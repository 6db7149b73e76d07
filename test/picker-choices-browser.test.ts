import { fileURLToPath } from 'node:url'
import t from 'tap'
import type { Page } from 'playwright-core'
import { eq } from 'drizzle-orm'
import { siteSettings } from '../db/schema/service.js'
import { axeViolations, browserMissing, PHONE, startBrowserApp } from './browser.js'
import { imagesAllDrawn, startUiconsFake } from './fakes/uicons.js'
import { buildPickerHarness } from './fixtures/picker-harness/build.js'

/**
 * The choice grids in Chromium against the whole service, its engine fake and a UICONS set served like a
 * static host: max battle levels, grunts with leaders and PokéStop events, icons through index.json with
 * the fallback chain, placeholders for a set that cannot be read, and the alarm form using them.
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
  const { app } = env.testApp
  let nextUser = 3000
  const human = () => ({ id: String(++nextUser), name: `member${nextUser}`, latitude: 51.5, longitude: -0.12, area: ['centre'] })

  const chosen = async (page: Page, what = 'pokemon') => (await page.getByTestId(`chosen-${what}`).textContent()) ?? ''

  t.test('max battle levels, grunts with leaders, Giovanni and PokéStop events, lures and teams with icons', async (t) => {
    const page = await env.signIn(t, human(), '/harness/index.html?kinds=maxLevel,raidLevel,grunt,lure,team,item,reward', PHONE)
    const group = (kind: string) => page.getByRole('group', { name: `Choose ${kind}` })
    await group('grunt').getByRole('button', { name: 'Giovanni' }).waitFor()
    const maxLevels = await group('maxLevel').getByRole('button').evaluateAll((bs) => bs.map((b) => b.querySelector('[role=img]')?.getAttribute('aria-label') ?? ''))
    t.same(maxLevels, ['Any level', '1-Star Max Battle', '2-Star Max Battle', '3-Star Max Battle', '4-Star Max Battle', 'Legendary Max Battle', 'Gigantamax Battle', 'Legendary Gigantamax Battle'])
    t.notOk((await group('maxLevel').textContent())?.includes('9000'), 'never the raw 9000')
    t.notOk((await group('maxLevel').textContent())?.includes('Raid'), 'no raid levels')
    await group('maxLevel').getByRole('button', { name: 'Any level' }).click()
    await group('maxLevel').getByRole('button', { name: 'Gigantamax Battle', exact: true }).click()
    t.equal(await chosen(page, 'maxLevel'), '7', 'a particular level drops "any level"')
    await group('maxLevel').getByRole('button', { name: '1-Star Max Battle', exact: true }).click()
    t.equal(await chosen(page, 'maxLevel'), '7,1')
    await group('maxLevel').getByRole('button', { name: 'Any level' }).click()
    t.equal(await chosen(page, 'maxLevel'), '9000', '"any level" drops the particular ones')
    await group('maxLevel').getByRole('button', { name: 'Gigantamax Battle', exact: true }).click()

    for (const name of ['Cliff', 'Arlo', 'Sierra', 'Giovanni']) await group('grunt').getByRole('button', { name, exact: true }).click()
    for (const name of ['Kecleon', 'Gold PokéStop', 'Showcase', 'Fire']) await group('grunt').getByRole('button', { name, exact: true }).click()
    t.equal(await chosen(page, 'grunt'), 'cliff,arlo,sierra,giovanni,kecleon,gold-stop,showcase,fire', 'the grunt_type strings the engine stores')
    const src = async (kind: string, name: string) => await group(kind).getByRole('button', { name, exact: true }).locator('img').getAttribute('src')
    t.equal(await src('grunt', 'Giovanni'), `${icons.base}/invasion/44.png`)
    t.equal(await src('grunt', 'Gold PokéStop'), `${icons.base}/pokestop/0_i7.png`, 'the gold display type')
    t.equal(await src('grunt', 'Showcase'), `${icons.base}/misc/showcase.png`)
    t.equal(await src('grunt', 'Kecleon'), `${icons.base}/pokemon/0.png`, 'a pokemon the set lacks: its "?" icon')
    t.equal(await src('grunt', 'Fire'), `${icons.base}/invasion/18.png`, 'a typed grunt: a grunt portrait of that type')
    t.equal(await src('lure', 'Glacial lure'), `${icons.base}/pokestop/502.png`)
    t.equal(await src('team', 'Valor (red)'), `${icons.base}/team/2.png`)
    t.equal(await src('raidLevel', '5-Star Raid'), `${icons.base}/raid/egg/5_h.png`, 'a hatched egg the set has')
    t.equal(await src('raidLevel', '3-Star Raid'), `${icons.base}/raid/egg/3.png`, 'not hatched in the set: the egg')
    t.equal(await src('item', 'Rare Candy'), `${icons.base}/reward/item/1301.png`)
    await group('item').getByRole('button', { name: 'Rare Candy' }).click()
    await group('item').getByRole('button', { name: 'Poké Ball', exact: true }).click()
    t.equal(await chosen(page, 'item'), '1301,1', 'several items at once')
    const placeholder = group('maxLevel').getByRole('img', { name: 'Gigantamax Battle', exact: true })
    t.equal(await placeholder.textContent(), 'G1', 'no icon in the standard: a named placeholder')

    t.ok(await imagesAllDrawn(t, page, icons) > 10)
    t.same(await axeViolations(page), [])
    if (process.env.SCREENSHOTS === '1') await page.screenshot({ path: `${SCREENSHOTS}picker-choices-phone-light.png`, fullPage: true })
  })

  t.test('a category whose set cannot be read: placeholders with text, no broken image', async (t) => {
    await app.db.db.insert(siteSettings).values({ key: 'uicons_type', value: `${icons.origin}/missing` }).onDuplicateKeyUpdate({ set: { value: `${icons.origin}/missing` } })
    env.testApp.clock.advance(6 * 60_000)
    t.teardown(async () => { await app.db.db.delete(siteSettings).where(eq(siteSettings.key, 'uicons_type')) })
    const page = await env.signIn(t, human(), '/harness/index.html', PHONE)
    await page.getByRole('button', { name: /^Filters/ }).click()
    await page.getByRole('img', { name: 'Water' }).waitFor()
    t.equal(await page.getByRole('img', { name: 'Water' }).evaluate((e) => e.tagName), 'SPAN', 'a placeholder, not an img')
    t.equal(await page.getByRole('img', { name: 'Water' }).textContent(), 'W')
    t.ok(await imagesAllDrawn(t, page, icons) > 0)
  })

  t.test('the alarm form: a max battle by Gigantamax level, Giovanni as an invasion', async (t) => {
    const user = human()
    const page = await env.signIn(t, user, '/alarms/maxbattles', PHONE)
    await page.getByRole('button', { name: 'Add alarm' }).click()
    const levels = page.getByRole('group', { name: 'Level', exact: true })
    await levels.getByRole('button', { name: 'Any level' }).waitFor()
    t.equal(await levels.getByRole('button', { name: 'Any level' }).getAttribute('aria-pressed'), 'true', 'the engine\'s 9000, by name')
    await levels.getByRole('button', { name: 'Gigantamax Battle', exact: true }).click()
    await page.getByRole('button', { name: 'Create 1 alarm', exact: true }).click()
    await page.locator('.alarm-card', { hasText: 'Gigantamax Battle' }).waitFor()
    t.match(await env.rows('maxbattle', user.id), [{ pokemon_id: 9000, level: 7 }])

    await page.goto('/alarms/invasions')
    await page.getByRole('button', { name: 'Add alarm' }).click()
    await page.getByRole('button', { name: 'Giovanni', exact: true }).click()
    await page.getByRole('button', { name: 'Create 1 alarm', exact: true }).click()
    await page.locator('.alarm-card', { hasText: 'Giovanni' }).waitFor()
    t.match(await env.rows('invasion', user.id), [{ grunt_type: 'giovanni' }])
    t.same(await axeViolations(page), [])
  })
}
