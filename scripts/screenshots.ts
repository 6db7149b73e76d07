/**
 * `npm run screenshots`: the login, start and admin sign-in settings pages on a 360-px phone and on a
 * desktop, in the light and the dark theme, and every other page of the client once, whole, on a phone in
 * the light theme (PHONE_PAGES), written to docs/screenshots/ (linked from the README and
 * docs/member-client.md). Runs against the demo pieces with the built client, signed in as the demo admin.
 */
import { mkdirSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { launchChromium, signInAs } from '../dev/browser.js'
import { startDemo } from '../dev/demo.js'

const OUT = fileURLToPath(new URL('../docs/screenshots/', import.meta.url))
const VIEWPORTS = { phone: { width: 360, height: 760 }, desktop: { width: 1280, height: 800 } } as const
/** File name (before -phone-light.png) and address of the pages shown once, on a phone in the light theme. */
const PHONE_PAGES: Array<[name: string, path: string]> = [
  ['profiles', '/profiles'], ['preferences', '/preferences'], ['location', '/location'], ['geofences', '/geofences'],
  ['quick-picks', '/quick-picks'], ['my-webhooks', '/my-webhooks'], ['admin-webhooks', '/admin/webhooks'],
  ['admin-site-settings', '/admin/settings']
]

mkdirSync(OUT, { recursive: true })
const demo = await startDemo({ port: 0, dbPrefix: `aw_screens_${process.pid}_${randomBytes(2).toString('hex')}`, logLevel: 'silent' })
const browser = await launchChromium()
try {
  for (const [device, viewport] of Object.entries(VIEWPORTS)) {
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await browser.newContext({ baseURL: demo.url, viewport, colorScheme, deviceScaleFactor: 1 })
      const page = await context.newPage()
      const shot = async (name: string, fullPage = false): Promise<void> => {
        const path = `${OUT}${name}-${device}-${colorScheme}.png`
        await page.screenshot({ path, fullPage })
        console.log(path)
      }
      await page.goto('/login?loggedout=1')
      await page.getByRole('link', { name: /^Sign in with/ }).waitFor()
      await shot('login')
      await signInAs(page, demo.url, 'admin')
      await page.locator('.tile-count').first().waitFor()
      // The dashboard names the pin after its figures: shot once nothing on it is loading.
      await page.waitForFunction(() => document.querySelector('main [aria-busy="true"], main .spinner') === null)
      await shot('home')
      await page.goto('/admin/sign-in')
      await page.getByRole('heading', { name: 'Sessions' }).waitFor()
      await shot('admin-sign-in')
      if (device === 'phone' && colorScheme === 'light') {
        for (const [name, path] of PHONE_PAGES) {
          await page.goto(path)
          await page.locator('main h1').first().waitFor()
          await page.waitForFunction(() => document.querySelector('.spinner') === null)
          // Map pages try their tiles first; the demo runs offline, so they settle on the "no map pictures" notice.
          // They are shot as the phone shows them: a whole-page capture stretches the viewport under Leaflet,
          // which then draws its layers for the old size.
          const hasMap = await page.locator('.map').count() > 0
          if (hasMap) await page.locator('.map-frame .notice').waitFor({ timeout: 15_000 }).catch(() => undefined)
          await shot(name, !hasMap)
        }
      }
      await context.close()
    }
  }
} finally {
  await browser.close()
  await demo.close()
}
