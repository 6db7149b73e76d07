import { chromium, type Browser, type Page } from 'playwright-core'
import { DEMO_PASSWORD } from './demo.js'

/** Debian's Chromium, headless, as the browser tests and the screenshot script drive it. */
export const CHROMIUM = '/usr/bin/chromium'

export async function launchChromium (): Promise<Browser> {
  return await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // Without the background-networking flags Chromium keeps dialling out, which a closed network refuses.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']
  })
}

/**
 * Signs a demo account in the way a person does: the login page sends the browser to the development
 * identity provider, whose form takes the username and the demo password, and the provider sends it
 * back signed in. Resolves on the start page.
 */
export async function signInAs (page: Page, baseUrl: string, username: string): Promise<void> {
  await page.goto(`${baseUrl}/login`)
  await page.getByLabel('Username').fill(username)
  await page.getByLabel('Password').fill(DEMO_PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL(`${baseUrl}/`)
}
