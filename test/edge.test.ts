import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { Redis } from 'ioredis'
import Fastify, { type FastifyInstance } from 'fastify'
import configPlugin, { loadConfig } from '../plugins/base/config.js'
import securityHeaders, { RESOURCE_HEADERS } from '../plugins/edge/security-headers.js'
import spa from '../plugins/edge/spa.js'
import { build, bearer, JWT_SECRET, seedHuman } from './helper.js'

t.test('unknown /api routes answer a JSON 404', async (t) => {
  const { app } = await build(t)
  const res = await app.inject({ method: 'GET', url: '/api/does-not-exist?x=1' })
  t.equal(res.statusCode, 404)
  t.same(res.json(), { error: 'Route GET /api/does-not-exist not found' })
})

t.test('bad JSON and wrong content types are clear 4xx answers', async (t) => {
  const { app } = await build(t)
  const headers = { ...bearer(app, { userId: 'admin', isAdmin: true }), 'content-type': 'application/json' }
  const broken = await app.inject({ method: 'PUT', url: '/api/settings/site_name', headers, payload: '{"value":' })
  t.equal(broken.statusCode, 400)
  t.type(broken.json().error, 'string')
  t.notMatch(broken.body, /at .*\.js/)
  const text = await app.inject({ method: 'PUT', url: '/api/settings/site_name', headers: { ...headers, 'content-type': 'application/xml' }, payload: '<value/>' })
  t.equal(text.statusCode, 415)
  t.type(text.json().error, 'string')
})

t.test('validation failures list the fields', async (t) => {
  const { app } = await build(t)
  const res = await app.inject({
    method: 'PUT',
    url: '/api/settings/site_name',
    headers: bearer(app, { userId: 'admin', isAdmin: true }),
    payload: { value: 5, extra: true }
  })
  t.equal(res.statusCode, 400)
  const body = res.json()
  t.equal(body.error, 'Invalid request')
  t.ok(body.details.some((d: { field: string }) => d.field === '/value'), 'names /value')
  t.ok(body.details.some((d: { field: string }) => d.field === '/extra'), 'names the unknown field')
})

t.test('HTML answers carry the whole document policy', async (t) => {
  const { app } = await build(t, { routes: (app) => app.get('/_page', async (_request, reply) => reply.type('text/html; charset=utf-8').send('<!doctype html>')) })
  const res = await app.inject({ method: 'GET', url: '/_page' })
  t.equal(res.headers['x-content-type-options'], 'nosniff')
  t.equal(res.headers['x-frame-options'], 'DENY')
  t.equal(res.headers['referrer-policy'], 'same-origin')
  t.equal(res.headers['x-xss-protection'], '0')
  t.equal(res.headers['cross-origin-opener-policy'], 'same-origin')
  t.equal(res.headers['cross-origin-resource-policy'], 'same-origin')
  t.equal(res.headers['origin-agent-cluster'], '?1')
  t.equal(res.headers['x-dns-prefetch-control'], 'off')
  t.equal(res.headers['x-download-options'], 'noopen')
  t.equal(res.headers['x-permitted-cross-domain-policies'], 'none')
  t.match(res.headers['content-security-policy'], /default-src 'self'/)
  t.match(res.headers['content-security-policy'], /frame-ancestors 'none'/)
  t.match(res.headers['content-security-policy'], /script-src 'self' https:\/\/telegram.org/)
  t.match(res.headers['content-security-policy'], /object-src 'none'/)
})

t.test('a revalidated page (304) carries the document policy, the one browsers merge into the cached page', async (t) => {
  const { app } = await build(t, {
    routes: (app) => app.get('/_page', async (request, reply) => {
      if (request.headers['if-none-match'] === '"v1"') return reply.code(304).header('etag', '"v1"').send()
      return reply.type('text/html; charset=utf-8').header('etag', '"v1"').send('<!doctype html>')
    })
  })
  const first = await app.inject({ method: 'GET', url: '/_page', headers: { accept: 'text/html' } })
  t.match(first.headers['content-security-policy'], /default-src 'self'/)
  const again = await app.inject({ method: 'GET', url: '/_page', headers: { accept: 'text/html', 'if-none-match': '"v1"' } })
  t.equal(again.statusCode, 304)
  t.equal(again.headers['content-security-policy'], first.headers['content-security-policy'], 'the same policy as the page')
  t.equal(again.headers['x-content-type-options'], 'nosniff')
})

