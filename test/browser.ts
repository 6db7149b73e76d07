import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import tap from 'tap'
import type { Browser, BrowserContext, BrowserContextOptions, Locator, Page } from 'playwright-core'
import { CHROMIUM, launchChromium, launchPersistentChromium } from '../dev/chromium.js'
import type { Connection } from 'mariadb'
import { bearer, build, rootConnection, seedHuman, type BuildOptions, type Test, type TestApp } from './helper.js'
import { golbatDatabase } from './fakes/golbat-db.js'
import type { SeedHuman } from './fakes/engine-db.js'
import { readStrings } from '../scripts/i18n-missing.js'
import { choosePokemon } from './alarm-form.js'

export { choosePokemon }

/**
 * The whole service (real databases, the engine fake) with the built client, driven by Debian's
 * Chromium: what a member sees on a phone or a desktop.
 */
export { CHROMIUM }
const CLIENT_BUILD = fileURLToPath(new URL('../client/dist/index.html', import.meta.url))

/** Why the browser tests cannot run; `npm test` builds the client first, so this is a failure, never a skip. */
export const browserMissing = (): string | undefined => !existsSync(CHROMIUM)
  ? `${CHROMIUM} is not installed (apt-get install chromium)`
  : !existsSync(CLIENT_BUILD) ? 'the client is not built (npm run build:client)' : undefined

/** A headless Chromium of its own, for the files that start the service their own way; one on a kept profile, for installing the app. */
export { launchChromium, launchPersistentChromium }

let fileBrowser: Promise<Browser> | undefined

/**
 * The test file's one Chromium, launched on first use and closed when the file's tests end. A launch
 * costs seconds of CPU; what a test must not inherit (cookies, storage, cache) lives in a browser
 * context, and every sign-in opens a context of its own.
 */
export async function sharedChromium (): Promise<Browser> {
  fileBrowser ??= launchChromium().then((browser) => {
    tap.teardown(async () => { await browser.close() })
    return browser
  })
  return await fileBrowser
}

/**
 * A browser context for a test: a profile of its own, without the app's service worker. Installing the
 * worker downloads the whole precache (every page's code, about 2 MB) in the background of each new
 * profile: a fifth of a browser test's CPU, for a worker none of these tests use. The installable app's
 * own test (test/children/push-app-browser.ts) keeps it: on a profile of its own, and in a sign-in that
 * passes `{ serviceWorkers: 'allow' }`.
 */
export async function testContext (browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  return await browser.newContext({ serviceWorkers: 'block', ...options })
}

/** Who signs in: seeded into the engine first unless `seeded`; an admin if `isAdmin`; `sid` names the sign-in's server session. */
export type BrowserMember = SeedHuman & { seeded?: boolean, isAdmin?: boolean, sid?: string }

/** What the client keeps after a sign-in through the chat platform: its token, and how the member signed in. */
async function signedInStorage (testApp: TestApp, human: BrowserMember): Promise<Array<{ name: string, value: string }>> {
  if (human.seeded !== true) await seedHuman(testApp, human)
  const token = bearer(testApp.app, {
    userId: human.id, username: human.name ?? human.id, profileNo: human.currentProfileNo ?? 1, isAdmin: human.isAdmin ?? false, ...(human.sid !== undefined && { sid: human.sid })
  }).authorization.slice('Bearer '.length)
  return [{ name: 'aw.token', value: token }, { name: 'aw.signIn', value: 'discord' }]
}

/** Signs an open `page` in as `human` (its profile is already made: the site's storage is written from the login page) and opens `path`. */
export async function signInPage (testApp: TestApp, page: Page, human: BrowserMember, path = '/'): Promise<void> {
  const storage = await signedInStorage(testApp, human)
  await page.goto('/login?loggedout=1')
  await page.evaluate((items) => { for (const { name, value } of items) localStorage.setItem(name, value) }, storage)
  await page.goto(path)
}

export const PHONE = { width: 360, height: 740 }
export const DESKTOP = { width: 1280, height: 860 }

export interface BrowserApp {
  testApp: TestApp
  base: string
  browser: Browser
  /** A new browser profile signed in as `human`, on `path` (`context` adds to testContext's options). */
  signIn: (t: Test, human: BrowserMember, path?: string, viewport?: { width: number, height: number }, context?: BrowserContextOptions) => Promise<Page>
  /** Engine rows of one table for one user. */
  rows: (table: string, userId: string) => Promise<Array<Record<string, unknown>>>
}

export async function startBrowserApp (t: Test, options: BuildOptions = {}): Promise<BrowserApp> {
  const testApp = await build(t, options)
  await testApp.app.listen({ host: '127.0.0.1', port: 0 })
  const address = testApp.app.server.address()
  const base = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`
  const browser = await sharedChromium()

  return {
    testApp,
    base,
    browser,
    async signIn (test, human, path = '/', viewport = DESKTOP, options = {}) {
      // The profile starts with the site's storage written, so the first page load is already signed in.
      const storageState = { cookies: [], origins: [{ origin: base, localStorage: await signedInStorage(testApp, human) }] }
      const context = await testContext(browser, { baseURL: base, viewport, storageState, ...options })
      test.teardown(async () => { await context.close() })
      const page = await context.newPage()
      await page.goto(path)
      return page
    },
    async rows (table, userId) {
      return await testApp.app.engineDb.pool.query(`SELECT * FROM \`${table}\` WHERE id = ? ORDER BY uid`, [userId]) as Array<Record<string, unknown>>
    }
  }
}

