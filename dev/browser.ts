import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Page, Request } from 'playwright-core'
import { DEMO_PASSWORD } from './demo.js'

export { CHROMIUM, launchChromium } from './chromium.js'

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

const DIST = fileURLToPath(new URL('../client/dist', import.meta.url))

/**
 * The script files the page asks for while `action` runs (each once: reloads hit the cache), and their
 * size as the server sends them to a gzip client: the build's .gz copy, or the file itself where the
 * build kept none (under 1 KB).
 */
export async function scriptsLoaded (page: Page, action: () => Promise<void>, seen: Set<string>): Promise<{ bytes: number, files: string[] }> {
  const files: string[] = []
  const listener = (request: Request): void => {
    const path = new URL(request.url()).pathname
    if (request.resourceType() === 'script' && !seen.has(path)) {
      seen.add(path)
      files.push(path)
    }
  }
  page.on('request', listener)
  await action()
  page.off('request', listener)
  const size = (path: string): number => {
    const file = join(DIST, path)
    return existsSync(`${file}.gz`) ? statSync(`${file}.gz`).size : statSync(file).size
  }
  return { bytes: files.reduce((sum, path) => sum + size(path), 0), files }
}