t.test('the client\'s files: a 304 carries the same headers as the 200, for the page and for an asset', async (t) => {
  const dist = mkdtempSync(join(tmpdir(), 'aw-edge-'))
  t.teardown(() => { rmSync(dist, { recursive: true, force: true }) })
  mkdirSync(join(dist, 'assets'))
  writeFileSync(join(dist, 'index.html'), '<!doctype html><div id="root"></div>')
  writeFileSync(join(dist, 'assets', 'index-abc123.js'), 'console.log(1)')
  const app = Fastify({ logger: false })
  t.teardown(() => app.close())
  await app.register(configPlugin, { config: loadConfig({ NODE_ENV: 'development', JWT_SECRET }) })
  await app.register(securityHeaders)
  await app.register(spa, { distDir: dist })
  const navigation = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' }
  const headersOf = (res: { headers: Record<string, unknown> }) => Object.fromEntries(
    ['content-security-policy', 'x-frame-options', 'x-content-type-options', 'referrer-policy', 'cross-origin-opener-policy'].map((name) => [name, res.headers[name]]))

  for (const [what, url, headers] of [['the page', '/', navigation], ['a client route', '/alarms', navigation], ['an asset', '/assets/index-abc123.js', { accept: '*/*' }]] as const) {
    const page = await app.inject({ url, headers })
    t.equal(page.statusCode, 200, what)
    const etag = page.headers.etag as string
    t.ok(etag, `${what} has an ETag`)
    const again = await app.inject({ url, headers: { ...headers, 'if-none-match': etag } })
    t.equal(again.statusCode, 304, `${what} revalidates`)
    t.same(headersOf(again), headersOf(page), `${what}: the 304 carries the 200's headers`)
    if (what === 'an asset') t.equal(page.headers['content-security-policy'], RESOURCE_HEADERS['content-security-policy'], 'an asset has the resource policy')
    else t.match(page.headers['content-security-policy'], /script-src 'self'/, `${what} has the document policy`)
  }
})