/**
 * The same with a scanner database of the file's own (Golbat's schema) configured, and a connection to it
 * for the test to seed what the scanner saw.
 */
export async function startScannerBrowserApp (t: Test, options: BuildOptions = {}): Promise<BrowserApp & { scanner: Connection }> {
  const database = await golbatDatabase()
  const scanner = await rootConnection()
  await scanner.query(`USE \`${database}\``)
  t.teardown(() => scanner.end())
  const env = await startBrowserApp(t, { ...options, env: { ...options.env, SCANNER_DB_HOST: '127.0.0.1', SCANNER_DB_USER: 'root', SCANNER_DB_NAME: database } })
  return { ...env, scanner }
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** axe-core's WCAG 2.1 A/AA rules on the page as it is now: the ids and targets of what fails. */
export async function axeViolations (page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the site's CSP (rightly) refuses inline scripts.
  if (!await page.evaluate(() => 'axe' in window)) await page.evaluate(AXE_SOURCE)
  return await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: Array<{ id: string, nodes: Array<{ target: unknown[] }> }> }> } }).axe
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
    return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
  })
}

/** Whether the page fits its width: nothing makes a phone scroll sideways. */
export const noSidewaysScroll = async (page: Page): Promise<boolean> => await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)

/** axe-core on the page as it is, on a phone and on a desktop (and no sideways scroll on the phone); the page keeps the last size. */
export async function axeBothSizes (test: Test, page: Page, what: string): Promise<void> {
  for (const [size, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
    await page.setViewportSize(viewport)
    test.same(await axeViolations(page), [], `axe-core finds nothing on ${what} (${size})`)
    if (size === 'phone') test.ok(await noSidewaysScroll(page), `${what} does not scroll sideways at 360 px`)
  }
}

/** Counts the page's requests for one path from now on: `count()` says how many were made so far. */
export function countRequests (page: Page, path: string): () => number {
  let count = 0
  page.on('request', (request) => { if (new URL(request.url()).pathname === path) count++ })
  return () => count
}

/** On an alarm page without alarms: waits for the empty list, opens a new alarm's editor and picks one pokemon in it; returns the editor. */
export async function startPokemonAlarm (page: Page, search: string, name: string): Promise<Locator> {
  await page.getByText('No alarms of this type yet.').waitFor()
  await page.getByRole('button', { name: 'Add alarm' }).click()
  await choosePokemon(page, search, name)
  return page.getByRole('dialog')
}

/** Sets the IV slider's lower number field in an open alarm form; a typed value counts once the field is left. */
export async function setMinIv (page: Page, value: string): Promise<void> {
  const field = page.getByRole('textbox', { name: 'IV from' })
  await field.fill(value)
  await field.press('Tab')
}

/** Every text the page shows or reads out: text nodes (hidden menus included) and labelling attributes. */
export async function pageTexts (page: Page): Promise<string[]> {
  return await page.evaluate(() => {
    const texts: string[] = []
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      const parent = node.parentElement
      if (parent !== null && !['SCRIPT', 'STYLE'].includes(parent.tagName)) texts.push(node.textContent ?? '')
    }
    for (const element of document.body.querySelectorAll('[aria-label], [title], [placeholder], [alt]')) {
      for (const name of ['aria-label', 'title', 'placeholder', 'alt']) {
        const value = element.getAttribute(name)
        if (value !== null) texts.push(value)
      }
    }
    return texts.map((text) => text.trim()).filter((text) => text !== '')
  })
}

const PLURAL_SUFFIX = /_(zero|one|two|few|many|other)$/
const english = readStrings('en')
// English strings by their text, to tell a string that fell back to English from one that reads the same.
const englishKeys = new Map<string, string[]>()
for (const [key, value] of english) englishKeys.set(String(value), [...(englishKeys.get(String(value)) ?? []), key.replace(PLURAL_SUFFIX, '')])
// A key's first part (`alarms.`, `picker.`) at the start of a word is how a missing key shows inside a sentence.
const RAW_KEY = new RegExp(`(^|[\\s"'(])(${[...new Set([...english.keys()].map((key) => key.split('.')[0]))].join('|')})\\.[A-Za-z0-9_]+`)

/**
 * What the page shows wrong for `language`: a `<html lang>` of another language, raw i18n keys (alone or
 * inside a sentence), unfilled `{{variables}}`, and English strings where the language has its own (a key
 * missing from a translation falls back to English, so a raw key alone would not show it). Empty when right.
 */
export async function translationSlips (page: Page, language: string): Promise<string[]> {
  const strings = language === 'en' ? english : readStrings(language)
  const slips: string[] = []
  const lang = await page.evaluate(() => document.documentElement.lang)
  if (lang !== language) slips.push(`<html lang="${lang}">`)
  for (const text of await pageTexts(page)) {
    if (/^[a-z][A-Za-z]*(\.[A-Za-z0-9_]+)+$/.test(text) || RAW_KEY.test(text)) slips.push(`raw key: ${text}`)
    else if (text.includes('{{')) slips.push(`unfilled variable: ${text}`)
    else if (language !== 'en') {
      const keys = englishKeys.get(text)
      if (keys !== undefined && keys.every((key) => strings.get(key) !== text && strings.get(`${key}_other`) !== text)) slips.push(`English: ${text}`)
    }
  }
  return slips
}
