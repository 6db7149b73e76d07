import type { Test } from 'tap'
import type { Page } from 'playwright-core'
import { PHONE, startBrowserApp, type BrowserApp, testContext } from './browser.js'
import { bearer, seedHuman } from './helper.js'

/** The admin of the quick-pick browser tests (PORACLE_ADMIN_IDS). */
export const ADMIN = '222222222222222222'

export interface QuickPicksBrowserApp extends BrowserApp {
  /**
   * A new browser profile signed in as `userId` (an admin if `isAdmin`) on the quick picks page, once its
   * list is there; a native dialog fails `test`. The user's engine record is the caller's to seed.
   */
  open: (test: Test, userId: string, options?: { isAdmin?: boolean, viewport?: { width: number, height: number } }) => Promise<Page>
}

/** The whole service for the quick-pick browser tests: the admin seeded, the built-in picks published. */
export async function startQuickPicksApp (t: Test): Promise<QuickPicksBrowserApp> {
  const env = await startBrowserApp(t, { env: { PORACLE_ADMIN_IDS: ADMIN } })
  const { app } = env.testApp
  await seedHuman(env.testApp, { id: ADMIN, name: 'Alice' })
  const seeded = await app.inject({ method: 'POST', url: '/api/quick-picks/seed', headers: bearer(app, { userId: ADMIN, isAdmin: true }) })
  t.equal(seeded.statusCode, 204, 'built-ins seeded')

  const open: QuickPicksBrowserApp['open'] = async (test, userId, { isAdmin = false, viewport = PHONE } = {}) => {
    const context = await testContext(env.browser, { baseURL: env.base, viewport })
    test.teardown(async () => { await context.close() })
    const page = await context.newPage()
    page.on('dialog', (dialog) => { test.fail(`native ${dialog.type()} dialog`); dialog.dismiss().catch(() => undefined) })
    const token = bearer(app, { userId, isAdmin }).authorization.slice('Bearer '.length)
    await page.goto('/login?loggedout=1')
    await page.evaluate((value) => { localStorage.setItem('aw.token', value); localStorage.setItem('aw.signIn', 'discord') }, token)
    await page.goto('/quick-picks')
    await page.getByRole('heading', { name: 'Available quick picks' }).waitFor()
    return page
  }
  return { ...env, open }
}
