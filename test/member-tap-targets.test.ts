import t from 'tap'
import type { Page } from 'playwright-core'
import { bearer, seedHuman } from './helper.js'
import { browserMissing, PHONE, startBrowserApp, testContext } from './browser.js'

/**
 * Every page of the signed-in client on a 360-px phone, each opened by its address (a reload or a shared
 * link loads only that page's chunk and styles): every control a finger uses is at least 44 × 44 px,
 * the first thing under the page heading sits one page gap below it (an empty live region adds none), and
 * empty states carry no padding of their own.
 */
const ADMIN = '333333333333333333'
const PAGES = ['/', '/profiles', '/preferences', '/location', '/areas', '/geofences', '/quick-picks', '/shared', '/shared/mine', '/my-webhooks', '/why',
  '/alarms/monsters', '/alarms/raids', '/alarms/eggs', '/alarms/quests', '/alarms/invasions', '/alarms/lures', '/alarms/nests',
  '/alarms/gyms', '/alarms/fort-changes', '/alarms/maxbattles',
  '/admin/users', '/admin/webhooks', '/admin/geofences', '/admin/sign-in', '/admin/settings']

/**
 * Evaluated in the page as a string: the build that runs the tests names inner functions with a helper
 * the page does not have. Checkboxes and radios count with their label, which is what a finger taps;
 * links inside running text are exempt (WCAG 2.5.8), as is the skip link until it is focused.
 */
const MEASURE = `(() => {
  const small = []
  for (const el of document.querySelectorAll('a, button, input, select, textarea, summary, [role=button], [role=tab], [role=switch]')) {
    let box = el.getBoundingClientRect()
    const style = getComputedStyle(el)
    if (box.width === 0 || box.height === 0 || style.visibility === 'hidden' || box.bottom < 0) continue
    if (el.tagName === 'A' && style.display === 'inline' && el.closest('p, li, dd') !== null) continue
    if (el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio') && el.closest('label') !== null) box = el.closest('label').getBoundingClientRect()
    if (box.width < 43.5 || box.height < 43.5) {
      const name = (el.getAttribute('aria-label') || el.textContent || el.getAttribute('name') || el.id || el.type || '').trim().slice(0, 40)
      small.push(el.tagName.toLowerCase() + ' "' + name + '" ' + Math.round(box.width) + 'x' + Math.round(box.height))
    }
  }
  const h1 = document.querySelector('main h1')
  let headingGap = null
  let pageGap = null
  if (h1 !== null && h1.parentElement !== null) {
    pageGap = parseFloat(getComputedStyle(h1.parentElement).rowGap) || 0
    let next = h1.nextElementSibling
    while (next !== null && (next.getBoundingClientRect().height === 0 || getComputedStyle(next).position === 'absolute')) next = next.nextElementSibling
    if (next !== null) headingGap = Math.round(next.getBoundingClientRect().top - h1.getBoundingClientRect().bottom)
  }
  // Empty states and intros are muted paragraphs spaced by the page's gap alone, the same on every page.
  const padded = [...document.querySelectorAll('main p.muted')].filter((p) => {
    const style = getComputedStyle(p)
    return parseFloat(style.paddingTop) > 0 || parseFloat(style.paddingBottom) > 0
  }).map((p) => p.textContent.trim().slice(0, 40))
  return { small, headingGap, pageGap, padded }
})()`

interface Measured { small: string[], headingGap: number | null, pageGap: number | null, padded: string[] }

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await tapTargetTests()

async function tapTargetTests (): Promise<void> {
  // One browser walks 23 pages of a whole site on a busy two-core machine.
  t.setTimeout(300_000)
  const env = await startBrowserApp(t)
  const { app } = env.testApp
  await seedHuman(env.testApp, { id: ADMIN, name: 'Alice', latitude: 51.5, longitude: -0.12, area: [] })
  const auth = bearer(app, { userId: ADMIN, isAdmin: true })
  await app.inject({ method: 'POST', url: '/api/monsters', headers: auth, payload: { pokemon_id: 25, min_iv: 90, distance: 1500 } })
  await app.inject({ method: 'POST', url: '/api/raids', headers: auth, payload: { level: 5 } })

  const open = async (): Promise<Page> => {
    const context = await testContext(env.browser, { baseURL: env.base, viewport: PHONE })
    t.teardown(async () => { await context.close() })
    const page = await context.newPage()
    await page.goto('/login?loggedout=1')
    await page.evaluate((value) => { localStorage.setItem('aw.token', value); localStorage.setItem('aw.signIn', 'discord') }, auth.authorization.slice('Bearer '.length))
    return page
  }

  t.test('every control of every page is a 44-px target on a phone, and each page starts one gap under its heading', async (t) => {
    const page = await open()
    for (const path of PAGES) {
      await page.goto(path)
      await page.locator('main h1').first().waitFor()
      await page.waitForFunction(() => document.querySelector('.spinner') === null)
      t.not(await page.locator('main h1').first().textContent(), 'Page not found', `${path} is a page of an admin`)
      const measured = await page.evaluate(MEASURE) as Measured
      t.same(measured.small, [], `${path}: no control under 44 × 44 px`)
      t.same(measured.padded, [], `${path}: no muted text (an empty state, an intro) has padding of its own`)
      t.ok(measured.headingGap !== null && measured.pageGap !== null && measured.headingGap <= measured.pageGap + 1,
        `${path}: the content starts ${String(measured.headingGap)} px under the heading (page gap ${String(measured.pageGap)} px)`)
    }
  })

  t.test('the login page\'s controls are 44-px targets on a phone', async (t) => {
    const page = await open()
    await page.evaluate(() => { localStorage.clear() })
    await page.goto('/login?loggedout=1')
    await page.locator('h1').first().waitFor()
    t.same((await page.evaluate(MEASURE) as Measured).small, [], 'no control under 44 × 44 px')
  })
}
