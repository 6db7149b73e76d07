import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import type { Page } from 'playwright-core'
import { DESKTOP, PHONE, axeViolations, browserMissing, launchChromium, testContext } from './browser.js'
import { bearer, build, seedHuman, type Test } from './helper.js'
import { startKojiFake } from './fakes/koji.js'

/**
 * Geofence review in Debian's Chromium: the admin approves a member's fence under a public name, a
 * region and a group (Koji receives the reference's save-koji feature with that parent), rejects another
 * with a reason the member then reads, and deletes one from the all-fences view. axe-core at 360 px.
 */
const ADMIN = '222222222222222222'
const MEMBER = '111111111111111111'

t.setTimeout(300_000)

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await browserTests()

async function browserTests (): Promise<void> {
  const koji = await startKojiFake({
    fences: [
      { id: 1, name: 'Town', projects: ['poracle'], path: [[51, 7], [51, 7.2], [51.2, 7.2]] },
      { id: 2, name: 'north', displayName: 'The North', projects: [], path: [[50, 0], [50, 3], [53, 3], [53, 0]] },
      { id: 3, name: 'child', parent: 2, projects: ['poracle'], path: [[50, 0], [50, 0.5], [50.5, 0.5]] }
    ]
  })
  t.teardown(() => koji.close())
  const testApp = await build(t, { env: { KOJI_API_ADDRESS: koji.url, KOJI_BEARER_TOKEN: koji.token, KOJI_PROJECT_NAME: 'poracle', KOJI_PROJECT_ID: '1' } })
  const { app } = testApp
  testApp.engine.set({ fences: [{ name: 'Town', path: [[51, 7], [51, 7.2], [51.2, 7.2]] }] })
  await seedHuman(testApp, { id: ADMIN, name: 'Alice' })
  await seedHuman(testApp, { id: MEMBER, name: 'Bob' })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const browser = await launchChromium()
  t.teardown(async () => { await browser.close() })
  const member = bearer(app, { userId: MEMBER })
  const fence = async (displayName: string, shift: number): Promise<number> => {
    const res = await app.inject({ method: 'POST', url: '/api/geofences/custom', headers: member, payload: { displayName, polygon: [[52, 1 + shift], [52, 1.1 + shift], [52.1, 1.1 + shift]] } })
    if (res.statusCode !== 201) throw new Error(`create: ${res.statusCode} ${res.body}`)
    const id = (res.json() as { id: number }).id
    const submitted = await app.inject({ method: 'POST', url: `/api/geofences/custom/${id}/submit`, headers: member })
    if (submitted.statusCode !== 200) throw new Error(`submit: ${submitted.statusCode} ${submitted.body}`)
    return id
  }
  await fence('Park', 0)
  await fence('Lake', 0.5)
  const screenshots = process.env.SCREENSHOTS === '1' ? fileURLToPath(new URL('../docs/screenshots/', import.meta.url)) : undefined

  async function open (test: Test, viewport = PHONE): Promise<Page> {
    const context = await testContext(browser, { baseURL: base, viewport })
    test.teardown(async () => { await context.close() })
    const page = await context.newPage()
    const token = bearer(app, { userId: ADMIN, isAdmin: true }).authorization.slice('Bearer '.length)
    await page.goto('/login?loggedout=1')
    await page.evaluate((value) => { localStorage.setItem('aw.token', value); localStorage.setItem('aw.signIn', 'discord') }, token)
    return page
  }

  t.test('approve with a public name, region and group; reject with a reason the member sees', async (t) => {
    const page = await open(t)
    await page.goto('/admin/geofences')
    const name = page.getByLabel('Public name')
    await name.waitFor()
    t.same(await axeViolations(page), [], 'the review page passes axe at 360 px')
    t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'fits 360 px')
    if (screenshots !== undefined) {
      await page.screenshot({ path: `${screenshots}admin-geofence-review-phone-light.png`, fullPage: true })
      await page.setViewportSize(DESKTOP)
      await page.screenshot({ path: `${screenshots}admin-geofence-review-desktop-light.png`, fullPage: true })
      await page.setViewportSize(PHONE)
    }
    await name.fill('Park <script>')
    await page.getByRole('button', { name: 'Approve Park' }).click()
    await page.getByText('Use 1 to 50 letters, digits, spaces or').waitFor()
    t.equal(koji.saves.length, 0, 'a name the server would refuse is said at the field first')
    await name.fill('Riverside Park')
    await page.getByLabel('Region').selectOption({ label: 'The North' })
    await page.getByLabel('Group').fill('Parks')
    await page.getByRole('button', { name: 'Approve Park' }).click()
    await page.getByText('Riverside Park is approved and is now an area for everyone.').waitFor()
    const saved = koji.saves.at(-1) as { area: { features: Array<{ properties: Record<string, unknown> }> } }
    t.match(saved.area.features[0]?.properties, { __name: 'riverside park', __parent: 2, __projects: [1], name: 'Riverside Park', group: 'Parks', parent: 2, userSelectable: true, displayInMatches: true }, 'Koji got the reference\'s save with the region as parent')

    await page.getByLabel('Reason for rejecting (shown to the member)').fill('Overlaps the Town area.')
    await page.getByRole('button', { name: 'Reject Lake' }).click()
    await page.getByText('Lake is rejected; the member sees your reason.').waitFor()
    const mine = (await app.inject({ method: 'GET', url: '/api/geofences/custom', headers: member })).json() as Array<{ displayName: string, status: string, reviewNotes: string | null }>
    t.match(mine.find((f) => f.displayName === 'Lake'), { status: 'rejected', reviewNotes: 'Overlaps the Town area.' })
  })

  t.test('all geofences on one map; the admin deletes one', async (t) => {
    const page = await open(t, DESKTOP)
    await page.goto('/admin/geofences')
    await page.getByRole('radio', { name: 'All geofences' }).check()
    await page.getByRole('button', { name: 'Delete Lake' }).waitFor()
    // The list comes before the map has drawn its shapes: counting at once raced the drawing.
    await page.locator('.leaflet-interactive').nth(1).waitFor()
    t.equal(await page.locator('.leaflet-interactive').count(), 2, 'both fences drawn')
    await page.getByRole('button', { name: 'Delete Lake' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Delete geofence' }).click()
    await page.getByText('Lake is deleted.').waitFor()
    const mine = (await app.inject({ method: 'GET', url: '/api/geofences/custom', headers: member })).json() as Array<{ displayName: string }>
    t.same(mine.map((f) => f.displayName), ['Park'], 'gone for the member too')
    const phone = await open(t)
    await phone.goto('/admin/geofences')
    await phone.getByRole('radio', { name: 'All geofences' }).check()
    await phone.getByRole('button', { name: /Delete Park/ }).waitFor()
    t.same(await axeViolations(phone), [], 'the all-fences view passes axe at 360 px')
  })
}
