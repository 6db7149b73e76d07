import { chromium, type Browser } from 'playwright-core'

/** Debian's Chromium, headless, as the browser tests, the demo check and the screenshot script drive it. */
export const CHROMIUM = '/usr/bin/chromium'

/** A headless Chromium; every launch starts on a new, empty profile of its own. */
export async function launchChromium (): Promise<Browser> {
  return await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Without the background-networking flags Chromium keeps dialling out, which a closed network refuses.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']
  })
}
