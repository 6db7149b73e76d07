/**
 * Silent renewal under load: 16 refresh chains at once through the whole app over HTTP (autocannon),
 * against the same work without the HTTP layer (16 concurrent loops calling the refresh service in the
 * same process): the same provider, engine and database calls, measured in this run. A minimal token
 * and userinfo endpoint stands in for the provider (rotating refresh tokens, answering at once), the
 * alarm-engine fake for the engine. Then the cleanup statement on 100,000 stale rows.
 *
 *   npm run bench:refresh            (MariaDB on 127.0.0.1:3306, root without password)
 *   BENCH_SECONDS=5 npm run bench:refresh
 */
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import autocannon from 'autocannon'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../app.js'
import { loadConfig } from '../plugins/config.js'
import { toSqlTime } from '../db/client.js'
import { insertHuman } from '../test/fakes/engine-db.js'
import { startAlarmEngineFake } from '../test/fakes/alarm-engine.js'
import { benchDatabases, benchEnv, createEngineDatabase, dropDatabases } from './setup.js'

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10)
const CHAINS = 16
const CLEANUP_ROWS = 100_000
const DATABASES = benchDatabases('refresh')
const SECRET = 'bench-engine-secret'

/** The provider: a token endpoint that rotates refresh tokens and a userinfo endpoint, nothing else. */
interface Provider {
  url: string
  server: Server
  /** A provider refresh token for `subject`, as a sign-in would have received it. */
  seed: (subject: string) => string
}

async function startProvider (): Promise<Provider> {
  const subjects = new Map<string, string>()
  const body = async (req: IncomingMessage): Promise<string> => {
    let text = ''
    for await (const chunk of req) text += String(chunk)
    return text
  }
  const server = createServer((req, res) => {
    (async () => {
      const json = (status: number, value: object) => {
        res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
        res.end(JSON.stringify(value))
      }
      if (req.method === 'POST' && req.url === '/token') {
        const form = new URLSearchParams(await body(req))
        const subject = subjects.get(form.get('refresh_token') ?? '')
        if (subject === undefined) return json(400, { error: 'invalid_grant' })
        subjects.delete(form.get('refresh_token') ?? '')
        const accessToken = randomBytes(24).toString('base64url')
        const refreshToken = randomBytes(24).toString('base64url')
        subjects.set(accessToken, subject)
        subjects.set(refreshToken, subject)
        return json(200, { access_token: accessToken, token_type: 'Bearer', expires_in: 3600, refresh_token: refreshToken })
      }
      if (req.url === '/me') {
        const accessToken = (req.headers.authorization ?? '').replace(/^Bearer /i, '')
        const subject = subjects.get(accessToken)
        if (subject === undefined) return json(401, { error: 'invalid_token' })
        subjects.delete(accessToken)
        return json(200, { sub: subject, preferred_username: `user ${subject}` })
      }
      json(404, { error: 'not_found' })
    })().catch(() => { res.writeHead(500); res.end() })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    seed: (subject) => {
      const token = randomBytes(24).toString('base64url')
      subjects.set(token, subject)
      return token
    }
  }
}

async function startChains (app: FastifyInstance, provider: Provider, users: string[]): Promise<string[]> {
  const tokens: string[] = []
  for (const userId of users) {
    const { refreshToken } = await app.refreshSessions.startFamily({ userId, issuer: provider.url, subject: userId, providerRefreshToken: provider.seed(userId) })
    tokens.push(refreshToken)
  }
  return tokens
}

interface Result { rps: number, p50: number, p99: number }

/** Throughput and percentiles averaged over the halves of a path. */
const mean = (results: Result[]): Result => ({
  rps: results.reduce((sum, r) => sum + r.rps, 0) / results.length,
  p50: results.reduce((sum, r) => sum + r.p50, 0) / results.length,
  p99: results.reduce((sum, r) => sum + r.p99, 0) / results.length
})

function percentile (sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0
}

/** The work without HTTP: each loop is one chain, renewing with the token the last renewal returned. */
async function baseline (app: FastifyInstance, tokens: string[], seconds: number): Promise<Result> {
  const latencies: number[] = []
  const until = performance.now() + seconds * 1000
  await Promise.all(tokens.map(async (first) => {
    let token = first
    while (performance.now() < until) {
      const started = performance.now()
      token = (await app.refreshSessions.refresh(token)).refreshToken
      latencies.push(performance.now() - started)
    }
  }))
  latencies.sort((a, b) => a - b)
  return { rps: latencies.length / seconds, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) }
}

/**
 * The same over HTTP. autocannon resets a connection's context after every request, so the chains live
 * in a shared pool instead: a request takes a token, its answer puts the successor back. With one
 * request in flight per connection and one token per connection, no token is ever sent twice.
 */
async function overHttp (url: string, tokens: string[], seconds: number): Promise<Result> {
  const pool = [...tokens]
  let refused = 0
  const result = await autocannon({
    url: `${url}/api/auth/oidc/refresh`,
    connections: CHAINS,
    duration: seconds,
    timeout: 30,
    requests: [{
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      setupRequest: (request) => ({ ...request, body: JSON.stringify({ refreshToken: pool.shift() }) }),
      onResponse: (status, body) => {
        if (status === 200) pool.push((JSON.parse(body) as { refreshToken: string }).refreshToken)
        else refused++
      }
    }]
  })
  if (refused > 0 || result.errors > 0 || result.timeouts > 0) throw new Error(`${refused} refused, ${result.errors} errors, ${result.timeouts} timeouts`)
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 }
}