t.test('JSON answers: no sniffing, no framing, a policy that allows nothing, headers under 400 bytes', async (t) => {
  const { app } = await build(t)
  for (const url of ['/api/version', '/api/does-not-exist']) {
    const res = await app.inject({ method: 'GET', url })
    t.match(res.headers['content-type'], /^application\/json/, url)
    t.equal(res.headers['x-content-type-options'], 'nosniff', url)
    t.equal(res.headers['x-frame-options'], 'DENY', url)
    t.equal(res.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'", url)
    const bytes = `HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n\r\n`.length +
      Object.entries(res.headers).reduce((sum, [name, value]) => sum + Buffer.byteLength(`${name}: ${String(value)}\r\n`), 0)
    t.ok(bytes <= 400, `${url}: ${bytes} header bytes`)
  }
})

t.test('Strict-Transport-Security on https answers only', async (t) => {
  const { app } = await build(t, { env: { PROXY_KNOWN_PROXIES: '10.0.0.5' } })
  const viaProxy = await app.inject({ method: 'GET', url: '/api/version', remoteAddress: '10.0.0.5', headers: { 'x-forwarded-proto': 'https' } })
  t.equal(viaProxy.headers['strict-transport-security'], 'max-age=31536000')
  const plain = await app.inject({ method: 'GET', url: '/api/version', remoteAddress: '10.0.0.5' })
  t.equal(plain.headers['strict-transport-security'], undefined, 'plain http')
  const forged = await app.inject({ method: 'GET', url: '/api/version', remoteAddress: '203.0.113.9', headers: { 'x-forwarded-proto': 'https' } })
  t.equal(forged.headers['strict-transport-security'], undefined, 'an untrusted peer saying https')

  const { app: off } = await build(t, { env: { PROXY_KNOWN_PROXIES: '10.0.0.5', HSTS_MAX_AGE: '0' } })
  const none = await off.inject({ method: 'GET', url: '/api/version', remoteAddress: '10.0.0.5', headers: { 'x-forwarded-proto': 'https' } })
  t.equal(none.headers['strict-transport-security'], undefined, 'HSTS_MAX_AGE=0')
})

t.test('CORS allows only the configured origins', async (t) => {
  const { app } = await build(t, { env: { CORS_ORIGIN: 'https://alarms.example.org,https://beta.example.org' } })
  for (const origin of ['https://alarms.example.org', 'https://beta.example.org']) {
    const res = await app.inject({ method: 'OPTIONS', url: '/api/version', headers: { origin, 'access-control-request-method': 'GET' } })
    t.equal(res.headers['access-control-allow-origin'], origin)
    t.equal(res.headers['access-control-allow-credentials'], 'true')
  }
  const evil = await app.inject({ method: 'GET', url: '/api/version', headers: { origin: 'https://evil.example' } })
  t.equal(evil.headers['access-control-allow-origin'], undefined)
})

t.test('version', async (t) => {
  const { app } = await build(t, { env: { BUILD_VERSION: '1.2.3', BUILD_REVISION: '0123456789abcdef' } })
  const res = await app.inject({ method: 'GET', url: '/api/version' })
  t.same(res.json(), { version: '1.2.3', revision: '0123456789abcdef', revisionShort: '0123456', buildDate: 'unknown', environment: 'production' })
})

t.test('a hanging engine: one engine timeout per request at most, then 503 at once; health within 2 s', async (t) => {
  const testApp = await build(t, { env: { ENGINE_BREAKER_SECONDS: '5' } })
  const { app, engine, clock } = testApp
  await seedHuman(testApp, { id: '1001' })
  const headers = bearer(app, { userId: '1001' })
  const timed = async (url: string) => {
    const started = performance.now()
    const res = await app.inject({ method: 'GET', url, headers })
    return { status: res.statusCode, ms: performance.now() - started, body: res.json() }
  }

  engine.hang()
  const health = await timed('/api/health')
  t.equal(health.status, 503)
  t.ok(health.ms < 2000, `health answered in ${health.ms.toFixed(0)} ms`)
  t.match(health.body.checks.engineApi, { ok: false })

  // The block check gives up after its own short budget (failing open), and the route's call gets what
  // is left of ENGINE_TIMEOUT_MS (2 s here): one timeout for the whole request, then a 504.
  const first = await timed('/api/monsters')
  t.equal(first.status, 504, 'first alarm read: timed out')
  t.ok(first.ms < 2000 + 500, `first alarm read answered in ${first.ms.toFixed(0)} ms`)

  const next = await timed('/api/monsters')
  t.equal(next.status, 503, 'known down: fails fast')
  t.match(next.body.error, /not answering/)
  t.ok(next.ms < 500, `in ${next.ms.toFixed(0)} ms`)
  const quickHealth = await timed('/api/health')
  t.ok(quickHealth.ms < 500, 'health does not wait either while the engine is known down')

  engine.reset()
  clock.advance(5000)
  t.equal((await timed('/api/health')).status, 200, 'after the open period one trial call goes out (here the health probe)')
  t.equal((await timed('/api/monsters')).status, 200, 'and its answer closes the breaker')
})

t.test('health reports each dependency with its latency', async (t) => {
  const testApp = await build(t)
  const ok = await testApp.app.inject({ method: 'GET', url: '/api/health' })
  t.equal(ok.statusCode, 200)
  const body = ok.json()
  t.equal(body.status, 'ok')
  for (const name of ['serviceDb', 'engineDb', 'engineApi']) {
    t.equal(body.checks[name].ok, true, `${name} ok`)
    t.type(body.checks[name].latencyMs, 'number')
  }
  testApp.engine.failWith({ drop: true })
  const down = await testApp.app.inject({ method: 'GET', url: '/api/health' })
  t.equal(down.statusCode, 503)
  t.equal(down.json().status, 'degraded')
  t.equal(down.json().checks.engineApi.ok, false)
  t.equal(down.json().checks.serviceDb.ok, true)
})

t.test('the OpenAPI document lists the routes with their schemas', async (t) => {
  const { app } = await build(t)
  const res = await app.inject({ method: 'GET', url: '/api/openapi.json' })
  t.equal(res.statusCode, 200)
  const doc = res.json()
  t.equal(doc.openapi, '3.1.0')
  t.ok(doc.paths['/api/settings/{key}'].put.requestBody, 'PUT /api/settings/{key} has its body schema')
  t.ok(doc.paths['/api/health'].get, 'health is documented')
})

/** Shows how the app resolved the client: address, scheme and public origin. */
function probe (app: FastifyInstance): void {
  app.get('/api/_probe', async (request) => ({ ip: request.ip, protocol: request.protocol, origin: app.publicOrigin(request) }))
}

t.test('forwarded headers are honoured only from declared proxies', async (t) => {
  t.test('untrusted peer: forged X-Forwarded-For and -Proto are ignored, warned about once', async (t) => {
    const testApp = await build(t, { routes: probe })
    const { app } = testApp
    for (let i = 0; i < 3; i++) {
      const res = await app.inject({ method: 'GET', url: '/api/_probe', remoteAddress: '203.0.113.9', headers: { host: 'alarms.example.org', 'x-forwarded-for': '198.51.100.1', 'x-forwarded-proto': 'https' } })
      // http://alarms.example.org is not a configured origin: redirects use the first configured one.
      t.same(res.json(), { ip: '203.0.113.9', protocol: 'http', origin: 'https://alarms.example.org' })
    }
    const warnings = testApp.logs.filter((l) => /X-Forwarded-Proto received from an untrusted peer/.test(String(l.msg)))
    t.equal(warnings.length, 1, 'warned once, not per request')
    t.match(String(warnings[0]?.msg), /PROXY_KNOWN_PROXIES.*PUBLIC_URL/)
  })

  t.test('declared proxy address', async (t) => {
    const { app } = await build(t, { env: { PROXY_KNOWN_PROXIES: '10.0.0.5' }, routes: probe })
    const res = await app.inject({ method: 'GET', url: '/api/_probe', remoteAddress: '10.0.0.5', headers: { host: 'alarms.example.org', 'x-forwarded-for': '198.51.100.1', 'x-forwarded-proto': 'https' } })
    t.same(res.json(), { ip: '198.51.100.1', protocol: 'https', origin: 'https://alarms.example.org' })
  })

  t.test('declared proxy network', async (t) => {
    const { app } = await build(t, { env: { PROXY_KNOWN_NETWORKS: '172.18.0.0/16' }, routes: probe })
    const res = await app.inject({ method: 'GET', url: '/api/_probe', remoteAddress: '172.18.3.4', headers: { host: 'alarms.example.org', 'x-forwarded-for': '198.51.100.7', 'x-forwarded-proto': 'https' } })
    t.same(res.json(), { ip: '198.51.100.7', protocol: 'https', origin: 'https://alarms.example.org' })
  })

  t.test('PUBLIC_URL wins over the request', async (t) => {
    const testApp = await build(t, { env: { PUBLIC_URL: 'https://alarms.example.org' }, routes: probe })
    const res = await testApp.app.inject({ method: 'GET', url: '/api/_probe', remoteAddress: '203.0.113.9', headers: { host: 'internal:8082', 'x-forwarded-proto': 'https' } })
    t.equal(res.json().origin, 'https://alarms.example.org')
    t.equal(testApp.logs.filter((l) => /untrusted peer/.test(String(l.msg))).length, 0, 'no warning when PUBLIC_URL is set')
  })
})

async function hammer (app: Awaited<ReturnType<typeof build>>['app'], url: string, count: number, remoteAddress: string, headers: Record<string, string> = {}) {
  const statuses: number[] = []
  for (let i = 0; i < count; i++) {
    const res = await app.inject({ method: 'GET', url, remoteAddress, headers })
    statuses.push(res.statusCode)
  }
  return statuses
}

t.test('auth-read policy: 120 per minute per IP, fixed window, never global', async (t) => {
  const { app } = await build(t)
  const first = await hammer(app, '/api/settings/public', 120, '198.51.100.1')
  t.ok(first.every((s) => s === 200), '120 pass')
  const over = await app.inject({ method: 'GET', url: '/api/settings/public', remoteAddress: '198.51.100.1' })
  t.equal(over.statusCode, 429)
  t.same(over.json(), { error: 'Too many requests. Please try again later.' })
  t.ok(Number(over.headers['retry-after']) > 0, 'Retry-After')
  const other = await app.inject({ method: 'GET', url: '/api/settings/public', remoteAddress: '198.51.100.2' })
  t.equal(other.statusCode, 200, 'another IP still passes')
  const forged = await app.inject({ method: 'GET', url: '/api/settings/public', remoteAddress: '198.51.100.1', headers: { 'x-forwarded-for': '192.0.2.55' } })
  t.equal(forged.statusCode, 429, 'a forged X-Forwarded-For from an untrusted peer does not move the client to another bucket')
})

t.test('auth policy: the 31st request from one IP gets 429, shared by every route of the policy', async (t) => {
  const { app } = await build(t, {
    routes: (app) => {
      app.get('/api/_auth-a', { config: { rateLimit: app.rateLimits.auth } }, async () => ({ ok: true }))
      app.get('/api/_auth-b', { config: { rateLimit: app.rateLimits.auth } }, async () => ({ ok: true }))
    }
  })
  const a = await hammer(app, '/api/_auth-a', 20, '198.51.100.1')
  const b = await hammer(app, '/api/_auth-b', 10, '198.51.100.1')
  t.ok([...a, ...b].every((s) => s === 200), '30 pass across two routes')
  t.same(await hammer(app, '/api/_auth-a', 1, '198.51.100.1'), [429], 'the 31st is refused')
  t.same(await hammer(app, '/api/_auth-b', 1, '198.51.100.3'), [200], 'another IP still passes')
  t.same(await hammer(app, '/api/settings/public', 1, '198.51.100.1'), [200], 'the auth-read policy counts separately')
})

t.test('policies can be raised through the config object', async (t) => {
  const { app } = await build(t, { config: { RATE_LIMIT_AUTH_READ_MAX: 1000 } })
  const statuses = await hammer(app, '/api/settings/public', 200, '198.51.100.1')
  t.ok(statuses.every((s) => s === 200))
})

t.test('behind a declared proxy each client has its own bucket', async (t) => {
  const { app } = await build(t, { env: { PROXY_KNOWN_PROXIES: '10.0.0.5' }, config: { RATE_LIMIT_AUTH_READ_MAX: 3 } })
  const a = await hammer(app, '/api/settings/public', 4, '10.0.0.5', { 'x-forwarded-for': '198.51.100.1' })
  const b = await hammer(app, '/api/settings/public', 1, '10.0.0.5', { 'x-forwarded-for': '198.51.100.2' })
  t.same(a, [200, 200, 200, 429])
  t.same(b, [200])
})

t.test('the Redis store shares counters between instances', async (t) => {
  const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 })
  try {
    await redis.connect()
  } catch {
    t.fail('Redis must answer on 127.0.0.1:6379 (.ci/run starts it)')
    return
  }
  // Distinct addresses per run keep earlier runs' windows out of the way.
  const ip = `198.51.100.${Math.floor(Math.random() * 200) + 20}`
  await redis.del(`alarm-web:rl:auth-read:ip:${ip}`)
  await redis.quit()
  const env = { REDIS_URL: 'redis://127.0.0.1:6379' }
  const one = await build(t, { env, config: { RATE_LIMIT_AUTH_READ_MAX: 4 } })
  const two = await build(t, { env, config: { RATE_LIMIT_AUTH_READ_MAX: 4 } })
  const statuses = [
    ...await hammer(one.app, '/api/settings/public', 2, ip),
    ...await hammer(two.app, '/api/settings/public', 2, ip),
    ...await hammer(one.app, '/api/settings/public', 1, ip)
  ]
  t.same(statuses, [200, 200, 200, 200, 429], 'the fifth request over two instances is refused')
  const other = await hammer(two.app, '/api/settings/public', 1, `${ip}1`)
  t.same(other, [200], 'another IP still passes')
})

