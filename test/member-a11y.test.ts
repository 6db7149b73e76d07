import t from 'tap'
import { bearer } from './helper.js'
import { axeViolations, browserMissing, DESKTOP, PHONE, startBrowserApp } from './browser.js'

/** axe-core (WCAG 2.1 A and AA) on every member page and every alarm form, at phone and desktop width. */
const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await accessibilityTests()

async function accessibilityTests (): Promise<void> {
  const env = await startBrowserApp(t)
  const { app } = env.testApp
  // A member with no location and no areas yet: the dashboard's first steps and the 0,0 warning show too.
  const user = { id: '2001', name: 'member2001', latitude: 0, longitude: 0, area: [] }

  t.test('every member page passes axe-core, on a phone and on a desktop', async (t) => {
    const auth = bearer(app, { userId: user.id })
    const page = await env.signIn(t, user, '/')
    await app.inject({ method: 'POST', url: '/api/monsters', headers: auth, payload: { pokemon_id: 25, min_iv: 90, distance: 1500 } })
    await app.inject({ method: 'POST', url: '/api/raids', headers: auth, payload: { level: 5 } })
    const paths = ['/', '/profiles', '/preferences', '/alarms/monsters', '/alarms/raids', '/alarms/eggs', '/alarms/quests', '/alarms/invasions',
      '/alarms/lures', '/alarms/nests', '/alarms/gyms', '/alarms/fort-changes', '/alarms/maxbattles']
    for (const viewport of [PHONE, DESKTOP]) {
      await page.setViewportSize(viewport)
      for (const path of paths) {
        await page.goto(path)
        await page.locator('h1').first().waitFor()
        await page.waitForFunction(() => document.querySelector('.spinner') === null)
        t.same(await axeViolations(page), [], `${path} at ${viewport.width} px`)
        // A card section (client/src/components/Card.tsx) is named by its own h2, however its id came about.
        const misnamedCards = await page.evaluate(() => [...document.querySelectorAll('section.card')]
          .filter((card) => {
            const heading = document.getElementById(card.getAttribute('aria-labelledby') ?? '')
            return heading?.tagName !== 'H2' || heading.closest('section') !== card
          })
          .map((card) => card.outerHTML.slice(0, 120)))
        t.same(misnamedCards, [], `${path}: every card section is named by its own heading`)
        // Every alarm form at phone width; at desktop width (the same markup, wider) the pokemon form.
        if (path.startsWith('/alarms/') && (viewport === PHONE || path === '/alarms/monsters')) {
          await page.getByRole('button', { name: 'Add alarm' }).click()
          await page.locator('.alarm-form').waitFor()
          await page.locator('details.more summary').first().click()
          t.same(await axeViolations(page), [], `${path} form at ${viewport.width} px`)
        }
      }
      t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `no sideways scrolling at ${viewport.width} px`)
    }
  })
  t.test('with the engine down, the signed-in site says so in a page of its own, passes axe-core and recovers on Try again', async (t) => {
    const page = await env.signIn(t, { ...user, seeded: true }, '/', PHONE)
    await page.locator('h1').first().waitFor()
    env.testApp.engine.failWith({ drop: true, times: 1000 })
    await page.goto('/alarms/monsters')
    await page.getByRole('heading', { level: 1, name: 'Your alarms are out of reach for a moment' }).waitFor()
    t.ok(await page.getByText('Nothing you set up is lost').isVisible(), 'the page explains the outage in the reader\'s words')
    t.ok(await page.getByRole('button', { name: 'Sign out' }).isVisible(), 'signing out stays possible')
    t.same(await axeViolations(page), [], 'the outage page passes axe-core')
    env.testApp.engine.reset()
    await page.getByRole('button', { name: 'Try again' }).click()
    await page.getByRole('heading', { level: 1, name: 'Pokémon' }).waitFor()
    t.pass('Try again brings the page back once the engine answers')
  })
}
