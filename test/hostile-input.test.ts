import t from 'tap'
import { build, bearer, seedHuman } from './helper.js'

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

t.test('JSON\'s 1e400 parses to Infinity, which is no number the service takes: a 400 before anything is created', async (t) => {
  const s = await build(t)
  await seedHuman(s, { id: MEMBER, name: 'Mo' })
  const profiles = async () => await s.app.engineDb.pool.query('SELECT profile_no FROM profiles') as unknown[]
  const before = await profiles()
  const res = await s.app.inject({
    method: 'POST',
    url: '/api/profile-overview/import',
    headers: { ...bearer(s.app, { userId: MEMBER }), 'content-type': 'application/json' },
    // `version` is an unbounded integer or a string: Infinity passed it and the import went ahead.
    payload: '{"profileName":"Imported","version":1e400,"alarms":{}}'
  })
  t.equal(res.statusCode, 400)
  t.match(res.json(), { error: 'Invalid request', details: [{ field: '/version' }] })
  t.same(await profiles(), before, 'no profile created')
  t.same(s.engine.requests.filter((r) => r.method !== 'GET'), [], 'nothing sent to the engine')
})
