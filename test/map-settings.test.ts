import t from 'tap'
import { baseEnv, bearer, build, testDatabases } from './helper.js'
import { ConfigError, loadConfig, tileImageSource } from '../plugins/base/config.js'

t.test('GET /api/map: the configured tile URL and attribution, for signed-in users only', async (t) => {
  const { app } = await build(t, {
    env: { MAP_TILE_URL: 'http://tiles.internal:8080/{z}/{x}/{y}.png', MAP_TILE_ATTRIBUTION: '© Example maps' },
    routes: (app) => app.get('/_page', async (_request, reply) => reply.type('text/html; charset=utf-8').send('<!doctype html>'))
  })
  t.equal((await app.inject({ method: 'GET', url: '/api/map' })).statusCode, 401)
  const res = await app.inject({ method: 'GET', url: '/api/map', headers: bearer(app, { userId: '1001' }) })
  t.equal(res.statusCode, 200)
  t.same(res.json(), { tileUrl: 'http://tiles.internal:8080/{z}/{x}/{y}.png', attribution: '© Example maps' })
  // The document policy (where images matter) is the one HTML pages carry; JSON gets the short one.
  const csp = String((await app.inject({ method: 'GET', url: '/_page' })).headers['content-security-policy'])
  t.match(csp, /img-src 'self' data: https: http:\/\/tiles\.internal:8080(;|$)/, 'the plain-http tile origin, and nothing else of http, may serve images')
})

t.test('the default is OpenStreetMap with its attribution', async (t) => {
  const { app } = await build(t)
  const res = await app.inject({ method: 'GET', url: '/api/map', headers: bearer(app, { userId: '1001' }) })
  t.same(res.json(), { tileUrl: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png', attribution: '© OpenStreetMap contributors' })
})

t.test('tile templates: {s} subdomains become a wildcard; anything not http(s) is refused at start', async (t) => {
  t.equal(tileImageSource('https://{s}.tile.example.org/{z}/{x}/{y}.png'), 'https://*.tile.example.org')
  t.equal(tileImageSource('http://127.0.0.1:9000/tiles/{z}/{x}/{y}.png'), 'http://127.0.0.1:9000')
  t.equal(tileImageSource('javascript:alert(1)'), undefined)
  t.equal(tileImageSource('/relative/{z}/{x}/{y}.png'), undefined)
  const dbs = await testDatabases()
  for (const bad of ['ftp://tiles.example.org/{z}/{x}/{y}.png', 'tiles/{z}/{x}/{y}.png']) {
    let problems: string[] = []
    try {
      loadConfig({ ...baseEnv(dbs), MAP_TILE_URL: bad })
    } catch (err) {
      if (err instanceof ConfigError) problems = err.problems
    }
    t.ok(problems.some((p) => p.startsWith('MAP_TILE_URL')), `refused: ${bad}`)
  }
})
