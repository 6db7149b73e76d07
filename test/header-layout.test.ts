import t from 'tap'
import type { Page } from 'playwright-core'
import { insertProfile } from './fakes/engine-db.js'
import { bearer, seedHuman } from './helper.js'
import { axeViolations, browserMissing, startBrowserApp } from './browser.js'

/**
 * The signed-in top bar at phone and desktop widths: every control of the header (and of its open user
 * menu) lies wholly inside the viewport and is the element a tap at its centre reaches, for a member and
 * for an administrator, with a long user and profile name.
 */
const ADMIN = '300000000000000001'
const MEMBER = '300000000000000002'
const LONG_PROFILE = 'Wochenende am Rheinufer mit der ganzen Familie und Freunden'
const LONG_USER = 'Maximiliane-Theodora von Hohenzollern-Sigmaringen'
const WIDTHS = [320, 360, 768, 1280]
/** Below 48rem the profile switcher and the alerts button live in the user menu. */
const WIDE = 768

interface Placement { what: string, inside: boolean, reachable: boolean, rect: string }

/** Every visible interactive element under `root`, with whether it lies in the viewport and receives a tap at its centre. */
async function placements (page: Page, root: string): Promise<Placement[]> {
  return await page.locator(root).evaluate((element) => {
    const controls = [...element.querySelectorAll<HTMLElement>('a[href], button, select, input, textarea, [tabindex]:not([tabindex="-1"])')]
    return controls.filter((c) => c.getClientRects().length > 0 && getComputedStyle(c).visibility !== 'hidden').map((c) => {
      const r = c.getBoundingClientRect()
      // A radio hidden behind its styled label is tapped through the label.
      const target = c instanceof HTMLInputElement && c.type === 'radio' ? (c.closest('label') ?? c) : c
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)
      return {
        what: `${c.tagName.toLowerCase()} "${(c.getAttribute('aria-label') ?? c.textContent ?? '').trim().slice(0, 40)}"`,
        inside: r.left >= 0 && r.top >= 0 && r.right <= window.innerWidth && r.bottom <= window.innerHeight && r.width > 0 && r.height > 0,
        reachable: hit !== null && (target === hit || target.contains(hit)),
        rect: `${Math.round(r.left)},${Math.round(r.top)} ${Math.round(r.width)}×${Math.round(r.height)} in ${window.innerWidth}`
      }
    })
  })
}

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await headerTests()

