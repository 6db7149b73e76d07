import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { INDEX_MAX_BYTES } from '../plugins/domain/icon-sets.js'
import { bearer, build, type Test } from './helper.js'
import { FAST_ENOUGH_MS, TIMEOUT_MS } from './engine-faults.js'

/**
 * The icon-set check of the site settings page (POST /api/admin/icon-sets/check) against a local
 * stand-in of an icon repository that serves the UICONS root index, errors, a slow answer, a body
 * without a length that goes on past the limit, and a redirect.
 */
async function iconRepository (t: Test): Promise<string> {
  const server: Server = createServer((req, res) => {
    switch (req.url) {
      case '/good/index.json':
        res.setHeader('content-type', 'application/json')
        res.end(JSON.stringify({ pokemon: ['1.png', '25.png'], gym: ['0.png'], raid: { egg: ['1.png'] }, reward: { item: ['1.png'], stardust: ['0.png'] }, type: ['1.png'], 'notes.txt': 'x' }))
        return
      case '/missing/index.json':
        res.statusCode = 404
        res.end('not found')
        return
      case '/html/index.json':
        res.end('<html>no</html>')
        return
      case '/slow/index.json':
        setTimeout(() => { res.end('{}') }, 20_000).unref()
        return
      case '/huge/index.json': {
        // No content-length: the reader has to stop by itself.
        const chunk = Buffer.alloc(256 * 1024, 0x20)
        let sent = 0
        const push = (): void => {
          while (sent <= INDEX_MAX_BYTES + chunk.length) {
            sent += chunk.length
            if (!res.write(chunk)) { res.once('drain', push); return }
          }
          res.end()
        }
        push()
        return
      }
      case '/moved/index.json':
        res.statusCode = 302
        res.setHeader('location', '/good/index.json')
        res.end()
        return
      default:
        res.statusCode = 404
        res.end()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => { resolve() }) }))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

t.test('an icon set is checked by its index: categories, or why not', async (t) => {
  const base = await iconRepository(t)
  // The fake listens on loopback, which an admin-given address may reach only when the operator allows it.
  const { app } = await build(t, { env: { FETCH_ALLOWED_HOSTS: '127.0.0.1' } })
  const admin = bearer(app, { userId: 'admin1', isAdmin: true })
  const check = async (url: string, headers = admin) => app.inject({ method: 'POST', url: '/api/admin/icon-sets/check', headers, payload: { url } })

  const good = await check(`${base}/good/`)
  t.equal(good.statusCode, 200)
  t.same(good.json(), { ok: true, categories: ['gym', 'pokemon', 'raid', 'raid/egg', 'reward', 'reward/item', 'reward/stardust', 'type'] }, 'folders and sub-folders, not plain values')

  t.same((await check(`${base}/missing`)).json(), { ok: false, problem: 'status', status: 404 })
  t.same((await check(`${base}/html`)).json(), { ok: false, problem: 'not_an_index' })
  t.same((await check(`${base}/moved`)).json(), { ok: false, problem: 'status', status: 302 }, 'a redirect is not followed')
  const huge = await check(`${base}/huge`)
  t.same(huge.json(), { ok: false, problem: 'too_large' }, 'a body past the limit is cut off')
  t.same((await check('http://127.0.0.1:1')).json(), { ok: false, problem: 'unreachable' })

  for (const url of ['ftp://example.com/icons', 'not an address', 'https://u:p@example.com/icons']) {
    const res = await check(url)
    t.equal(res.statusCode, 400, `${url} is refused`)
    t.match(res.json(), { details: [{ field: '/url' }] })
  }
  t.equal((await check(`${base}/good`, bearer(app, { userId: 'member1' }))).statusCode, 403, 'admins only')
})

t.test('a slow icon set answers "timeout" within the limit', async (t) => {
  const base = await iconRepository(t)
  // The fake listens on loopback, which an admin-given address may reach only when the operator allows it.
  const { app } = await build(t, { env: { FETCH_ALLOWED_HOSTS: '127.0.0.1', GAME_DATA_TIMEOUT_MS: String(TIMEOUT_MS) } })
  const started = Date.now()
  const res = await app.inject({ method: 'POST', url: '/api/admin/icon-sets/check', headers: bearer(app, { userId: 'admin1', isAdmin: true }), payload: { url: `${base}/slow` } })
  t.same(res.json(), { ok: false, problem: 'timeout' })
  t.ok(Date.now() - started < FAST_ENOUGH_MS, 'gave up after GAME_DATA_TIMEOUT_MS')
})

t.test('the check stays outside: loopback, private, link-local and unique-local addresses are refused, and nothing is asked', async (t) => {
  let asked = 0
  const listener = createServer((_req, res) => { asked++; res.end('{"pokemon":[]}') })
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => listener.close(() => resolve())))
  const port = (listener.address() as AddressInfo).port
  const { app } = await build(t)
  const admin = bearer(app, { userId: 'admin1', isAdmin: true })
  const check = async (url: string) => app.inject({ method: 'POST', url: '/api/admin/icon-sets/check', headers: admin, payload: { url } })
  const refused = [
    `http://127.0.0.1:${port}`, `http://127.1.2.3:${port}/icons`, 'http://10.0.0.8/icons', 'http://172.20.1.1/icons', 'http://192.168.1.1/icons',
    'http://169.254.169.254/latest', 'http://[::1]:1/icons', `http://[::ffff:127.0.0.1]:${port}`, 'http://[fc00::1]/icons', 'http://[fe80::1]/icons',
    // A name that resolves to loopback: refused after the lookup, on the address it would connect to.
    `http://localhost:${port}/icons`
  ]
  for (const url of refused) {
    const res = await check(url)
    t.equal(res.statusCode, 400, `${url} is refused`)
    t.match(res.json(), { error: /private or local network.*FETCH_ALLOWED_HOSTS/, details: [{ field: '/url', message: 'is a private or local address' }] })
  }
  t.equal(asked, 0, 'the local listener saw no request')
})

t.test('FETCH_ALLOWED_HOSTS lets the operator\'s own hosts through, by name or address', async (t) => {
  const base = await iconRepository(t)
  const port = new URL(base).port
  const { app } = await build(t, { env: { FETCH_ALLOWED_HOSTS: 'localhost, 127.0.0.1' } })
  const admin = bearer(app, { userId: 'admin1', isAdmin: true })
  for (const url of [`${base}/good`, `http://localhost:${port}/good`]) {
    const res = await app.inject({ method: 'POST', url: '/api/admin/icon-sets/check', headers: admin, payload: { url } })
    t.equal(res.statusCode, 200, url)
    t.equal(res.json().ok, true)
  }
})
