import t from 'tap'
import type { Page } from 'playwright-core'
import { bearer } from '../test/helper.js'
import { browserMissing, choosePokemon, startBrowserApp } from '../test/browser.js'
import { median } from './stats.js'

/**
 * `npm run bench:member-save`: from tapping Save to the card being on the page, twenty times, against the
 * API round trip the page itself makes (create, then read the list) timed from the same page; prints both
 * medians and their ratio. It runs on the test suite's browser harness (a tap test of its own), so each
 * card's arrival is still checked while it is timed.
 */
const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await timingTests()

async function timingTests (): Promise<void> {
  const env = await startBrowserApp(t)
  const { app } = env.testApp
  const human = () => ({ id: '4001', name: 'member4001', latitude: 51.5, longitude: -0.12, area: ['centre'] })
  // The list is windowed (only the cards near the viewport are in the DOM), so its count is read from the
  // "Showing n of n" line it keeps in step with the cards.
  const listed = (page: Page, count: number) => page.getByRole('status').getByText(`Showing ${count} of ${count}`, { exact: true })

  t.test('Save to card: 20 saves, each card appears (p50 against the API round trip the page makes)', async (t) => {
    const user = human()
    const auth = bearer(app, { userId: user.id })
    const page = await env.signIn(t, user, '/alarms/monsters')
    await page.getByText('No alarms of this type yet.').waitFor()
    const browser: number[] = []
    const api: number[] = []
    for (let i = 1; i <= 20; i++) {
      await page.getByRole('button', { name: 'Add alarm' }).click()
      await choosePokemon(page, 'pika', 'Pikachu')
      if (i === 1) await page.getByText('More filters', { exact: true }).click()
      await page.getByRole('textbox', { name: 'CP from' }).fill(String(i * 10))
      await page.getByRole('textbox', { name: 'CP from' }).press('Tab')
      // Timed inside the page: from the click on Save until the list holds one card more.
      browser.push(await page.evaluate(async (expected) => await new Promise<number>((resolve) => {
        const start = performance.now()
        const done = (): boolean => {
          const counts = [...document.querySelectorAll('[role=status]')].map((el) => el.textContent)
          if (!counts.includes(`Showing ${expected} of ${expected}`)) return false
          resolve(performance.now() - start)
          return true
        }
        const observer = new MutationObserver(() => { if (done()) observer.disconnect() })
        observer.observe(document.body, { childList: true, subtree: true, characterData: true })
        const save = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Create 1 alarm')
        save?.click()
      }), 2 * i - 1))
      // Each round also adds one alarm through the API (the baseline below).
      t.ok(await listed(page, 2 * i - 1).isVisible(), `card ${i} appeared`)
      // The baseline: the same create and list read, from the same page, without rendering.
      api.push(await page.evaluate(async ({ authorization, cp }) => {
        const headers = { authorization, 'content-type': 'application/json' }
        const start = performance.now()
        await fetch('/api/monsters', { method: 'POST', headers, body: JSON.stringify({ pokemon_id: 4, min_cp: cp, max_iv: 100, max_cp: 9000, max_level: 55 }) })
        await fetch('/api/monsters', { headers })
        return performance.now() - start
      }, { authorization: auth.authorization, cp: i * 10 }))
      await page.reload()
      await listed(page, 2 * i).waitFor()
    }
    console.log(`Save to card p50 ${median(browser).toFixed(0)} ms; API create + list p50 ${median(api).toFixed(0)} ms; ratio ${(median(browser) / median(api)).toFixed(2)}`)
  })
}
