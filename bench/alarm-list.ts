/**
 * `npm run bench:alarm-list`: the alarm pages at scale.
 * - The pokemon alarm list with 1,000 alarms on the throttled phone profile of bench:client (CDP: 4x CPU
 *   slowdown, 150 ms latency, 1.6 Mbit/s, 360 px): the time from the list's answer arriving to its cards
 *   on screen, a re-sort of all 1,000, and the editor opened over the list (tap to the frame showing the
 *   pokemon grid); next to the same page unthrottled in the same run.
 * - The alarm page's chunk (list, editor, sliders) as sent to a gzip client.
 * - "Create 50 alarms": one save of 50 pokemon through the service against the engine fake: its time and
 *   the number of engine calls it made (one batch write, not 50).
 * Runs the service in this process with the built client (node scripts/builds.mjs client first).
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser } from 'playwright-core'
import { launchChromium } from '../dev/browser.js'
import { insertHuman } from '../test/fakes/engine-db.js'
import { PAGE_TIMING, untilIdle } from './page-timing.js'
import { fillEngineDatabase, startListeningBenchSite } from './setup.js'
import { median, spread } from './stats.js'

const PHONE = { latency: 150, downloadThroughput: 1_600_000 / 8, uploadThroughput: 750_000 / 8 }
const CPU_SLOWDOWN = 4
const RUNS = Number(process.env.BENCH_RUNS ?? 7)
const ALARMS = 1000
const SECRET = 'bench-engine-secret'
const USER = '123456789012345678'
const BATCH_USER = '123456789012345679'
const DIST = fileURLToPath(new URL('../client/dist/assets', import.meta.url))

const { app, engine, databases, base, close } = await startListeningBenchSite('alarm_list', SECRET)
const token = (userId: string) => app.auth.mint({ userId, username: userId, type: 'discord:user', isAdmin: false, enabled: true, profileNo: 1 }, 60).token

await fillEngineDatabase(databases.engine, async (connection) => {
  for (const id of [USER, BATCH_USER]) await insertHuman(connection, { id, name: id, latitude: 51.5, longitude: -0.12, area: ['centre'] })
  const values = Array.from({ length: ALARMS }, (_, i) => [USER, 1 + (i % 900), i % 3 === 0 ? 90 : -1, i % 7 === 0 ? 1500 : 0, i % 5 === 0 ? 500 : 0])
  await connection.batch('INSERT INTO monsters (id, profile_no, ping, pokemon_id, form, min_iv, pvp_ranking_league, distance, template, clean, max_iv, max_cp, max_level, size, max_size, min_cp, min_level, atk, def, sta, max_atk, max_def, max_sta, gender, min_weight, max_weight, min_time, rarity, max_rarity, pvp_ranking_best, pvp_ranking_worst, pvp_ranking_min_cp, pvp_ranking_cap) ' +
    "VALUES (?, 1, '', ?, 0, ?, ?, ?, '1', 0, 100, 9000, 55, -1, 5, 0, 0, 0, 0, 0, 15, 15, 15, 0, 0, 9000000, 0, -1, 6, 1, 100, 0, 0)", values)
})

/** From the list's answer to the first cards in the page (`render`) and to their frame painted (`painted`); `editor`: "Add alarm" to the grid on screen. */
interface ListRun { render: number, painted: number, resort: number, editor: number }