t.test('auth policy keys IPv6 clients by their /64: 40 sign-ins from one /64 get 429 at the 31st', async (t) => {
  const { app } = await build(t)
  const statuses: number[] = []
  for (let i = 1; i <= 40; i++) {
    const remoteAddress = `2001:db8:1234:5678:${i.toString(16)}:${(i * 7).toString(16)}::${i.toString(16)}`
    statuses.push((await app.inject({ method: 'GET', url: '/api/auth/telegram/config', remoteAddress })).statusCode)
  }
  t.ok(statuses.slice(0, 30).every((s) => s === 200), 'the first 30 pass')
  t.same(statuses.slice(30), Array(10).fill(429), 'from the 31st on: 429')
  t.same(await hammer(app, '/api/auth/telegram/config', 1, '2001:db8:1234:5679::1'), [200], 'the next /64 is another client')
  t.same(await hammer(app, '/api/auth/telegram/config', 1, '198.51.100.1'), [200], 'IPv4 clients keep their own buckets')
})

t.test('outside development, a missing PUBLIC_URL is a start-up warning', async (t) => {
  const warned = (logs: Array<Record<string, unknown>>) => logs.some((l) => /PUBLIC_URL is not set/.test(String(l['msg'])))
  t.ok(warned((await build(t)).logs), 'production without PUBLIC_URL')
  t.notOk(warned((await build(t, { env: { PUBLIC_URL: 'https://alarms.example.org' } })).logs), 'with PUBLIC_URL')
  t.notOk(warned((await build(t, { env: { NODE_ENV: 'development' } })).logs), 'in development')
})

