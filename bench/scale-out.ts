/**
 * Several instances under load: 32 members at once, each signing in (the real oidc-provider), renewing
 * ten times and reading an alarm list, through nginx (deploy/nginx/alarm-web.conf, round robin, Redis
 * shared) over two instances of the built service, against one instance reached directly, in this run.
 * Prints members per second and the p99 of the requests both ways, and their ratio. The instances, the
 * engine fake and nginx are processes of their own; the provider and the load generator share this one.
 * On a machine with fewer free cores than instances, the two compete for the same CPU: the ratio then
 * shows what the extra hop costs rather than what a second machine gains.
 *
 *   npm run bench:scale   (MariaDB on 127.0.0.1:3306, root without password; Redis on 127.0.0.1:6379; nginx)
 *   BENCH_MEMBERS=64 npm run bench:scale
 */
import { fileURLToPath } from 'node:url'
import { insertHuman } from '../test/fakes/engine-db.js'
import { oidcClientEnv, startOidcProvider, type OidcProviderHandle } from '../test/fakes/oidc-provider.js'
import { CookieJar } from '../test/fakes/browser-flow.js'
import { buildIfDue, startBuiltServer, type Owner } from '../test/built-server.js'
import { startNginx } from '../test/nginx.js'
import { holdPort } from '../test/ports.js'
import { benchDatabases, benchEnv, createEngineDatabase, dropDatabases, fillEngineDatabase } from './setup.js'
import { engineFakeRole, runRole, startRole, stop } from './processes.js'

const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 32)
const REFRESHES = 10
const SECRET = 'bench-engine-secret'
const DATABASES = benchDatabases('scale')
const memberId = (i: number) => String(500_000_000_000_000_000n + BigInt(i))

interface Run { seconds: number, latencies: number[], failures: number }

/** One request, timed; redirects are not followed (the sign-in follows them itself, cookie by cookie). */
async function timed (latencies: number[], url: string, init: RequestInit = {}): Promise<{ response: Response, text: string }> {
  const started = performance.now()
  const response = await fetch(url, { redirect: 'manual', ...init })
  const text = await response.text()
  latencies.push(performance.now() - started)
  return { response, text }
}

/** A browser's sign-in at `site` as `account`: login, the provider's redirects, the callback; the fragment's tokens. */
async function signIn (site: string, account: string, latencies: number[]): Promise<{ token: string, refreshToken: string }> {
  const jar = new CookieJar()
  const siteOrigin = new URL(site).origin
  let url = new URL('/api/auth/oidc/login', site)
  for (let hop = 0; hop < 12; hop++) {
    const cookie = jar.header(url.origin)
    const response = url.origin === siteOrigin
      ? (await timed(latencies, url.href, { headers: cookie === undefined ? {} : { cookie } })).response
      : await fetch(url, { redirect: 'manual', headers: cookie === undefined ? {} : { cookie } })
    jar.store(url.origin, response.headers.getSetCookie())
    const location = response.headers.get('location')
    if (location === null) break
    const next = new URL(location, url)
    // The provider logs in whoever the authorization request names.
    if (next.pathname.endsWith('/auth') && !next.searchParams.has('login_hint')) next.searchParams.set('login_hint', account)
    if (next.origin === siteOrigin && next.hash !== '') {
      const fragment = new URLSearchParams(next.hash.slice(1))
      const [token, refreshToken] = [fragment.get('token'), fragment.get('refresh_token')]
      if (token === null || refreshToken === null) throw new Error(`the sign-in of ${account} ended with ${next.hash}`)
      return { token, refreshToken }
    }
    url = next
  }
  throw new Error(`the sign-in of ${account} did not end with tokens`)
}

async function member (site: string, account: string, run: Run): Promise<void> {
  let { token, refreshToken } = await signIn(site, account, run.latencies)
  for (let i = 0; i < REFRESHES; i++) {
    const { response, text } = await timed(run.latencies, `${site}/api/auth/oidc/refresh`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refreshToken }) })
    if (response.status !== 200) throw new Error(`refresh answered ${response.status}`)
    const renewed = JSON.parse(text) as { token: string, refreshToken: string }
    token = renewed.token
    refreshToken = renewed.refreshToken
  }
  const list = await timed(run.latencies, `${site}/api/eggs`, { headers: { authorization: `Bearer ${token}` } })
  if (list.response.status !== 200) throw new Error(`the alarm list answered ${list.response.status}`)
}