async function headerTests (): Promise<void> {
  const env = await startBrowserApp(t, { env: { PORACLE_ADMIN_IDS: ADMIN } })

  for (const [role, id] of [['member', MEMBER], ['admin', ADMIN]] as const) {
    t.test(`the ${role}'s top bar fits at ${WIDTHS.join(', ')} px`, async (t) => {
      await seedHuman(env.testApp, { id, name: LONG_USER, profileName: LONG_PROFILE })
      await insertProfile(env.testApp.app.engineDb.pool, { id, profileNo: 2, name: 'Work' })
      for (const width of WIDTHS) {
        const page = await env.signIn(t, { id, seeded: true, name: LONG_USER }, '/', { width, height: 740 })
        const header = page.locator('header.topbar')
        const menuButton = header.getByRole('button', { name: /Account menu/ })
        await menuButton.waitFor()
        await header.getByText(LONG_PROFILE).or(header.getByLabel('Active profile')).first().waitFor({ state: 'attached' })
        t.equal(await page.evaluate(() => document.documentElement.scrollWidth), width, `${width} px: no sideways scroll`)

        const bar = await placements(page, 'header.topbar')
        t.ok(bar.length >= 3, `${width} px: the bar has its controls (${bar.map((p) => p.what).join(', ')})`)
        for (const p of bar) t.ok(p.inside && p.reachable, `${width} px: ${p.what} is on screen and reachable (${p.rect})`)

        const inBar = width >= WIDE
        // The switcher is drawn once the profiles are read, which may come after the profile's name shows.
        if (inBar) await header.locator('.topbar-tools > .profile-switcher').getByLabel('Active profile').waitFor()
        t.equal(await header.locator('.topbar-tools > .profile-switcher').getByLabel('Active profile').count(), inBar ? 1 : 0, `${width} px: profile switcher ${inBar ? 'in the bar' : 'not in the bar'}`)
        t.equal(await header.locator('.topbar-tools > .alerts-toggle').getByRole('button', { name: 'Pause alerts' }).count(), inBar ? 1 : 0, `${width} px: alerts button ${inBar ? 'in the bar' : 'not in the bar'}`)

        await menuButton.click()
        const panel = header.locator('.user-menu-panel')
        await panel.waitFor()
        const profile = panel.getByLabel('Active profile')
        const pause = panel.getByRole('button', { name: 'Pause alerts' })
        t.equal(await profile.count(), inBar ? 0 : 1, `${width} px: profile switcher ${inBar ? 'not ' : ''}in the menu`)
        t.equal(await pause.count(), inBar ? 0 : 1, `${width} px: alerts button ${inBar ? 'not ' : ''}in the menu`)
        t.equal(await panel.getByText('Admin', { exact: true }).count(), role === 'admin' ? 1 : 0, `${width} px: admin badge for admins only`)
        const opened = await placements(page, 'header.topbar')
        t.ok(opened.length > bar.length, `${width} px: the open menu adds its controls`)
        for (const p of opened) t.ok(p.inside && p.reachable, `${width} px, menu open: ${p.what} is on screen and reachable (${p.rect})`)
        t.same(await axeViolations(page), [], `${width} px, menu open: axe-core finds nothing`)

        if (!inBar) {
          // The controls moved into the menu still work there.
          await pause.click()
          await panel.getByRole('button', { name: 'Resume alerts' }).waitFor()
          await page.keyboard.press('Escape')
          t.equal(await menuButton.getAttribute('aria-expanded'), 'false', `${width} px: Escape closes the menu`)
          t.ok(await header.locator('.user-menu-flag').isVisible(), `${width} px: the menu button shows that alerts are paused`)
          t.match(await menuButton.textContent(), /Alerts are paused/, `${width} px: and says so to screen readers`)
          await menuButton.click()
          await panel.getByRole('button', { name: 'Resume alerts' }).click()
          await panel.getByRole('button', { name: 'Pause alerts' }).waitFor()
          await profile.selectOption({ label: 'Work' })
          await page.getByRole('heading', { name: 'Your alarms in Work' }).waitFor()
          const [row] = await env.testApp.app.engineDb.pool.query('SELECT current_profile_no FROM humans WHERE id = ?', [id]) as Array<{ current_profile_no: number }>
          t.equal(row?.current_profile_no, 2, `${width} px: switched from the menu`)
          await env.testApp.app.engineDb.pool.query('UPDATE humans SET current_profile_no = 1 WHERE id = ?', [id])
        }
      }
    })
  }

  t.test('the site\'s logo and a long site name: the name gives way, the logo keeps to 32 px', async (t) => {
    const admin = bearer(env.testApp.app, { userId: ADMIN, isAdmin: true })
    t.teardown(async () => {
      for (const key of ['site_name', 'header_logo_url']) await env.testApp.app.inject({ method: 'PUT', url: `/api/settings/${key}`, headers: admin, payload: { value: '' } })
    })
    for (const [key, value] of [['site_name', 'Pokémon-Alarme der Metropolregion Rhein-Ruhr und Umgebung'], ['header_logo_url', '/favicon.svg']]) {
      t.equal((await env.testApp.app.inject({ method: 'PUT', url: `/api/settings/${key}`, headers: admin, payload: { value } })).statusCode, 200, `${key} set`)
    }
    for (const width of [320, 1280]) {
      const page = await env.signIn(t, { id: MEMBER, seeded: true, name: LONG_USER }, '/', { width, height: 740 })
      const brand = page.locator('header .brand')
      const logo = brand.locator('img')
      await logo.waitFor()
      await page.waitForFunction(() => (document.querySelector<HTMLImageElement>('header .brand img')?.naturalWidth ?? 0) > 0)
      const bar = await placements(page, 'header.topbar')
      for (const p of bar) t.ok(p.inside && p.reachable, `${width} px: ${p.what} is on screen and reachable (${p.rect})`)
      t.equal(await page.evaluate(() => document.documentElement.scrollWidth), width, `${width} px: no sideways scroll`)
      t.ok(await logo.evaluate((img) => img.getBoundingClientRect().height <= 32), `${width} px: the logo is at most 32 px high`)
      t.ok(await logo.evaluate((img) => img.getBoundingClientRect().right <= window.innerWidth), `${width} px: the logo is on screen`)
      if (width === 320) t.ok(await brand.locator('.brand-name').evaluate((name) => name.scrollWidth > name.clientWidth), 'the long name is cut short (ellipsis)')
    }
  })
}