async function cleanupTime (app: FastifyInstance, now: number): Promise<number> {
  const pool = app.db.pool
  await pool.query('DELETE FROM oidc_sessions')
  // Stale: half expired, half revoked 10 days ago; plus 10,000 live rows that must stay.
  await pool.query(`INSERT INTO oidc_sessions (token_hash, family_id, family_issued_at, user_id, subject, encrypted_refresh_token, encryption_key_id, expires_at, revoked_at, revoked_reason)
    SELECT SHA2(CONCAT('stale', seq), 256), UUID(), ? - INTERVAL 40 DAY, 'u', 'u', REPEAT('x', 200), 'k',
      IF(seq % 2 = 0, ? - INTERVAL 1 DAY, ? + INTERVAL 5 DAY), IF(seq % 2 = 0, NULL, ? - INTERVAL 10 DAY), IF(seq % 2 = 0, NULL, 'rotation')
    FROM seq_1_to_${CLEANUP_ROWS}`, Array(4).fill(toSqlTime(now)))
  await pool.query(`INSERT INTO oidc_sessions (token_hash, family_id, family_issued_at, user_id, subject, encrypted_refresh_token, encryption_key_id, expires_at)
    SELECT SHA2(CONCAT('live', seq), 256), UUID(), ?, 'u', 'u', REPEAT('x', 200), 'k', ? + INTERVAL 20 DAY FROM seq_1_to_10000`, [toSqlTime(now), toSqlTime(now)])
  const started = performance.now()
  const deleted = await app.refreshSessions.purgeStale(now)
  const ms = performance.now() - started
  if (deleted !== CLEANUP_ROWS) throw new Error(`cleanup deleted ${deleted} rows, expected ${CLEANUP_ROWS}`)
  return ms
}

async function main (): Promise<void> {
  await createEngineDatabase(DATABASES.engine)
  const engine = await startAlarmEngineFake({ database: DATABASES.engine, secret: SECRET })
  const provider = await startProvider()
  const config = {
    ...loadConfig({
      ...benchEnv(DATABASES, engine.url, SECRET),
      OIDC_CLIENT_ID: 'bench',
      OIDC_CLIENT_SECRET: 'bench-secret',
      OIDC_AUTHORIZATION_URL: `${provider.url}/auth`,
      OIDC_TOKEN_URL: `${provider.url}/token`,
      OIDC_USERINFO_URL: `${provider.url}/me`,
      OIDC_USE_REFRESH_TOKENS: 'true',
      OIDC_TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64')
    }),
    // One client address, so the per-IP auth limit is raised rather than spread over fake addresses.
    RATE_LIMIT_AUTH_MAX: 1_000_000_000
  }
  const app = await buildApp({ config, logger: { level: 'info', stream: { write: () => {} } } })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  await app.db.pool.query("INSERT INTO site_settings (`key`, value) VALUES ('enable_oidc', 'true')")

  const users = Array.from({ length: CHAINS }, (_, i) => String(300000000000000000n + BigInt(i)))
  for (const id of users) await insertHuman(app.engineDb.pool, { id, name: `user ${id}` })

  // Warm-up of both paths, so JIT, pools and caches are in the same state before measuring.
  await baseline(app, await startChains(app, provider, users), 2)
  await overHttp(url, await startChains(app, provider, users), 2)

  // Alternating halves (A B B A), so load that drifts during the run weighs on both paths alike.
  const half = DURATION_S / 2
  const direct: Result[] = []
  const http: Result[] = []
  direct.push(await baseline(app, await startChains(app, provider, users), half))
  http.push(await overHttp(url, await startChains(app, provider, users), half))
  http.push(await overHttp(url, await startChains(app, provider, users), half))
  direct.push(await baseline(app, await startChains(app, provider, users), half))
  const rows = (await app.db.pool.query('SELECT COUNT(*) AS n FROM oidc_sessions') as Array<{ n: number }>)[0]?.n
  const cleanupMs = await cleanupTime(app, Date.now())

  await app.close()
  await engine.close()
  provider.server.close()
  await dropDatabases(DATABASES.service, DATABASES.engine)

  const line = (name: string, results: Result[]) => {
    const r = mean(results)
    return `${name.padEnd(34)} ${r.rps.toFixed(0).padStart(6)} refreshes/s  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms`
  }
  console.log(`\n${CHAINS} concurrent refresh chains, ${DURATION_S} s per path in two halves (${rows} session rows written)`)
  console.log(line('service calls, no HTTP (baseline)', direct))
  console.log(line('POST /api/auth/oidc/refresh', http))
  console.log(`ratio (HTTP / baseline)            ${(mean(http).rps / mean(direct).rps).toFixed(2)}`)
  console.log(`cleanup: ${CLEANUP_ROWS.toLocaleString('en')} stale rows (of ${(CLEANUP_ROWS + 10_000).toLocaleString('en')}) deleted in ${cleanupMs.toFixed(0)} ms`)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
