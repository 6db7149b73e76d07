import t from 'tap'
import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { DESKTOP, PHONE, axeViolations, browserMissing, startBrowserApp, testContext } from './browser.js'
import { bearer, seedHuman } from './helper.js'
import { insertAlarm } from './fakes/engine-db.js'

/**
 * Shared alarm sets in Chromium against the whole service and the engine fake: a member shares two raid
 * alarms from the list's selection at 360 px; another member opens the link on a phone and on a desktop,
 * adds the alarms to a profile and undoes it; a signed-out visitor signs in and lands back on the link;
 * the sharer revokes the link from "My shared sets". axe-core checks each page.
 */
const SHARER = '444444444444444401'
const ADMIN = '444444444444444431'
const screenshots = process.env.SCREENSHOTS === '1' ? fileURLToPath(new URL('../docs/screenshots/', import.meta.url)) : null
if (screenshots !== null) mkdirSync(screenshots, { recursive: true })

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await shareTests()

async function shareTests (): Promise<void> {
  const env = await startBrowserApp(t, { env: { PORACLE_ADMIN_IDS: ADMIN } })
  const { app } = env.testApp
  const sharer = { id: SHARER, name: 'Sharon', latitude: 51.5, longitude: -0.12, area: ['centre'] }
  await seedHuman(env.testApp, sharer)
  await insertAlarm(app.engineDb.pool, 'raid', { id: SHARER, level: 5 })
  await insertAlarm(app.engineDb.pool, 'raid', { id: SHARER, level: 6 })
  let link = ''

  t.test('360 px: the sharer selects two raid alarms and makes a link', async (t) => {
    const page = await env.signIn(t, { ...sharer, seeded: true }, '/alarms/raids', PHONE)
    await page.getByRole('button', { name: 'Select', exact: true }).click()
    await page.getByRole('button', { name: /^Select all 2/ }).click()
    await page.getByRole('region', { name: 'Selected alarms' }).getByRole('button', { name: 'Share' }).click()
    const sheet = page.getByRole('dialog')
    await sheet.getByText('A link to a copy of the filters of 2 alarms.').waitFor()
    await sheet.getByRole('textbox', { name: 'Title (optional)' }).fill('Raid night')
    await sheet.getByRole('checkbox', { name: 'Also list it in the community catalogue' }).check()
    t.same(await axeViolations(page), [], 'axe: the share form at 360 px')
    await sheet.getByRole('button', { name: 'Make the link' }).click()
    await sheet.getByText('The link is ready.').waitFor()
    link = await sheet.getByRole('textbox', { name: 'Link' }).inputValue()
    t.match(link, /\/s\/[A-Za-z0-9_-]{22}$/, 'a link to hand on')
    t.same(await axeViolations(page), [], 'axe: the link at 360 px')
    if (screenshots !== null) await page.screenshot({ path: `${screenshots}/share-link-phone.png` })
  })

  for (const [size, viewport, viewer] of [['360 px', PHONE, '444444444444444411'], ['desktop', DESKTOP, '444444444444444412']] as const) {
    t.test(`${size}: a member opens the link, adds the alarms to a profile and undoes it`, async (t) => {
      const page = await env.signIn(t, { id: viewer, name: 'Vic', latitude: 51.5, longitude: -0.12, area: ['centre'] }, new URL(link).pathname, viewport)
      await page.getByRole('heading', { name: 'Raid night', level: 1 }).waitFor()
      await page.getByText(/^Shared by a member/).waitFor()
      t.equal(await page.getByRole('list', { name: '2 alarms of the set' }).getByRole('listitem').count(), 2, 'two cards')
      t.notOk((await page.content()).includes('Sharon'), 'the sharer\'s name is nowhere on the page')
      t.same(await axeViolations(page), [], `axe: the shared set at ${size}`)
      if (screenshots !== null) await page.screenshot({ path: `${screenshots}/shared-set-${size === 'desktop' ? 'desktop' : 'phone'}.png`, fullPage: true })
      await page.getByRole('button', { name: 'Add 2 alarms' }).click()
      await page.getByRole('status').getByText('2 alarms added.').waitFor()
      t.equal((await env.rows('raid', viewer)).length, 2, 'both alarms in the viewer\'s profile')
      await page.getByRole('button', { name: 'Undo' }).click()
      await page.getByRole('status').getByText('The 2 added alarms were removed.').waitFor()
      t.same(await env.rows('raid', viewer), [], 'taken back')
      t.same(await axeViolations(page), [], `axe: after undo at ${size}`)
    })
  }

  t.test('a signed-out visitor signs in and lands back on the link', async (t) => {
    const visitor = '444444444444444421'
    await seedHuman(env.testApp, { id: visitor, name: 'Val' })
    const context = await testContext(env.browser, { baseURL: env.base, viewport: PHONE })
    t.teardown(async () => { await context.close() })
    const page = await context.newPage()
    await page.goto(new URL(link).pathname)
    await page.waitForURL(/\/login/)
    // The provider's return: the tab's binding and a token in the fragment, as a redirect sign-in ends.
    await page.evaluate(() => { sessionStorage.setItem('aw.signInBinding', 'bound') })
    const token = bearer(app, { userId: visitor }).authorization.slice('Bearer '.length)
    await page.goto(`/auth/discord/callback#token=${token}&binding=bound`)
    await page.getByRole('heading', { name: 'Raid night', level: 1 }).waitFor()
    t.equal(new URL(page.url()).pathname, new URL(link).pathname, 'back on the link')
  })

  t.test('360 px: the community catalogue lists the set, searched by type; an administrator promotes it to a quick pick', async (t) => {
    const page = await env.signIn(t, { id: ADMIN, name: 'Ada', isAdmin: true }, '/shared', PHONE)
    await page.getByRole('heading', { name: 'Raid night' }).waitFor()
    t.same(await axeViolations(page), [], 'axe: the catalogue at 360 px')
    if (screenshots !== null) await page.screenshot({ path: `${screenshots}/shared-catalogue-phone.png` })
    await page.getByRole('combobox', { name: 'Alarm type' }).selectOption('invasion')
    await page.getByText('No shared set matches.').waitFor()
    await page.getByRole('combobox', { name: 'Alarm type' }).selectOption('raid')
    await page.getByRole('heading', { name: 'Raid night' }).waitFor()
    await page.getByRole('button', { name: 'Make "Raid night" a quick pick' }).click()
    await page.getByRole('status').getByText('"Raid night" is now a quick pick of this site.').waitFor()
    const [pick] = await app.db.pool.query('SELECT name, category FROM quick_pick_definitions WHERE category = ?', ['Community']) as Array<{ name: string }>
    t.equal(pick?.name, 'Raid night', 'published as a site quick pick')

    await page.getByRole('link', { name: 'Raid night' }).click()
    await page.getByRole('heading', { name: 'Raid night', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'Take "Raid night" down' }).click()
    await page.getByRole('status').getByText('"Raid night" is taken down: its link no longer opens.').waitFor()
    const token = new URL(link).pathname.slice(3)
    t.equal((await app.inject({ url: `/api/shared-sets/${token}`, headers: bearer(app, { userId: SHARER }) })).statusCode, 404, 'the link has ended')
    t.same(await axeViolations(page), [], 'axe: the set page after a take-down')
    t.equal((await app.inject({ method: 'PUT', url: `/api/admin/shared-sets/${token}/hidden`, headers: bearer(app, { userId: ADMIN, isAdmin: true }), payload: { hidden: false } })).statusCode, 204, 'put back')
  })

  t.test('the sharer sees the copies and revokes the link', async (t) => {
    const page = await env.signIn(t, { ...sharer, seeded: true }, '/shared/mine', PHONE)
    await page.getByRole('heading', { name: 'Raid night' }).waitFor()
    await page.getByText(/2 alarms · copied 2 times · ends .* · listed in the catalogue/).waitFor()
    t.same(await axeViolations(page), [], 'axe: my shared sets at 360 px')
    if (screenshots !== null) await page.screenshot({ path: `${screenshots}/my-shared-sets-phone.png` })
    await page.getByRole('button', { name: 'Revoke "Raid night"' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke', exact: true }).click()
    await page.getByRole('status').getByText('"Raid night" is revoked.').waitFor()
    await page.getByText('You have not shared any alarms yet.', { exact: false }).waitFor()
    const token = new URL(link).pathname.slice(3)
    t.equal((await app.inject({ url: `/api/shared-sets/${token}`, headers: bearer(app, { userId: SHARER }) })).statusCode, 404, 'the link has ended')
  })
}
