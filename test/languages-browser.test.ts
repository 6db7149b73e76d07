import { fileURLToPath } from 'node:url'
import t from 'tap'
import { readStrings, translations } from '../scripts/i18n-missing.js'
import { insertAlarm } from './fakes/engine-db.js'
import { bearer, seedHuman } from './helper.js'
import { PHONE, axeViolations, browserMissing, startBrowserApp, translationSlips, testContext } from './browser.js'

/**
 * Each of the eleven languages across the site in the built client: an admin who is also a member sees
 * their start page, an alarm page and the site settings page in the chosen language, with no raw key, no
 * unfilled `{{variable}}` and no English string where the language has its own. The sign-in page has a
 * language menu: the choice changes the page at once, is kept after a reload and respects `allowed_languages`.
 * `SCREENSHOTS=1` saves the German sign-in page on a phone to docs/screenshots/.
 */
const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await languageTests()

async function languageTests (): Promise<void> {
  // Discord configured, so the sign-in page shows a way in as well as its language menu.
  const env = await startBrowserApp(t, { env: { DISCORD_CLIENT_ID: '123456789012345678', DISCORD_CLIENT_SECRET: 'discord-client-secret-for-tests' } })
  const { app } = env.testApp
  // Placed, with areas and alarms: the start page shows the dashboard, the alarm page its cards.
  const admin = { id: '4001', name: 'Alice', latitude: 51.1, longitude: 7.1, area: ['harbour'] }
  const asAdmin = bearer(app, { userId: admin.id, isAdmin: true })
  const languages = ['en', ...translations()]
  t.equal(languages.length, 11, 'eleven languages are shipped')

  t.test('the start page, an alarm page and the site settings in each language', async (t) => {
    await seedHuman(env.testApp, admin)
    await insertAlarm(app.engineDb.pool, 'pokemon', { id: admin.id, pokemon_id: 25, min_iv: 90 })
    await insertAlarm(app.engineDb.pool, 'raid', { id: admin.id, level: 5 })
    for (const language of languages) {
      const strings = readStrings(language)
      const page = await env.signIn(t, { ...admin, seeded: true, isAdmin: true }, '/login?loggedout=1')
      await page.evaluate((value) => { localStorage.setItem('aw.language', value) }, language)
      const settled = async (text: string): Promise<void> => {
        await page.waitForFunction((value) => document.documentElement.lang === value, language)
        await page.getByRole('heading', { level: 1, name: text, exact: true }).waitFor()
        await page.waitForFunction(() => document.querySelector('.spinner') === null)
      }

      await page.goto('/')
      await settled(String(strings.get('home.welcome')).replace('{{name}}', admin.name))
      t.same(await translationSlips(page, language), [], `${language}: the start page`)

      await page.goto('/alarms/monsters')
      await page.getByRole('button', { name: String(strings.get('alarms.add')), exact: true }).waitFor()
      await page.waitForFunction(() => document.querySelector('.spinner') === null)
      t.same(await translationSlips(page, language), [], `${language}: the pokémon alarm page`)

      await page.goto('/admin/settings')
      await settled(String(strings.get('nav.siteSettings')))
      t.same(await translationSlips(page, language), [], `${language}: the site settings page`)
      await page.context().close()
    }
  })

  t.test('the sign-in page: a language menu that changes the page and is kept after a reload', async (t) => {
    const context = await testContext(env.browser, { baseURL: env.base, viewport: PHONE })
    t.teardown(async () => { await context.close() })
    const page = await context.newPage()
    await page.goto('/login')
    await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor()
    t.same(await axeViolations(page), [], 'the sign-in page with its language menu passes axe at 360 px')
    t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'fits 360 px')

    await page.getByLabel('Language', { exact: true }).selectOption('de')
    const german = readStrings('de')
    await page.getByRole('heading', { name: String(german.get('login.title')), exact: true }).waitFor()
    await page.getByRole('link', { name: String(german.get('login.withProvider')).replace('{{provider}}', 'Discord'), exact: true }).waitFor()
    t.equal(await page.evaluate(() => document.documentElement.lang), 'de', 'the document says German')
    t.same(await translationSlips(page, 'de'), [], 'the whole sign-in page is in German')
    if (process.env.SCREENSHOTS === '1') await page.screenshot({ path: fileURLToPath(new URL('../docs/screenshots/login-language-phone-light.png', import.meta.url)), fullPage: true })

    await page.reload()
    await page.getByRole('heading', { name: String(german.get('login.title')), exact: true }).waitFor()
    t.equal(await page.getByLabel(String(german.get('userMenu.language')), { exact: true }).inputValue(), 'de', 'the choice is kept after a reload')
  })

  t.test('the sign-in page offers only the allowed languages', async (t) => {
    t.teardown(async () => { await app.inject({ method: 'PUT', url: '/api/settings/allowed_languages', headers: asAdmin, payload: { value: '' } }) })
    const put = await app.inject({ method: 'PUT', url: '/api/settings/allowed_languages', headers: asAdmin, payload: { value: 'fr,pt' } })
    t.equal(put.statusCode, 200, 'the setting is saved')
    const context = await testContext(env.browser, { baseURL: env.base, viewport: PHONE })
    t.teardown(async () => { await context.close() })
    const page = await context.newPage()
    await page.goto('/login')
    const options = page.getByLabel('Language', { exact: true }).locator('option')
    await options.nth(3).waitFor({ state: 'attached' })
    t.same(await options.evaluateAll((list) => list.map((o) => (o as HTMLOptionElement).value)), ['en', 'fr', 'pt', 'pt-BR'],
      'English (always), French, and Portuguese with its regional variant')
  })
}