t.test('redirect origins: PUBLIC_URL, else a configured origin the request names, else the first configured one', async (t) => {
  const origin = (app: FastifyInstance) => app.get('/api/_origin', async (request) => ({ origin: app.publicOrigin(request) }))
  const ask = async (app: FastifyInstance, headers: Record<string, string>, remoteAddress = '10.0.0.5') =>
    (await app.inject({ method: 'GET', url: '/api/_origin', remoteAddress, headers })).json().origin
  const { app } = await build(t, { env: { PROXY_KNOWN_PROXIES: '10.0.0.5' }, routes: origin })
  t.equal(await ask(app, { host: 'localhost' }), 'http://localhost', 'a configured origin')
  t.equal(await ask(app, { host: 'alarms.example.org', 'x-forwarded-proto': 'https' }), 'https://alarms.example.org', 'through the proxy')
  t.equal(await ask(app, { host: 'evil.example' }), 'https://alarms.example.org', 'Host outside the list')
  t.equal(await ask(app, { host: 'localhost', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' }), 'https://alarms.example.org', 'X-Forwarded-Host from a trusted proxy, outside the list')
  const { app: fixed } = await build(t, { env: { PUBLIC_URL: 'https://alarms.example.org' }, routes: origin })
  t.equal(await ask(fixed, { host: 'localhost' }), 'https://alarms.example.org', 'PUBLIC_URL wins')
})
