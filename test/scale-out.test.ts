import { randomInt } from 'node:crypto'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import mariadb from 'mariadb'
import { Agent, request, setGlobalDispatcher, type Dispatcher } from 'undici'
import { ENGINE_SECRET, ROOT, baseEnv, testDatabases } from './helper.js'
import { startAlarmEngineFake } from './fakes/alarm-engine.js'
import { insertAlarm, insertHuman } from './fakes/engine-db.js'
import { oidcClientEnv, startOidcProvider } from './fakes/oidc-provider.js'
import { CookieJar, followLogin, type FlowResponse } from './fakes/browser-flow.js'
import { ROOT_DIR, buildIfDue, startBuiltServer, type BuiltServer } from './built-server.js'
import { startNginx } from './nginx.js'
import { holdPort } from './ports.js'

/**
 * One site on two machines: two instances of the built service (`node dist/server.js`), each with its
 * own DATA_DIR and nothing else shared but the configuration, MariaDB and Redis, behind a real nginx
 * running deploy/nginx/alarm-web.conf (round robin). A member's journey crosses instances at every step.
 */

const MEMBER = '222222222222222222'
const ADMIN = '999999999999999999'
const AUTH_MAX = 20
const METRICS_TOKEN = 'scale-out-metrics-token-for-the-test'

await buildIfDue(['server', 'client'])
const dbs = await testDatabases()
const engine = await startAlarmEngineFake({ database: dbs.engine, secret: ENGINE_SECRET, mode: 'ng' })
t.teardown(() => engine.close())
const seed = await mariadb.createConnection({ ...ROOT, database: dbs.engine })
await insertHuman(seed, { id: MEMBER, name: 'Ash', latitude: 51.1, longitude: 7.1 })
await insertHuman(seed, { id: ADMIN, name: 'Oak' })

// Held until nginx starts on it: the instances started meanwhile must not be given it.
const held = await holdPort()
const { port } = held
const site = `http://127.0.0.1:${port}`
const op = await startOidcProvider({
  redirectUris: [`${site}/api/auth/oidc/callback`],
  accounts: { [MEMBER]: { preferred_username: 'Ash' }, [ADMIN]: { preferred_username: 'Oak' } },
  nextAccount: MEMBER
})
t.teardown(() => op.close())

const env = {
  ...baseEnv(dbs, engine.url),
  PUBLIC_URL: site,
  CORS_ORIGIN: site,
  PROXY_KNOWN_PROXIES: '127.0.0.1',
  REDIS_URL: 'redis://127.0.0.1:6379',
  RATE_LIMIT_AUTH_MAX: String(AUTH_MAX),
  PORACLE_ADMIN_IDS: ADMIN,
  METRICS_TOKEN,
  ...oidcClientEnv(op)
}
// No OIDC_TOKEN_ENCRYPTION_KEY and separate data folders: the provider-token key comes from JWT_SECRET.
const instances = await Promise.all([startBuiltServer(t, env), startBuiltServer(t, env)])
const [a, b] = instances as [BuiltServer, BuiltServer]
await seed.query(`INSERT INTO \`${dbs.service}\`.site_settings (\`key\`, value) VALUES ('enable_oidc', 'true')`)
await seed.end()
const nginx = await startNginx(t, instances.map((i) => `127.0.0.1:${i.port}`), held)

/**
 * Each client of the test is an address of its own in 127/8 (nginx passes it on as X-Forwarded-For), so
 * its rate-limit counters in the shared Redis are its own, whatever other runs have left there.
 */
const clientAddress = () => `127.${randomInt(1, 255)}.${randomInt(0, 256)}.${randomInt(1, 255)}`
const member = new Agent({ localAddress: clientAddress() })
// The browser flow (followLogin) uses fetch: the member's address for it too.
setGlobalDispatcher(member)
t.teardown(() => member.close())