async function loadList (browser: Browser, throttled: boolean): Promise<ListRun> {
  const context = await browser.newContext({ baseURL: base, viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true })
  try {
    const page = await context.newPage()
    await page.goto('/login?loggedout=1')
    await page.evaluate((value) => { localStorage.setItem('aw.token', value); localStorage.setItem('aw.signIn', 'discord') }, token(USER))
    await page.addInitScript(() => {
      // When the first cards enter the page, and when that frame has been laid out and painted (two frames on).
      const w = window as unknown as { cardsAt?: number, paintedAt?: number }
      new MutationObserver(() => {
        if (w.cardsAt !== undefined || document.querySelector('.alarm-card') === null) return
        w.cardsAt = performance.now()
        requestAnimationFrame(() => requestAnimationFrame(() => { w.paintedAt = performance.now() }))
      }).observe(document, { childList: true, subtree: true })
    })
    if (throttled) {
      const cdp = await context.newCDPSession(page)
      await cdp.send('Network.enable')
      await cdp.send('Network.emulateNetworkConditions', { offline: false, ...PHONE })
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN })
    }
    await page.goto('/alarms/monsters')
    await page.getByText(`Showing ${ALARMS} of ${ALARMS}`).waitFor({ timeout: 120_000 })
    await page.waitForFunction(() => (window as unknown as { paintedAt?: number }).paintedAt !== undefined)
    const { render, painted } = await page.evaluate(() => {
      const list = performance.getEntriesByType('resource').find((e) => (e as PerformanceResourceTiming).name.endsWith('/api/monsters')) as PerformanceResourceTiming
      const w = window as unknown as { cardsAt: number, paintedAt: number }
      return { render: w.cardsAt - list.responseEnd, painted: w.paintedAt - list.responseEnd }
    })
    // A re-sort renders the whole list again from 1,000 rows: timed from the change to the next frame.
    const resort = await page.evaluate(async () => await new Promise<number>((resolve) => {
      const select = document.querySelector<HTMLSelectElement>('.sort select') as HTMLSelectElement
      const start = performance.now()
      select.value = 'number'
      select.dispatchEvent(new Event('change', { bubbles: true }))
      requestAnimationFrame(() => { setTimeout(() => { resolve(performance.now() - start) }, 0) })
    }))
    // The editor opened over the list ("Add alarm", as a member adds one more): from the tap to the
    // frame that shows the pokemon grid's tiles, rendered.
    await untilIdle(page)
    const editor = await page.evaluate(`(async () => {${PAGE_TIMING}
      const start = performance.now()
      const shown = changed(() => document.querySelector('[data-testid=pokemon-grid] .tile') !== null)
      ;[...document.querySelectorAll('button')].find((b) => b.textContent.trim() === 'Add alarm').click()
      await shown
      await rendered()
      return performance.now() - start
    })()`) as number
    return { render, painted, resort, editor }
  } finally {
    await context.close()
  }
}

const browser = await launchChromium()
try {
  const plain: ListRun[] = []
  const phone: ListRun[] = []
  for (let i = 0; i < RUNS; i++) {
    plain.push(await loadList(browser, false))
    phone.push(await loadList(browser, true))
  }
  const show = (runs: ListRun[]) => `render ${median(runs.map((r) => r.render)).toFixed(0)} ms [${spread(runs.map((r) => r.render))}] ` +
    `(painted ${median(runs.map((r) => r.painted)).toFixed(0)} ms), re-sort ${median(runs.map((r) => r.resort)).toFixed(0)} ms, ` +
    `editor opened ${median(runs.map((r) => r.editor)).toFixed(0)} ms [${spread(runs.map((r) => r.editor))}]`
  console.log(`alarm list with ${ALARMS} alarms, median of ${RUNS} [fastest–slowest]: unthrottled ${show(plain)}; throttled phone ${show(phone)}`)
  console.log(`ratio throttled/unthrottled (render): ${(median(phone.map((r) => r.render)) / median(plain.map((r) => r.render))).toFixed(1)}x`)

  const chunk = readdirSync(DIST).find((name) => name.startsWith('AlarmTypePage-') && name.endsWith('.js'))
  if (chunk !== undefined) {
    const file = join(DIST, chunk)
    console.log(`alarm page chunk (list + editor + sliders), as sent: ${(statSync(existsSync(`${file}.gz`) ? `${file}.gz` : file).size / 1024).toFixed(1)} KB gzip (${(statSync(file).size / 1024).toFixed(1)} KB raw)`)
  }

  const alarms = Array.from({ length: 50 }, (_, i) => ({ pokemon_id: i + 1, min_iv: 90, distance: 500 }))
  engine.requests.length = 0
  const start = performance.now()
  const res = await app.inject({ method: 'POST', url: '/api/monsters/batch', headers: { authorization: `Bearer ${token(BATCH_USER)}`, 'content-type': 'application/json' }, payload: JSON.stringify({ alarms }) })
  const took = performance.now() - start
  const calls = engine.requests.filter((r) => r.path.startsWith('/api/tracking/'))
  console.log(`create 50 pokemon alarms in one save: ${res.statusCode}, ${(res.json() as { created: number }).created} created in ${took.toFixed(0)} ms; ` +
    `engine calls: ${calls.length} (${calls.filter((r) => r.method === 'POST').length} write, ${calls.filter((r) => r.method === 'GET').length} reads)`)
} finally {
  await browser.close()
  await close()
}
