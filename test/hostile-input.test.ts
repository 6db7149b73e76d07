import t from 'tap'
import { build, bearer } from './helper.js'

/** Hostile input on every route: bad input is a clear 4xx in the catalogue's shape. */

const MEMBER = '100000000000000003'

t.test('a path the router cannot read is a 4xx in the catalogue\'s shape, not Fastify\'s own', async (t) => {
  const { app } = await build(t)
  const headers = bearer(app, { userId: MEMBER })
  const cases: Array<[string, number, string]> = [
    ['/api/quick-picks/%ED%A0%80', 400, 'percent-encoding of a lone surrogate'],
    ['/api/monsters/%C0%AE', 400, 'an overlong UTF-8 dot'],
    [`/api/quick-picks/${'a'.repeat(601)}`, 414, 'a parameter over maxParamLength']
  ]
  for (const [url, status, what] of cases) {
    const res = await app.inject({ method: 'GET', url, headers })
    t.equal(res.statusCode, status, what)
    t.same(Object.keys(res.json()), ['error'], `${what}: { error } only, no code or statusCode`)
    t.type(res.json().error, 'string')
  }
})

t.test('an OPTIONS request without Origin is a plain 204, and a foreign origin is not allowed', async (t) => {
  const { app } = await build(t)
  const plain = await app.inject({ method: 'OPTIONS', url: '/api/monsters' })
  t.equal(plain.statusCode, 204, 'not the CORS plugin\'s text/plain 400')
  t.equal(plain.body, '')
  const foreign = await app.inject({ method: 'OPTIONS', url: '/api/monsters', headers: { origin: 'https://evil.example', 'access-control-request-method': 'DELETE' } })
  t.equal(foreign.headers['access-control-allow-origin'], undefined, 'no CORS grant for a foreign origin')
  const own = await app.inject({ method: 'OPTIONS', url: '/api/monsters', headers: { origin: 'https://alarms.example.org', 'access-control-request-method': 'DELETE' } })
  t.equal(own.statusCode, 204)
  t.equal(own.headers['access-control-allow-origin'], 'https://alarms.example.org', 'the configured origin still is')
})