interface Answer { status: number, upstream: string, body: any }
async function call (method: Dispatcher.HttpMethod, path: string, options: { token?: string, body?: unknown, via?: Agent } = {}): Promise<Answer> {
  const response = await request(`${nginx.url}${path}`, {
    method,
    dispatcher: options.via ?? member,
    headers: {
      ...(options.token !== undefined && { authorization: `Bearer ${options.token}` }),
      ...(options.body !== undefined && { 'content-type': 'application/json' })
    },
    ...(options.body !== undefined && { body: JSON.stringify(options.body) })
  })
  const text = await response.body.text()
  let body: unknown = text
  try { body = JSON.parse(text) } catch {}
  return { status: response.statusCode, upstream: String(response.headers['x-upstream'] ?? ''), body }
}
const upstreamOf = (r: FlowResponse | undefined) => r?.headers.get('x-upstream') ?? ''
const instanceName = (upstream: string) => upstream === `127.0.0.1:${a.port}` ? 'a' : upstream === `127.0.0.1:${b.port}` ? 'b' : `unknown (${upstream})`

async function signIn (account: string): Promise<{ token: string, refreshToken: string, login: string, callback: string }> {
  op.nextAccount = account
  const flow = await followLogin({ serviceUrl: site, jar: new CookieJar() })
  return {
    token: flow.fragment.get('token') ?? '',
    refreshToken: flow.fragment.get('refresh_token') ?? '',
    login: instanceName(upstreamOf(flow.loginResponse)),
    callback: instanceName(upstreamOf(flow.callbackResponse))
  }
}

t.test('a member\'s journey through nginx over two instances', async (t) => {
  // Sign-in: the state and PKCE cookies set by one instance are accepted by the other.
  const session = await signIn(MEMBER)
  t.match(session.token, /^ey/, 'signed in')
  t.match(session.refreshToken, /^[A-Za-z0-9_-]{43}$/, 'with a refresh-backed session')
  t.ok(['a', 'b'].includes(session.login) && ['a', 'b'].includes(session.callback), 'nginx names the instance of each step')
  t.not(session.login, session.callback, `the sign-in started on ${session.login} and ended on ${session.callback}`)

  // Six refreshes in a row on alternating instances: each decrypts what the other encrypted.
  let { token, refreshToken } = session
  const served: string[] = []
  for (let i = 1; i <= 6; i++) {
    const renewed = await call('POST', '/api/auth/oidc/refresh', { body: { refreshToken } })
    t.equal(renewed.status, 200, `refresh ${i} answered 200`)
    served.push(instanceName(renewed.upstream))
    token = renewed.body.token
    refreshToken = renewed.body.refreshToken
  }
  t.ok(served.every((s, i) => ['a', 'b'].includes(s) && (i === 0 || s !== served[i - 1])), `the refreshes alternate between the instances (${served.join(' ')})`)

  const list = await call('GET', '/api/eggs', { token })
  t.equal(list.status, 200, 'the renewed token works on the alarm list')

  // Concurrent edits of one alarm on both instances: the user write lock holds across them.
  const uid = await insertAlarm(await mariadb.createConnection({ ...ROOT, database: dbs.engine }).then(async (c) => {
    t.teardown(() => c.end())
    return c
  }), 'egg', { id: MEMBER, level: 5, distance: 0 })
  engine.delay(20)
  const distances = [100, 200, 300, 400]
  const edits = await Promise.all(distances.map((distance) => call('PUT', `/api/eggs/${uid}`, { token, body: { distance } })))
  engine.delay(0)
  t.same(new Set(edits.map((e) => instanceName(e.upstream))), new Set(['a', 'b']), 'the edits reached both instances')
  t.ok(edits.every((e) => [200, 404, 409].includes(e.status)), `each edit is done or refused cleanly (${edits.map((e) => e.status).join(',')})`)
  const eggs = await call('GET', '/api/eggs', { token })
  const rows = (eggs.body as { egg?: unknown[] }).egg ?? (Array.isArray(eggs.body) ? eggs.body : [])
  t.equal(rows.length, 1, 'one egg remains')
  const lastWritten = engine.requests.filter((r) => r.method === 'POST' && r.path === `/api/tracking/egg/${MEMBER}`).flatMap((r) => (Array.isArray(r.body) ? r.body : [r.body]) as Array<{ distance: number }>).at(-1)
  t.ok(edits.some((e, i) => e.status === 200 && distances[i] === lastWritten?.distance), 'the last write is an accepted edit')

  // Revocation on one instance ends the session on the other.
  const revoked = await call('POST', '/api/auth/oidc/refresh/revoke', { body: { refreshToken } })
  t.equal(revoked.status, 204, 'logout')
  const after = await call('POST', '/api/auth/oidc/refresh', { body: { refreshToken } })
  t.not(after.upstream, revoked.upstream, 'the next refresh goes to the other instance')
  t.equal(after.status, 401, 'and is refused there')
  // Logout ends the sign-in itself: its access token is refused at once on both instances too.
  const ended = [await call('GET', '/api/eggs', { token }), await call('GET', '/api/eggs', { token })]
  t.same(ended.map((e) => [e.status, e.body]), Array(2).fill([401, { error: 'This sign-in has ended. Please sign in again.' }]), 'the signed-out access token is refused on both instances')
  t.same(new Set(ended.map((e) => instanceName(e.upstream))), new Set(['a', 'b']))

  // A block made through one instance holds on both at once (Redis eviction): on a new sign-in of the member.
  token = (await signIn(MEMBER)).token
  const admin = await signIn(ADMIN)
  const warm = [await call('GET', '/api/eggs', { token }), await call('GET', '/api/eggs', { token })]
  t.same(warm.map((w) => w.status), [200, 200], 'both instances have the member as not blocked in their cache')
  const blocked = await call('PUT', `/api/admin/users/disable?id=${MEMBER}`, { token: admin.token })
  t.equal(blocked.status, 200, 'the admin blocks the member')
  const refused = [await call('GET', '/api/eggs', { token }), await call('GET', '/api/eggs', { token })]
  t.same(refused.map((r) => r.status), [403, 403], 'the next call is refused on both instances')
  t.same(new Set(refused.map((r) => instanceName(r.upstream))), new Set(['a', 'b']))
})

