import { createHash, createHmac, randomBytes } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import t from 'tap'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { CHROMIUM, launchChromium, signInAs } from '../dev/browser.js'
import { testContext } from './browser.js'
import { startDemo, type Demo } from '../dev/demo.js'
import { DEMO_ACCOUNTS } from '../dev/seed.js'
import { insertHuman } from './fakes/engine-db.js'
import { TELEGRAM_EMBED_PAGE, TELEGRAM_WIDGET_SCRIPT } from './fakes/telegram-widget.js'
import type { Test } from './helper.js'

/**
 * The client shell in Debian's Chromium against the demo pieces: the service, the development OIDC
 * provider (the real oidc-provider package), the alarm engine stand-in and MariaDB. Telegram is
 * configured too, so the login page offers its widget.
 */
const CLIENT_BUILD = new URL('../client/dist/index.html', import.meta.url)
const BOT_TOKEN = `123456:${randomBytes(12).toString('hex')}`
const BOT = 'demo_alarm_bot'

// `npm test` builds the client first; a missing build or browser is a failure, never a silent skip.
if (!existsSync(CHROMIUM) || !existsSync(CLIENT_BUILD)) {
  t.fail(!existsSync(CHROMIUM) ? `${CHROMIUM} is not installed (apt-get install chromium)` : 'the client is not built (npm run build:client)')
} else {
  await shellTests()
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

interface AxeViolation { id: string, impact: string | null, help: string, nodes: Array<{ target: string[] }> }

/** Runs axe-core in the page (evaluated through DevTools, so the page's CSP does not block it). */
async function axeViolations (page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource)
  return await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: AxeViolation[] }> } }).axe
    const result = await axe.run(document, { resultTypes: ['violations'] })
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }))
  })
}

