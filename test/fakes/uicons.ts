import { createReadStream, existsSync, statSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'

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