t.test('the sign-in limit is shared through Redis: the 21st request from one address is refused', async (t) => {
  const client = new Agent({ localAddress: clientAddress() })
  t.teardown(() => client.close())
  const answers: Answer[] = []
  for (let i = 0; i <= AUTH_MAX; i++) answers.push(await call('GET', '/api/auth/telegram/config', { via: client }))
  t.same(answers.slice(0, AUTH_MAX).map((r) => r.status), Array(AUTH_MAX).fill(200), `${AUTH_MAX} pass`)
  t.equal(answers[AUTH_MAX]?.status, 429, 'the next is refused')
  const perInstance = (name: string) => answers.slice(0, AUTH_MAX).filter((r) => instanceName(r.upstream) === name).length
  t.ok(perInstance('a') < AUTH_MAX && perInstance('b') < AUTH_MAX, `although neither instance saw ${AUTH_MAX} (a ${perInstance('a')}, b ${perInstance('b')})`)
})

t.test('hashed client files keep their long cache and are served by nginx after the first time', async (t) => {
  const asset = (await readdir(join(ROOT_DIR, 'client', 'dist', 'assets'))).find((name) => name.endsWith('.js'))
  t.ok(asset, 'the client is built')
  const first = await fetch(`${nginx.url}/assets/${asset ?? ''}`)
  const second = await fetch(`${nginx.url}/assets/${asset ?? ''}`)
  t.equal(first.status, 200, await nginx.errorLog())
  t.equal(second.headers.get('cache-control'), 'public, max-age=31536000, immutable', 'the browser may keep it a year')
  t.equal(second.headers.get('x-cache-status'), 'HIT', 'the second request did not reach an instance')
})

t.test('each instance counts what it did; nginx does not expose /metrics', async (t) => {
  const scrape = async (server: BuiltServer) => (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text()
  const rotated = (text: string) => Number(/^alarm_web_refresh_total\{outcome="rotated"\} (\d+)$/m.exec(text)?.[1] ?? 0)
  const [textA, textB] = await Promise.all([scrape(a), scrape(b)])
  t.equal(rotated(textA) + rotated(textB), 6, 'six rotations between the two')
  t.ok(rotated(textA) > 0 && rotated(textB) > 0, 'on both')
  t.match(textA, /alarm_web_peer_call_duration_seconds_count\{peer="engine",outcome="ok"\} \d+/, 'engine calls are timed')
  t.equal((await fetch(`${nginx.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status, 404, 'not through nginx')
})
