/**
 * `npm run bench:member-save`: from tapping Save to the card being on the page, twenty times, against the
 * API round trip the page itself makes (create, then read the list) timed from the same page; prints both
 * medians and their ratio. Each card's arrival is checked while it is timed: a save that shows no card
 * stops the run. Runs the service in this process with the built client (node scripts/builds.mjs client first).
 */
import type { Page } from 'playwright-core'
import { launchChromium } from '../dev/chromium.js'
import { choosePokemon } from '../test/alarm-form.js'
import { insertHuman } from '../test/fakes/engine-db.js'
import { fillEngineDatabase, startListeningBenchSite } from './setup.js'
import { median } from './stats.js'

const SAVES = 20
const SECRET = 'bench-engine-secret'
const USER = '4001'

const { app, databases, base, close } = await startListeningBenchSite('member_save', SECRET)
const authorization = `Bearer ${app.auth.mint({ userId: USER, username: `member${USER}`, type: 'discord:user', isAdmin: false, enabled: true, profileNo: 1 }, 60).token}`
await fillEngineDatabase(databases.engine, async (connection) => {
  await insertHuman(connection, { id: USER, name: `member${USER}`, latitude: 51.5, longitude: -0.12, area: ['centre'] })
})

// The list is windowed (only the cards near the viewport are in the DOM), so its count is read from the
// "Showing n of n" line it keeps in step with the cards.
const listed = (page: Page, count: number) => page.getByRole('status').getByText(`Showing ${count} of ${count}`, { exact: true })

const browser = await launchChromium()
try {
  const context = await browser.newContext({ baseURL: base, viewport: { width: 1280, height: 860 } })
  const page = await context.newPage()
  await page.goto('/login?loggedout=1')
  await page.evaluate((value) => { localStorage.setItem('aw.token', value); localStorage.setItem('aw.signIn', 'discord') }, authorization.slice('Bearer '.length))
  await page.goto('/alarms/monsters')
  await page.getByText('No alarms of this type yet.').waitFor()
  const saves: number[] = []
  const api: number[] = []
  for (let i = 1; i <= SAVES; i++) {
    await page.getByRole('button', { name: 'Add alarm' }).click()
    await choosePokemon(page, 'pika', 'Pikachu')
    if (i === 1) await page.getByText('More filters', { exact: true }).click()
    await page.getByRole('textbox', { name: 'CP from' }).fill(String(i * 10))
    await page.getByRole('textbox', { name: 'CP from' }).press('Tab')
    // Timed inside the page: from the click on Save until the list holds one card more. (No named
    // function inside: tsx keeps names through a helper the page does not have.)
    saves.push(await page.evaluate(async (expected) => await new Promise<number>((resolve) => {
      const start = performance.now()
      const observer = new MutationObserver(() => {
        if (![...document.querySelectorAll('[role=status]')].some((el) => el.textContent === `Showing ${expected} of ${expected}`)) return
        observer.disconnect()
        resolve(performance.now() - start)
      })
      observer.observe(document.body, { childList: true, subtree: true, characterData: true })
      ;[...document.querySelectorAll('button')].find((b) => b.textContent === 'Create 1 alarm')?.click()
    }), 2 * i - 1))
    if (!await listed(page, 2 * i - 1).isVisible()) throw new Error(`save ${i}: its card did not appear`)
    // The baseline: the same create and list read, from the same page, without rendering (each round
    // adds one alarm this way too).
    api.push(await page.evaluate(async ({ authorization, cp }) => {
      const headers = { authorization, 'content-type': 'application/json' }
      const start = performance.now()
      await fetch('/api/monsters', { method: 'POST', headers, body: JSON.stringify({ pokemon_id: 4, min_cp: cp, max_iv: 100, max_cp: 9000, max_level: 55 }) })
      await fetch('/api/monsters', { headers })
      return performance.now() - start
    }, { authorization, cp: i * 10 }))
    await page.reload()
    await listed(page, 2 * i).waitFor()
  }
  await context.close()
  console.log(`Save to card p50 ${median(saves).toFixed(0)} ms; API create + list p50 ${median(api).toFixed(0)} ms; ratio ${(median(saves) / median(api)).toFixed(2)} (${SAVES} saves)`)
} finally {
  await browser.close()
  await close()
}
