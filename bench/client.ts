/**
 * `npm run bench:client`: what a phone downloads and waits for on the way in.
 * - The JavaScript of the sign-in path as sent to a gzip client (over plain http browsers ask for no
 *   brotli; over https the brotli copies are smaller still): the login page alone, and login → signed in
 *   on the start page.
 * - First render of the login page (first contentful paint, and the sign-in button shown) on a
 *   throttled phone profile (CDP: 4x CPU slowdown, 150 ms latency, 1.6 Mbit/s down, 750 kbit/s up,
 *   360 px viewport), next to the same page unthrottled in the same run; the ratio is printed.
 * Runs against the demo pieces (npm run demo's startDemo) with the built client.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser } from 'playwright-core'
import { launchChromium, scriptsLoaded, signInAs } from '../dev/browser.js'
import { startDemo } from '../dev/demo.js'
import { median } from './stats.js'

const PHONE = { latency: 150, downloadThroughput: 1_600_000 / 8, uploadThroughput: 750_000 / 8 }
const CPU_SLOWDOWN = 4
const RUNS = 5

interface Load { fcp: number, ready: number }

/** Loads /login in a fresh context; times from navigation start, read from the page's own clock. */
async function loadLogin (browser: Browser, base: string, throttled: boolean): Promise<Load> {
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true })
  try {
    const page = await context.newPage()
    if (throttled) {
      const cdp = await context.newCDPSession(page)
      await cdp.send('Network.enable')
      await cdp.send('Network.emulateNetworkConditions', { offline: false, ...PHONE })
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN })
    }
    await page.goto(`${base}/login?loggedout=1`)
    await page.getByRole('link', { name: /^Sign in with/ }).first().waitFor()
    const ready = await page.evaluate(() => performance.now())
    const fcp = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN)
    return { fcp, ready }
  } finally {
    await context.close()
  }
}

const DIST = fileURLToPath(new URL('../client/dist', import.meta.url))

/** Every script of the build, as sent gzip-compressed. */
function allScripts (): number {
  const assets = join(DIST, 'assets')
  return readdirSync(assets).filter((name) => name.endsWith('.js')).reduce((sum, name) => {
    const file = join(assets, name)
    return sum + (existsSync(`${file}.gz`) ? statSync(`${file}.gz`).size : statSync(file).size)
  }, 0)
}

const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`

const demo = await startDemo({ port: 0, dbPrefix: `aw_bench_client_${process.pid}_${randomBytes(2).toString('hex')}`, logLevel: 'silent' })
const browser = await launchChromium()
try {
  const context = await browser.newContext({ baseURL: demo.url })
  const page = await context.newPage()
  const seen = new Set<string>()
  const login = await scriptsLoaded(page, async () => {
    await page.goto('/login?loggedout=1')
    await page.getByRole('link', { name: /^Sign in with/ }).first().waitFor()
  }, seen)
  const signIn = await scriptsLoaded(page, async () => {
    await signInAs(page, demo.url, 'admin')
    await page.getByRole('heading', { name: /^Hello, / }).waitFor()
  }, seen)
  await context.close()
  console.log(`sign-in path JavaScript as sent (gzip): login page ${kb(login.bytes)} in ${login.files.length} files; ` +
    `login -> start page ${kb(login.bytes + signIn.bytes)} in ${login.files.length + signIn.files.length} files`)
  console.log(`  login page: ${login.files.join(' ')}`)
  console.log(`  then: ${signIn.files.join(' ')}`)
  console.log(`  the login page's share of all client JavaScript: ${kb(login.bytes)} of ${kb(allScripts())}`)

  const plain: Load[] = []
  const phone: Load[] = []
  for (let i = 0; i < RUNS; i++) {
    plain.push(await loadLogin(browser, demo.url, false))
    phone.push(await loadLogin(browser, demo.url, true))
  }
  const show = (runs: Load[]): string => `first paint ${median(runs.map((r) => r.fcp)).toFixed(0)} ms, sign-in button ${median(runs.map((r) => r.ready)).toFixed(0)} ms`
  console.log(`login page, median of ${RUNS}: unthrottled ${show(plain)}; throttled phone ${show(phone)}`)
  console.log(`ratio throttled/unthrottled (sign-in button): ${(median(phone.map((r) => r.ready)) / median(plain.map((r) => r.ready))).toFixed(1)}x`)
} finally {
  await browser.close()
  await demo.close()
}
