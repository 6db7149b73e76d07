import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib'
import t, { type Test } from 'tap'
import Fastify from 'fastify'
import errors from '../plugins/edge/errors.js'
import spa from '../plugins/edge/spa.js'
import compression from '../plugins/edge/compression.js'

/** A stand-in for client/dist, so these tests do not depend on a client build. */
function fakeDist (test: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'aw-spa-'))
  test.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  mkdirSync(join(dir, 'assets'))
  writeFileSync(join(dir, 'index.html'), '<!doctype html><div id="root"></div>')
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log(1)')
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
  return dir
}

async function build (test: Test, distDir: string, lines: string[] = []) {
  const stream = new Writable({ write (chunk: Buffer, _encoding, callback) { lines.push(chunk.toString()); callback() } })
  const app = Fastify({ logger: { level: 'warn', stream } })
  await app.register(errors)
  await app.register(compression)
  await app.register(spa, { distDir })
  app.get('/api/known', async () => ({ ok: true }))
  test.teardown(() => app.close())
  return app
}

const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }

t.test('hashed assets are cached for good, everything else is revalidated', async (t) => {
  const app = await build(t, fakeDist(t))
  const asset = await app.inject({ url: '/assets/index-abc123.js' })
  t.equal(asset.statusCode, 200)
  t.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable')
  for (const url of ['/', '/index.html', '/favicon.svg']) {
    const res = await app.inject({ url, headers: html })
    t.equal(res.statusCode, 200, url)
    t.equal(res.headers['cache-control'], 'no-cache', url)
  }
})

t.test('browser navigations to client routes get index.html', async (t) => {
  const app = await build(t, fakeDist(t))
  for (const method of ['GET', 'HEAD'] as const) {
    const res = await app.inject({ method, url: '/alarms/pokemon?sort=name', headers: html })
    t.equal(res.statusCode, 200, method)
    t.match(res.headers['content-type'], /^text\/html/, method)
    t.equal(res.headers['cache-control'], 'no-cache', method)
  }
  const res = await app.inject({ url: '/login', headers: html })
  t.match(res.body, /<div id="root">/)
})

t.test('API paths, non-HTML requests and other methods keep the JSON 404', async (t) => {
  const app = await build(t, fakeDist(t))
  const cases = [
    { method: 'GET', url: '/api/unknown?x=1', headers: html, error: 'Route GET /api/unknown not found' },
    { method: 'GET', url: '/api', headers: html, error: 'Route GET /api not found' },
    { method: 'GET', url: '/assets/missing.js', headers: { accept: '*/*' }, error: 'Route GET /assets/missing.js not found' },
    { method: 'GET', url: '/login', headers: { accept: 'application/json' }, error: 'Route GET /login not found' },
    { method: 'POST', url: '/login', headers: html, error: 'Route POST /login not found' }
  ] as const
  for (const { method, url, headers, error } of cases) {
    const res = await app.inject({ method, url, headers })
    t.equal(res.statusCode, 404, `${method} ${url}`)
    t.same(res.json(), { error }, `${method} ${url}`)
  }
  t.same((await app.inject({ url: '/api/known', headers: html })).json(), { ok: true }, 'real API routes still win')
})

t.test('without a client build the plugin warns once and serves nothing', async (t) => {
  const lines: string[] = []
  const app = await build(t, join(tmpdir(), 'aw-spa-does-not-exist'), lines)
  await app.ready()
  const warnings = lines.map((line) => JSON.parse(line) as { level: number, msg: string }).filter((l) => l.level === 40)
  t.equal(warnings.length, 1)
  t.match(warnings[0]?.msg, /client build not found/)
  const res = await app.inject({ url: '/login', headers: html })
  t.equal(res.statusCode, 404)
  t.same(res.json(), { error: 'Route GET /login not found' })
})

t.test('precompressed copies go to clients that accept them, with the matching encoding, compressed once', async (t) => {
  const dist = fakeDist(t)
  const plain = 'console.log("a long enough script")\n'.repeat(64)
  writeFileSync(join(dist, 'assets', 'app-1a2b3c.js'), plain)
  writeFileSync(join(dist, 'assets', 'app-1a2b3c.js.br'), brotliCompressSync(plain))
  writeFileSync(join(dist, 'assets', 'app-1a2b3c.js.gz'), gzipSync(plain))
  const app = await build(t, dist)
  const url = '/assets/app-1a2b3c.js'

  const br = await app.inject({ url, headers: { 'accept-encoding': 'gzip, deflate, br' } })
  t.equal(br.headers['content-encoding'], 'br')
  t.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable')
  t.match(br.headers['content-type'], /javascript/)
  t.equal(brotliDecompressSync(br.rawPayload).toString(), plain)

  const gz = await app.inject({ url, headers: { 'accept-encoding': 'gzip' } })
  t.equal(gz.headers['content-encoding'], 'gzip')
  t.equal(gunzipSync(gz.rawPayload).toString(), plain)

  const identity = await app.inject({ url })
  t.equal(identity.headers['content-encoding'], undefined)
  t.equal(identity.body, plain)
})
