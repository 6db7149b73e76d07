import { mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import type { Page } from 'playwright-core'
import { axeViolations, browserMissing, choosePokemon, DESKTOP, PHONE, setMinIv, startBrowserApp } from './browser.js'

/**
 * "Preview this alert" in the alarm editor, in a real browser: the engine (its fake, after PoracleNG's
 * /api/dts/enrich and /api/dts/render) renders the template for a sample inside the filters being edited,
 * the preview follows the filters and the chosen template, and a missing template or an engine without
 * the template API says so in words.
 */
const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await browserTests()

async function openPreview (page: Page): Promise<void> {
  await page.getByText('Delivery options', { exact: true }).click()
  await page.getByRole('button', { name: 'Preview this alert' }).click()
}

async function browserTests (): Promise<void> {
  const ng = await startBrowserApp(t)
  ng.testApp.engine.dtsTemplates.push(
    { id: 'compact', type: 'monster', platform: 'discord', language: 'en', template: { content: '{{name}} {{iv}}% (compact)' } },
    { id: 'fields', type: 'monster', platform: 'discord', language: 'en', template: { embed: { title: '{{name}}', color: 16711680, fields: [{ name: 'IV', value: '{{iv}}%', inline: true }, { name: 'CP', value: '{{cp}}', inline: true }] } } }
  )

  for (const [name, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
    t.test(`${name}: the engine's rendering follows the filters and the chosen template`, async (t) => {
      const user = { id: name === 'phone' ? '6661' : '6662', name: `member-${name}`, latitude: 51.1, longitude: 7.1 }
      const page = await ng.signIn(t, user, '/alarms/monsters', viewport)
      await page.getByRole('button', { name: 'Add alarm' }).click()
      await choosePokemon(page, 'pika', 'Pikachu')
      await setMinIv(page, '90')
      await openPreview(page)
      const sample = page.getByRole('figure', { name: 'Sample alert' })
      await sample.getByText('Pikachu', { exact: true }).waitFor()
      await sample.getByText(/^IV 100% CP \d+ L\d+$/).waitFor()
      t.pass('the default template, rendered for a hundo inside IV ≥ 90')
      await page.getByText('rendered by the alarm engine with template 1 as Discord shows it', { exact: false }).waitFor()

      const template = page.getByRole('combobox', { name: 'Message template' })
      await template.fill('compact')
      await sample.getByText('Pikachu 100% (compact)', { exact: true }).waitFor()
      t.pass('the chosen template')
      await setMinIv(page, '0')
      await page.getByRole('textbox', { name: 'IV up to' }).fill('50')
      await page.getByRole('textbox', { name: 'IV up to' }).press('Tab')
      await sample.getByText(/^Pikachu (?!100%)\d+(\.\d)?% \(compact\)$/).waitFor()
      const iv = Number(/(\d+(\.\d)?)%/.exec(await sample.innerText())?.[1])
      t.ok(iv <= 50, `the sample follows the filters: IV ${iv} within 0-50`)

      await template.fill('fields')
      await sample.getByRole('term').filter({ hasText: 'CP' }).waitFor()
      t.same(await sample.getByRole('term').allInnerTexts(), ['IV', 'CP'], 'embed fields as a list of names and values')
      t.same(await axeViolations(page), [], 'axe-clean with the preview open')
      if (process.env.SCREENSHOTS === '1') {
        const dir = fileURLToPath(new URL('../docs/screenshots/', import.meta.url))
        mkdirSync(dir, { recursive: true })
        await page.getByRole('figure', { name: 'Sample alert' }).scrollIntoViewIfNeeded()
        await page.screenshot({ path: `${dir}/${name}-template-preview.png` })
      }

      await template.fill('nope')
      await page.getByText('The alarm engine has no template "nope" for pokemon alerts on discord.', { exact: true }).waitFor()
      t.pass('a template the engine lacks is named')
      t.equal(ng.testApp.engine.testAlerts.length, 0, 'nothing was delivered')
    })
  }

  t.test('the preview stays closed until asked, and a failure offers a retry', async (t) => {
    const user = { id: '6663', name: 'member6663', latitude: 51.1, longitude: 7.1 }
    const page = await ng.signIn(t, user, '/alarms/raids', PHONE)
    let asked = 0
    let fail = true
    await page.route('**/api/template-previews/raid', async (route) => {
      asked++
      if (fail) await route.fulfill({ status: 502, contentType: 'application/json', body: JSON.stringify({ error: 'The alarm engine sent an answer this service cannot use. Please try again later.' }) })
      else await route.continue()
    })
    await page.getByRole('button', { name: 'Add alarm' }).click()
    await page.getByText('Delivery options', { exact: true }).click()
    await page.waitForTimeout(600)
    t.equal(asked, 0, 'nothing asked before the preview is opened')
    await page.getByRole('button', { name: 'Preview this alert' }).click()
    await page.getByText('The preview could not be made right now. Try again in a moment.', { exact: true }).waitFor()
    fail = false
    await page.getByRole('button', { name: 'Try again' }).click()
    await page.getByRole('figure', { name: 'Sample alert' }).getByText(/raid at Test Gym/).waitFor()
    t.pass('the retry rendered the raid')
    await page.getByRole('button', { name: 'Hide the preview' }).click()
    t.equal(await page.getByRole('figure', { name: 'Sample alert' }).count(), 0, 'hidden again')
  })

  t.test('PoracleJS has no template API: the editor says so', async (t) => {
    const js = await startBrowserApp(t, { engineMode: 'js' })
    const page = await js.signIn(t, { id: '6664', name: 'member6664' }, '/alarms/monsters', PHONE)
    await page.getByRole('button', { name: 'Add alarm' }).click()
    await openPreview(page)
    await page.getByText('This site\'s alarm engine cannot show previews.', { exact: true }).waitFor()
    t.pass('a plain sentence instead of a preview')
  })
}
