import { createReadStream, existsSync, statSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import type { Test } from '../helper.js'

const FIXTURE = fileURLToPath(new URL('../fixtures/uicons/', import.meta.url))
const TYPES: Record<string, string> = { '.json': 'application/json', '.png': 'image/png', '.webp': 'image/webp' }

/**
 * A UICONS icon set served as a static host serves one (GitHub raw, a CDN, nginx): `test/fixtures/uicons`
 * under `/set`, a root `index.json` plus one in every folder, as the spec's create_index writes them.
 * `rootIndex = false` answers 404 for the root index (a set published with folder indexes only);
 * `down` answers 503 for everything. `requests` lists every path asked for.
 */
export async function startUiconsFake () {
  const fake = {
    base: '',
    origin: '',
    rootIndex: true,
    down: false,
    requests: [] as string[],
    close: async () => {}
  }
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)
    fake.requests.push(path)
    if (fake.down) { res.writeHead(503).end(); return }
    if (!path.startsWith('/set/') || (path === '/set/index.json' && !fake.rootIndex)) { res.writeHead(404).end(); return }
    const file = normalize(join(FIXTURE, path.slice('/set/'.length)))
    if (!file.startsWith(FIXTURE) || !existsSync(file) || !statSync(file).isFile()) { res.writeHead(404).end(); return }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'access-control-allow-origin': '*' })
    createReadStream(file).pipe(res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  fake.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  fake.base = `${fake.origin}/set`
  fake.close = async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return fake
}

/**
 * Every image on the page: loaded with a size, a text alternative, and a name the fixture set holds
 * (never guessed); and no icon was asked of the fake that the set lacks. Answers how many were checked.
 */
export async function imagesAllDrawn (t: Test, page: Page, icons: { requests: string[] }): Promise<number> {
  // Images below the fold load lazily: asked for now, so that every one can be checked.
  await page.evaluate(() => { for (const img of document.images) img.loading = 'eager' })
  await page.waitForFunction(() => [...document.images].every((img) => img.complete))
  const images = await page.evaluate(() => [...document.images].map((img) => ({ src: img.src, width: img.naturalWidth, alt: img.getAttribute('alt') })))
  for (const image of images) {
    t.ok(image.width > 0, `drawn: ${image.src}`)
    t.ok(image.alt !== null && image.alt !== '', `has a text alternative: ${image.src}`)
    t.ok(existsSync(FIXTURE + new URL(image.src).pathname.replace('/set/', '')), `in the set: ${image.src}`)
  }
  const asked = icons.requests.filter((p) => !p.endsWith('index.json'))
  t.same(asked.filter((p) => !existsSync(FIXTURE + p.replace('/set/', ''))), [], 'no icon was asked for that the set lacks')
  return images.length
}