async function shellTests (): Promise<void> {
  const demo: Demo = await startDemo({
    port: 0,
    dbPrefix: `aw_test_shell_${process.pid}_${randomBytes(3).toString('hex')}`,
    env: { TELEGRAM_BOT_TOKEN: BOT_TOKEN, TELEGRAM_BOT_USERNAME: BOT },
    logLevel: 'silent'
  })
  const browser: Browser = await launchChromium()
  t.teardown(async () => {
    await browser.close()
    await demo.close()
  })
  const base = demo.url
  const [admin, misty, brock] = DEMO_ACCOUNTS
  if (admin === undefined || misty === undefined || brock === undefined) throw new Error('demo accounts missing')

  async function newPage (test: Test, options: { width?: number, colorScheme?: 'light' | 'dark' } = {}): Promise<{ context: BrowserContext, page: Page, cspErrors: string[] }> {
    const context = await testContext(browser, { baseURL: base, viewport: { width: options.width ?? 1280, height: 900 }, colorScheme: options.colorScheme ?? 'light' })
    test.teardown(async () => { await context.close() })
    // Telegram's servers are out of reach here: its widget script and frame come from stand-ins.
    await context.route('https://telegram.org/js/telegram-widget.js*', (route) => route.fulfill({ contentType: 'text/javascript', body: TELEGRAM_WIDGET_SCRIPT }))
    await context.route('https://oauth.telegram.org/**', (route) => route.fulfill({ contentType: 'text/html', body: TELEGRAM_EMBED_PAGE }))
    const page = await context.newPage()
    const cspErrors: string[] = []
    page.on('console', (message) => { if (/Content Security Policy/i.test(message.text())) cspErrors.push(message.text()) })
    return { context, page, cspErrors }
  }

  t.test('an admin signs in through the development provider and sees the shell', async (t) => {
    const { page } = await newPage(t)
    await signInAs(page, base, admin.username)
    await page.getByRole('heading', { name: `Hello, ${admin.displayName}` }).waitFor()
    t.equal(await page.title(), 'Home · Alarms', 'page title')
    const nav = page.getByRole('navigation', { name: 'Main navigation' })
    for (const name of ['Home', 'Pokémon', 'Raids', 'Max battles', 'Sign-in settings']) {
      t.ok(await nav.getByRole('link', { name }).isVisible(), `navigation offers ${name}`)
    }
    await nav.getByRole('link', { name: 'Pokémon' }).click()
    await page.getByRole('heading', { name: 'Pokémon' }).waitFor()
    await page.locator('.alarm-card').first().waitFor()
    t.equal(await page.locator('.alarm-card').count(), 3, 'the seeded pokemon alarms are listed')
  })

  t.test('members do not see admin pages; a type the site turns off leaves the navigation', async (t) => {
    const { page } = await newPage(t)
    await signInAs(page, base, misty.username)
    const nav = page.getByRole('navigation', { name: 'Main navigation' })
    await nav.getByRole('link', { name: 'Lures' }).waitFor()
    t.equal(await nav.getByRole('link', { name: 'Sign-in settings' }).count(), 0)
    t.teardown(async () => { await demo.app.inject({ method: 'PUT', url: '/api/settings/disable_lures', headers: adminAuth(demo, admin.engineId), payload: { value: 'false' } }) })
    const off = await demo.app.inject({ method: 'PUT', url: '/api/settings/disable_lures', headers: adminAuth(demo, admin.engineId), payload: { value: 'true' } })
    t.equal(off.statusCode, 200)
    await page.reload()
    await nav.getByRole('link', { name: 'Raids' }).waitFor()
    t.equal(await nav.getByRole('link', { name: 'Lures' }).count(), 0, 'lures are gone')
    await page.goto('/alarms/lures')
    await page.getByText('This alarm type is turned off by the site\'s administrators', { exact: false }).waitFor()
    t.pass('the page says why')
  })

  t.test('the profile switcher shows the other profile\'s alarms; alerts pause and resume', async (t) => {
    const { page } = await newPage(t)
    await signInAs(page, base, misty.username)
    const profile = page.getByLabel('Active profile')
    await profile.waitFor()
    t.equal(await profile.inputValue(), '1')
    await profile.selectOption({ label: 'Work' })
    await page.getByRole('heading', { name: 'Your alarms in Work' }).waitFor()
    t.equal(await page.locator('.tile-count').first().textContent(), '1', 'one pokemon alarm in Work')

    // The top bar's button: paused, the dashboard's next steps offer a second one.
    const bar = page.getByRole('banner')
    await bar.getByRole('button', { name: 'Pause alerts' }).click()
    await bar.getByRole('button', { name: 'Resume alerts' }).waitFor()
    const [row] = await demo.app.engineDb.pool.query('SELECT enabled FROM humans WHERE id = ?', [misty.engineId]) as Array<{ enabled: number }>
    t.equal(row?.enabled, 0, 'the engine stopped the alerts')
    await bar.getByRole('button', { name: 'Resume alerts' }).click()
    await bar.getByRole('button', { name: 'Pause alerts' }).waitFor()
  })

  t.test('the Telegram widget is rendered when configured, and its return signs the member in', async (t) => {
    const { page, cspErrors } = await newPage(t)
    await page.goto('/login?loggedout=1')
    const frame = page.locator(`iframe#telegram-login-${BOT}`)
    await frame.waitFor()
    const src = new URL(await frame.getAttribute('src') ?? '')
    t.equal(src.origin + src.pathname, `https://oauth.telegram.org/embed/${BOT}`)
    t.equal(src.searchParams.get('return_to'), `${base}/auth/telegram/callback`)
    t.ok(await page.frameLocator(`iframe#telegram-login-${BOT}`).getByRole('button', { name: 'Log in with Telegram' }).isVisible(), 'the frame loaded under the CSP')
    t.same(cspErrors, [], 'nothing was blocked by the CSP')

    await insertHuman(demo.app.engineDb.pool, { id: '5550001', type: 'telegram:user', name: 'Tilly' })
    const fields: Record<string, string> = { id: '5550001', first_name: 'Tilly', username: 'tilly', auth_date: String(Math.floor(Date.now() / 1000)) }
    const check = Object.keys(fields).sort().map((k) => `${k}=${fields[k] ?? ''}`).join('\n')
    const hash = createHmac('sha256', createHash('sha256').update(BOT_TOKEN).digest()).update(check).digest('hex')
    await page.goto(`/auth/telegram/callback?${new URLSearchParams({ ...fields, hash }).toString()}`)
    await page.waitForURL(`${base}/`)
    await page.getByRole('heading', { name: /^Hello, / }).waitFor()
    t.equal(await page.evaluate(() => localStorage.getItem('aw.signIn')), 'telegram')
    t.notOk(await page.evaluate(() => window.history.length > 0 && window.location.search.includes('hash')), 'the signed fields left the address')
  })

  t.test('a refused member sees why, and the SSO page does not send them round again', async (t) => {
    const { page } = await newPage(t)
    await demo.app.engineDb.pool.query('UPDATE humans SET admin_disable = 1 WHERE id = ?', [brock.engineId])
    t.teardown(async () => { await demo.app.engineDb.pool.query('UPDATE humans SET admin_disable = 0 WHERE id = ?', [brock.engineId]) })
    await page.goto('/login')
    await page.getByLabel('Username').fill(brock.username)
    await page.getByLabel('Password').fill('demo')
    await page.getByRole('button', { name: 'Sign in' }).click()
    const alert = page.getByRole('alert')
    await alert.waitFor()
    t.match(await alert.textContent(), /blocked by an administrator/)
    t.match(await alert.textContent(), /Contact the community's administrators/)
    await page.waitForTimeout(1500)
    t.equal(new URL(page.url()).pathname, '/login', 'still on the login page, no redirect loop')
    t.ok(await page.getByRole('link', { name: 'Sign in with Demo SSO' }).isVisible(), 'a deliberate retry stays possible')
  })

  t.test('the admin flips the sign-in mode Local -> SSO through the dialog, and back', async (t) => {
    const { page } = await newPage(t)
    await signInAs(page, base, admin.username)
    await page.getByRole('link', { name: 'Sign-in settings' }).click()
    await page.getByRole('heading', { name: 'Sign-in mode' }).waitFor()
    t.equal(await page.title(), 'Sign-in settings · Alarms')
    t.ok(await page.getByText('SSO: the login page sends everyone').isVisible(), 'starts in SSO mode')

    await page.getByRole('button', { name: 'Switch to local' }).click()
    const dialog = page.getByRole('dialog', { name: 'Switch to local sign-in?' })
    await dialog.waitFor()
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'hidden' })
    t.equal(await setting(demo, 'enable_oidc'), 'true', 'cancel changes nothing')

    await page.getByRole('button', { name: 'Switch to local' }).click()
    await dialog.getByRole('button', { name: 'Switch to local' }).click()
    await page.getByText('Local: the login page offers').waitFor()
    t.equal(await setting(demo, 'enable_oidc'), 'false')

    await page.getByRole('button', { name: 'Switch to SSO' }).click()
    const toSso = page.getByRole('dialog', { name: 'Switch to single sign-on?' })
    t.match(await toSso.textContent(), /sent straight to Demo SSO/)
    await toSso.getByRole('button', { name: 'Switch to SSO' }).click()
    await page.getByText('SSO: the login page sends everyone').waitFor()
    t.equal(await setting(demo, 'enable_oidc'), 'true')

    await page.getByLabel('User id').fill(misty.engineId)
    await page.getByRole('button', { name: 'Revoke sessions' }).click()
    await page.getByText(/sessions? revoked\./).waitFor()
    t.pass('the sessions panel answers')
  })

  t.test('theme and language switch and persist across a reload', async (t) => {
    const { page } = await newPage(t)
    await signInAs(page, base, misty.username)
    await page.getByRole('button', { name: 'Account menu' }).click()
    await page.getByRole('radio', { name: 'Dark' }).check()
    t.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark')
    await page.getByLabel('Language', { exact: true }).selectOption('de')
    await page.getByRole('heading', { name: 'Hallo, Misty' }).waitFor()
    t.equal(await page.evaluate(() => document.documentElement.lang), 'de')

    await page.reload()
    await page.getByRole('heading', { name: 'Hallo, Misty' }).waitFor()
    t.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark', 'theme kept')
    t.equal(await page.title(), 'Start · Alarme', 'title in German')
    await page.getByRole('button', { name: 'Kontomenü' }).click()
    await page.getByRole('radio', { name: 'System' }).check()
    t.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'light', 'system follows the (light) browser setting')
  })

  for (const colorScheme of ['light', 'dark'] as const) {
    t.test(`axe-core finds no violations in the ${colorScheme} theme (login, home, settings; phone and desktop)`, async (t) => {
      for (const width of [360, 1280]) {
        const { page } = await newPage(t, { width, colorScheme })
        await page.goto('/login?loggedout=1')
        await page.locator(`iframe#telegram-login-${BOT}`).waitFor()
        t.same(await axeViolations(page), [], `login at ${width}px`)
        await signInAs(page, base, admin.username)
        await page.getByRole('heading', { name: `Hello, ${admin.displayName}` }).waitFor()
        t.same(await axeViolations(page), [], `home at ${width}px`)
        if (width === 360) {
          await page.getByRole('button', { name: 'Menu', exact: true }).click()
          await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Pokémon' }).waitFor()
          t.same(await axeViolations(page), [], 'open navigation drawer')
        }
        await page.goto('/admin/sign-in')
        await page.getByRole('heading', { name: 'Sessions' }).waitFor()
        t.same(await axeViolations(page), [], `settings at ${width}px`)
        await page.getByRole('button', { name: 'Account menu' }).click()
        t.same(await axeViolations(page), [], `open account menu at ${width}px`)
      }
    })
  }
}

function adminAuth (demo: Demo, adminId: string): { authorization: string } {
  const { token } = demo.app.auth.mint({ userId: adminId, username: 'admin', type: 'chat:user', isAdmin: true, enabled: true, profileNo: 1 }, 5)
  return { authorization: `Bearer ${token}` }
}

async function setting (demo: Demo, key: string): Promise<string | null | undefined> {
  const rows = await demo.app.db.pool.query('SELECT value FROM site_settings WHERE `key` = ?', [key]) as Array<{ value: string | null }>
  return rows[0]?.value
}
