import t from 'tap'
import { bearer, build, seedHuman } from './helper.js'
import { RefreshRefused } from '../schemas/refusals.js'
import { refreshOutcomeOf, sameToken } from '../plugins/edge/metrics.js'

/** GET /metrics (Prometheus text, behind METRICS_TOKEN) and the readiness check. */

const TOKEN = 'a-metrics-token-of-the-test-0123456789'
const USER = '300000000000000001'

t.test('without METRICS_TOKEN /metrics does not exist', async (t) => {
  const { app } = await build(t)
  const res = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })
  t.equal(res.statusCode, 404)
  t.equal(res.json().error, 'Not found.', 'a JSON 404, not the client page')
  t.equal(app.metrics.registry, null, 'nothing is measured')
})

t.test('with METRICS_TOKEN: only the bearer of that token reads the metrics', async (t) => {
  const { app } = await build(t, { env: { METRICS_TOKEN: TOKEN } })
  const get = (authorization?: string) => app.inject({ method: 'GET', url: '/metrics', headers: authorization === undefined ? {} : { authorization } })
  t.equal((await get()).statusCode, 401, 'no header')
  t.equal((await get(`Bearer ${TOKEN}x`)).statusCode, 401, 'another token')
  t.equal((await get(`Bearer ${TOKEN.slice(0, -1)}`)).statusCode, 401, 'a prefix of the token')
  t.equal((await get(TOKEN)).statusCode, 401, 'not as a bearer token')
  const res = await get(`Bearer ${TOKEN}`)
  t.equal(res.statusCode, 200)
  t.match(res.headers['content-type'], /^text\/plain; version=0\.0\.4/, 'Prometheus text format')
  t.notOk(res.body.includes(TOKEN), 'the token is not in the answer')
  t.ok(sameToken('abc', 'abc') && !sameToken('abc', 'abd') && !sameToken('abc', 'abcd'), 'the comparison')
})

t.test('requests by route pattern and status, engine calls, pools, refreshes, refusals, memory and lag', async (t) => {
  const testApp = await build(t, { env: { METRICS_TOKEN: TOKEN }, config: { RATE_LIMIT_AUTH_MAX: 2 } })
  const { app } = testApp
  await seedHuman(testApp, { id: USER })
  const headers = bearer(app, { userId: USER })
  for (const uid of [101, 102, 103]) await app.inject({ method: 'GET', url: `/api/eggs/${uid}`, headers })
  await app.inject({ method: 'GET', url: '/api/eggs', headers })
  for (let i = 0; i < 3; i++) await app.inject({ method: 'POST', url: '/api/auth/oidc/refresh', payload: { refreshToken: 'x'.repeat(43) } })
  const text = (await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } })).body

  t.match(text, /alarm_web_http_request_duration_seconds_count\{method="GET",route="\/api\/eggs",status="200"\} 1\n/, 'the list, by its route')
  t.notMatch(text, /route="\/api\/eggs\/10[123]"/, 'never the raw URL')
  t.match(text, /alarm_web_http_request_duration_seconds_bucket\{le="0\.1",method="GET",route="\/api\/eggs",status="200"\} \d+/, 'with a latency histogram')
  t.match(text, /alarm_web_peer_call_duration_seconds_count\{peer="engine",outcome="ok"\} \d+/, 'engine calls by outcome')
  t.match(text, /alarm_web_refresh_total\{outcome="unknown"\} 2\n/, 'two refreshes refused as unknown')
  t.match(text, /alarm_web_rate_limit_refusals_total\{route="\/api\/auth\/oidc\/refresh"\} 1\n/, 'the third refused by the sign-in limit')
  t.match(text, /alarm_web_db_pool_active_connections\{pool="service"\} \d+/, 'service pool')
  t.match(text, /alarm_web_db_pool_idle_connections\{pool="engine"\} \d+/, 'engine pool')
  t.match(text, /alarm_web_db_pool_waiting_requests\{pool="user-write-lock"\} \d+/, 'lock pool')
  t.match(text, /process_resident_memory_bytes \d+/, 'memory')
  t.match(text, /nodejs_eventloop_lag_seconds [\d.e-]+/, 'event-loop lag')
})

t.test('refresh outcomes as counted', async (t) => {
  t.equal(refreshOutcomeOf(new RefreshRefused('replay_detected')), 'replay')
  t.equal(refreshOutcomeOf(new RefreshRefused('expired')), 'expired')
  t.equal(refreshOutcomeOf(new RefreshRefused('absolute_cap')), 'expired')
  t.equal(refreshOutcomeOf(new RefreshRefused('account_blocked')), 'revoked')
  t.equal(refreshOutcomeOf(new RefreshRefused('provider_revoked')), 'revoked')
  t.equal(refreshOutcomeOf(new RefreshRefused('unknown_token')), 'unknown')
  t.equal(refreshOutcomeOf(new Error('boom')), 'error')
})

t.test('readiness: 200 while the databases and the engine answer, 503 naming what does not', async (t) => {
  const testApp = await build(t)
  const ready = await testApp.app.inject({ method: 'GET', url: '/api/health/ready' })
  t.equal(ready.statusCode, 200)
  t.same(ready.json(), { ready: true, failing: [] })
  t.equal(ready.headers['cache-control'], 'no-store')
  testApp.engine.failWith({ drop: true })
  const down = await testApp.app.inject({ method: 'GET', url: '/api/health/ready' })
  t.equal(down.statusCode, 503)
  t.same(down.json(), { ready: false, failing: ['engineApi'] })
})