async function load (site: string, members: number, offset: number): Promise<Run> {
  const run: Run = { seconds: 0, latencies: [], failures: 0 }
  const started = performance.now()
  await Promise.all(Array.from({ length: members }, (_, i) => member(site, memberId(offset + i), run).catch((error: unknown) => {
    run.failures++
    if (run.failures === 1) console.error(`  a member failed: ${(error as Error).message}`)
  })))
  run.seconds = (performance.now() - started) / 1000
  return run
}

const p99 = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y)
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? 0
}

async function measure (label: string, op: OidcProviderHandle, engineUrl: string, instances: number, viaNginx: boolean): Promise<Run> {
  const cleanups: Array<() => unknown> = []
  const owner: Owner = { teardown: (fn) => { cleanups.push(fn) } }
  try {
    const held = await holdPort()
    cleanups.push(held.release)
    const { port } = held
    const site = `http://127.0.0.1:${port}`
    op.redirectUris = [`${site}/api/auth/oidc/callback`]
    const env = {
      ...benchEnv(DATABASES, engineUrl, SECRET),
      // One secret for the instances of a site; each run its own.
      JWT_SECRET: `${label}-${'k7Qz2mVx9LpR4tWs8NbY3cHd6FgJ1aEu'}`,
      PUBLIC_URL: site,
      CORS_ORIGIN: site,
      PROXY_KNOWN_PROXIES: '127.0.0.1',
      REDIS_URL: 'redis://127.0.0.1:6379',
      RATE_LIMIT_AUTH_MAX: '1000000',
      ...oidcClientEnv(op),
      LOG_LEVEL: 'warn'
    }
    // Directly: the one instance listens on the held port itself.
    if (!viaNginx) await held.release()
    const servers = await Promise.all(Array.from({ length: instances }, () => startBuiltServer(owner, viaNginx ? env : { ...env, PORT: String(port) })))
    if (viaNginx) await startNginx(owner, servers.map((s) => `127.0.0.1:${s.port}`), held)
    await fillEngineDatabase(DATABASES.engine, async (c) => {
      await c.query(`INSERT INTO \`${DATABASES.service}\`.site_settings (\`key\`, value) VALUES ('enable_oidc', 'true') ON DUPLICATE KEY UPDATE value = 'true'`)
    })
    await load(site, 4, 0)
    const run = await load(site, MEMBERS, 0)
    const requests = run.latencies.length
    console.log(`${label.padEnd(28)} ${(MEMBERS / run.seconds).toFixed(2).padStart(7)} members/s  ${(requests / run.seconds).toFixed(0).padStart(5)} requests/s  p99 ${p99(run.latencies).toFixed(0).padStart(5)} ms  (${requests} requests, ${run.failures} members failed)`)
    return run
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup()
  }
}

async function main (): Promise<void> {
  await buildIfDue(['server'])
  await dropDatabases(DATABASES.service, DATABASES.engine)
  await createEngineDatabase(DATABASES.engine)
  await fillEngineDatabase(DATABASES.engine, async (c) => {
    for (let i = 0; i < MEMBERS; i++) await insertHuman(c, { id: memberId(i), name: `member ${i}` })
  })
  const file = fileURLToPath(import.meta.url)
  const engine = await startRole(file, '--engine', { BENCH_ENGINE_DB: DATABASES.engine })
  const accounts = Object.fromEntries(Array.from({ length: MEMBERS }, (_, i) => [memberId(i), { preferred_username: `member ${i}` }]))
  const op = await startOidcProvider({ redirectUris: [], accounts })
  try {
    console.log(`${MEMBERS} members at once, each: sign-in, ${REFRESHES} refreshes, alarm list`)
    const engineUrl = `http://127.0.0.1:${engine.ready.port}`
    const scaled = await measure('nginx, two instances', op, engineUrl, 2, true)
    const direct = await measure('one instance, directly', op, engineUrl, 1, false)
    console.log(`ratio (two via nginx / one direct): throughput ${(direct.seconds / scaled.seconds).toFixed(2)}x, p99 ${(p99(scaled.latencies) / p99(direct.latencies)).toFixed(2)}x`)
  } finally {
    await op.close()
    await stop(engine.process)
    await dropDatabases(DATABASES.service, DATABASES.engine)
  }
}

runRole({ '--engine': () => engineFakeRole(SECRET) }, main)
