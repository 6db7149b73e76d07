import { chromium, type Browser, type BrowserContext, type BrowserContextOptions } from 'playwright-core'

/** Debian's Chromium, headless, as the browser tests, the demo check and the screenshot script drive it. */
export const CHROMIUM = '/usr/bin/chromium'

// Without the background-networking flags Chromium keeps dialling out, which a closed network refuses.
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']

/** A headless Chromium; every launch starts on a new, empty profile of its own. */
export async function launchChromium (): Promise<Browser> {
  return await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS })
}

/**
 * A headless Chromium on a profile kept in `userDataDir`, not off the record like launchChromium's
 * contexts: an off-the-record profile installs no app (Chromium says `in-incognito`).
 */
export async function launchPersistentChromium (userDataDir: string, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  return await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, ...options })
}
