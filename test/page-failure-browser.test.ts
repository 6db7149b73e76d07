import t from 'tap'
import { axeViolations, browserMissing, startBrowserApp } from './browser.js'

/**
 * A page whose code cannot be downloaded (the connection dropped, or the site was updated and the old
 * files are gone) says so and offers to reload, inside the frame, whose navigation still works; when the
 * frame itself cannot be drawn, the whole screen says it. Never a blank screen.
 */
const PHONE = { width: 360, height: 740 }
const FAILED = 'This page could not be loaded. Check your connection, then reload.'

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await failureTests()

async function failureTests (): Promise<void> {
  const env = await startBrowserApp(t)

  t.test('a page whose code does not arrive: an alert with Reload, the rest of the site still reachable', async (t) => {
    const page = await env.signIn(t, { id: '4101', name: 'member4101', latitude: 51.5, longitude: -0.12, area: ['centre'] }, '/', PHONE)
    await page.getByRole('heading', { level: 1 }).first().waitFor()
    const chunk = /\/assets\/Preferences-[\w-]+\.js$/
    await page.route(chunk, async (route) => { await route.abort('internetdisconnected') })
    await page.getByRole('button', { name: 'Menu', exact: true }).click()
    await page.getByRole('link', { name: 'Delivery settings' }).click()
    const alert = page.getByRole('alert').filter({ hasText: FAILED })
    await alert.waitFor()
    t.equal(await alert.getByRole('button', { name: 'Reload' }).count(), 1, 'offers to reload')
    t.same(await axeViolations(page), [], 'axe: the failed page')

    // Another page draws as usual: the failure stays with the page it happened on.
    await page.getByRole('button', { name: 'Menu', exact: true }).click()
    await page.getByRole('link', { name: 'Location' }).click()
    await page.getByRole('heading', { name: 'Location', level: 1 }).waitFor()
    t.equal(await page.getByText(FAILED).count(), 0, 'the alert is gone on the next page')

    // Once the file can be had, Reload brings the page.
    await page.unroute(chunk)
    await page.goBack()
    await alert.waitFor()
    await alert.getByRole('button', { name: 'Reload' }).click()
    await page.getByRole('heading', { name: 'Delivery settings', level: 1 }).waitFor()
    t.pass('the page after Reload')
  })

  t.test('the signed-in frame\'s words do not arrive: the whole screen says so, in the sign-in path\'s words', async (t) => {
    const page = await env.signIn(t, { id: '4102', name: 'member4102', latitude: 51.5, longitude: -0.12, area: ['centre'] }, '/login?loggedout=1', PHONE)
    await page.route(/\/assets\/en-[\w-]+\.js$/, async (route) => { await route.abort('internetdisconnected') })
    await page.goto('/')
    const alert = page.getByRole('alert').filter({ hasText: FAILED })
    await alert.waitFor()
    t.equal(await alert.getByRole('button', { name: 'Reload' }).count(), 1)
    t.same(await axeViolations(page), [], 'axe: the failed frame')
  })
}
