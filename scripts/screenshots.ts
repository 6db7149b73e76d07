/**
 * `npm run screenshots`: the login, start and admin sign-in settings pages on a 360-px phone and on a
 * desktop, in the light and the dark theme, written to docs/screenshots/ (linked from the README).
 * Runs against the demo pieces with the built client, signed in as the demo admin.
 */
import { mkdirSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { launchChromium, signInAs } from '../dev/browser.js'
import { startDemo } from '../dev/demo.js'

const OUT = fileURLToPath(new URL('../docs/screenshots/', import.meta.url))
const VIEWPORTS = { phone: { width: 360, height: 760 }, desktop: { width: 1280, height: 800 } } as const

mkdirSync(OUT, { recursive: true })
const demo = await startDemo({ port: 0, dbPrefix: `aw_screens_${process.pid}_${randomBytes(2).toString('hex')}`, logLevel: 'silent' })
const browser = await launchChromium()
try {
  for (const [device, viewport] of Object.entries(VIEWPORTS)) {
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = await browser.newContext({ baseURL: demo.url, viewport, colorScheme, deviceScaleFactor: 1 })
      const page = await context.newPage()
      const shot = async (name: string): Promise<void> => {
        const path = `${OUT}${name}-${device}-${colorScheme}.png`
        await page.screenshot({ path })
        console.log(path)
      }
      await page.goto('/login?loggedout=1')
      await page.getByRole('link', { name: /^Sign in with/ }).waitFor()
      await shot('login')
      await signInAs(page, demo.url, 'admin')
      await page.locator('.tile-count').first().waitFor()
      await shot('home')
      await page.goto('/admin/sign-in')
      await page.getByRole('heading', { name: 'Sessions' }).waitFor()
      await shot('admin-sign-in')
      await context.close()
    }
  }
} finally {
  await browser.close()
  await demo.close()
}
