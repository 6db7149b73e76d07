import t from 'tap'
import { readStrings, translations } from '../scripts/i18n-missing.js'
import { bearer } from './helper.js'
import { axeViolations, browserMissing, startBrowserApp, translationSlips } from './browser.js'

/**
 * The eleven languages in the built client: the start page rendered in each shows no raw key, no
 * unfilled `{{variable}}` and no English string where the language has its own; the language menu
 * offers only what `allowed_languages` allows; "also my alerts" writes the choice to the engine.
 */
const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await languageTests()

async function languageTests (): Promise<void> {
  const env = await startBrowserApp(t)
  const { app } = env.testApp
  // A new member (no location, no areas): the start page shows its first steps, the menu every choice.
  const member = { id: '3001', name: 'member3001', latitude: 0, longitude: 0, area: [] }
  const admin = bearer(app, { userId: 'admin1', isAdmin: true })
  const alertLanguage = async (): Promise<unknown> =>
    (await app.engineDb.pool.query('SELECT language FROM humans WHERE id = ?', [member.id]) as Array<{ language: unknown }>)[0]?.language

  t.test('the start page in each language: no raw key, no unfilled variable, no English fallback', async (t) => {
    const page = await env.signIn(t, member, '/')
    await page.locator('h1').first().waitFor()
    for (const language of ['en', ...translations()]) {
      const strings = readStrings(language)
      await page.evaluate((value) => { localStorage.setItem('aw.language', value) }, language)
      await page.goto('/')
      await page.waitForFunction((value) => document.documentElement.lang === value, language)
      // The dashboard's next steps are the last part to load, and in the chosen language.
      await page.getByText(String(strings.get('dashboard.nextTitle')), { exact: true }).waitFor()
      await page.waitForFunction(() => document.querySelector('.spinner') === null)
      t.same(await translationSlips(page, language), [], `${language}: no raw key, no unfilled variable, no English fallback`)
    }
  })

  t.test('the language menu offers only the allowed languages, and an unallowed choice falls back', async (t) => {
    t.teardown(async () => { await app.inject({ method: 'PUT', url: '/api/settings/allowed_languages', headers: admin, payload: { value: '' } }) })
    const put = await app.inject({ method: 'PUT', url: '/api/settings/allowed_languages', headers: admin, payload: { value: 'de, pt-br' } })
    t.equal(put.statusCode, 200, 'the setting is saved')
    const page = await env.signIn(t, { ...member, seeded: true }, '/')
    await page.evaluate(() => { localStorage.setItem('aw.language', 'fr') })
    await page.goto('/')
    // French is not allowed: the page leaves it for the browser's preference among the allowed ones, English.
    await page.waitForFunction(() => document.documentElement.lang === 'en')
    await page.locator('.user-menu-button').click()
    const options = page.getByLabel('Language', { exact: true }).locator('option')
    await options.nth(2).waitFor({ state: 'attached' })
    t.same(await options.evaluateAll((list) => list.map((o) => (o as HTMLOptionElement).value)), ['en', 'de', 'pt-BR'], 'English (always), German and Brazilian Portuguese')
  })

  t.test('"also my alerts" writes the chosen language to the engine; without it the engine keeps its own', async (t) => {
    const page = await env.signIn(t, { ...member, seeded: true }, '/')
    await page.evaluate(() => { localStorage.setItem('aw.language', 'en') })
    await page.goto('/')
    await page.locator('.user-menu-button').click()
    await page.getByLabel('Language', { exact: true }).selectOption('fr')
    await page.waitForFunction(() => document.documentElement.lang === 'fr')
    t.equal(await alertLanguage(), null, 'the interface language alone leaves the alerts alone')

    await page.getByRole('checkbox', { name: 'Envoyer aussi mes alertes dans cette langue' }).check()
    await page.getByText('Vos alertes arrivent désormais en français.').waitFor()
    t.same(await axeViolations(page), [], 'the open menu with its checkbox and status passes axe-core')
    t.equal(await alertLanguage(), 'fr', 'ticking the box sends the current language at once')

    await page.getByLabel('Langue', { exact: true }).selectOption('pt-BR')
    await page.getByText('Seus alertas agora chegam em português (Brasil).').waitFor()
    t.equal(await alertLanguage(), 'pt-br', 'each later choice goes to the engine, in its lower-case tag')

    await page.reload()
    await page.locator('.user-menu-button').click()
    t.ok(await page.getByRole('checkbox', { name: 'Enviar também meus alertas neste idioma' }).isChecked(), 'the wish is remembered in this browser')
  })
}
