/**
 * Silent renewal under load: 16 refresh chains at once through the whole app over HTTP (autocannon),
 * against the same work without the HTTP layer (16 concurrent loops calling the refresh service inside
 * the service's process): the same provider, engine and database calls, measured in this run. A minimal
 * token and userinfo endpoint stands in for the provider (rotating refresh tokens, answering at once),
 * the alarm-engine fake for the engine. The service, each stand-in and the load generator run in
 * processes of their own, so the CPU time per refresh is reported for each of them. Then the cleanup
 * statement on 100,000 stale rows.
 *
 *   npm run bench:refresh            (MariaDB on 127.0.0.1:3306, root without password)
 *   BENCH_SECONDS=5 npm run bench:refresh
 */
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { ChildProcess } from 'node:child_process'
import autocannon from 'autocannon'
import type { FastifyInstance } from 'fastify'
import { toSqlTime } from '../db/client.js'
import { insertHuman } from '../test/fakes/engine-db.js'
import { benchDatabases, benchEnv, createEngineDatabase, dropDatabases, fillEngineDatabase } from './setup.js'
import { ask, engineFakeRole, runRole, serveQuestions, startRole, stop } from './processes.js'

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10)
const CHAINS = 16
const CLEANUP_ROWS = 100_000
const DATABASES = benchDatabases('refresh')
const SECRET = 'bench-engine-secret'
const SILENT_LOG = { level: 'info', stream: { write: () => {} } }

/**
 * The provider stand-in: a token endpoint that rotates refresh tokens and a userinfo endpoint, nothing
 * else. Asked `{ seed: subjects }`, it answers the provider refresh tokens a sign-in would have received.
 */
async function providerRole (): Promise<void> {
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
  serveQuestions((question) => (question as { seed: string[] }).seed.map((subject) => {
    const token = randomBytes(24).toString('base64url')
    subjects.set(token, subject)
    return token
  }))
  process.on('SIGTERM', () => { server.close(() => process.exit(0)) })
  process.send?.({ port: (server.address() as AddressInfo).port })
}

interface Result { refreshes: number, rps: number, p50: number, p99: number }
type ServiceQuestion =
  | { chains: Array<{ userId: string, providerRefreshToken: string }> }
  | { baseline: { tokens: string[], seconds: number } }
  | 'rows' | 'cleanup'

/** The service: the whole app, plus the refresh loops without HTTP and the cleanup timing on request. */
async function serviceRole (): Promise<void> {
  const { buildApp } = await import('../app.js')
  const { loadConfig } = await import('../plugins/base/config.js')
  const provider = process.env.BENCH_PROVIDER_URL ?? ''
  const config = {
    ...loadConfig(process.env as Record<string, string>),
    // One client address, so the per-IP auth limit is raised rather than spread over fake addresses.
    RATE_LIMIT_AUTH_MAX: 1_000_000_000
  }
  const app = await buildApp({ config, logger: SILENT_LOG })
  await app.listen({ port: 0, host: '127.0.0.1' })
  await app.db.pool.query("INSERT INTO site_settings (`key`, value) VALUES ('enable_oidc', 'true')")
  serveQuestions(async (question) => {
    const q = question as ServiceQuestion
    if (q === 'rows') return { rows: (await app.db.pool.query('SELECT COUNT(*) AS n FROM oidc_sessions') as Array<{ n: number }>)[0]?.n }
    if (q === 'cleanup') return { ms: await cleanupTime(app, Date.now()) }
    if ('chains' in q) {
      const tokens: string[] = []
      for (const { userId, providerRefreshToken } of q.chains) {
        tokens.push((await app.refreshSessions.startFamily({ userId, issuer: provider, subject: userId, providerRefreshToken })).refreshToken)
      }
      return tokens
    }
    return baseline(app, q.baseline.tokens, q.baseline.seconds)
  })
  process.on('SIGTERM', () => { app.close().then(() => process.exit(0), () => process.exit(1)) })
  process.send?.({ port: (app.server.address() as AddressInfo).port })
}

/** The load generator: one autocannon run per job, in this process only. */
async function loadRole (): Promise<void> {
  serveQuestions((question) => {
    const job = question as { url: string, tokens: string[], seconds: number }
    return overHttp(job.url, job.tokens, job.seconds)
  })
  process.on('SIGTERM', () => process.exit(0))
  process.send?.({ port: 0 })
}

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
  return { refreshes: latencies.length, rps: latencies.length / seconds, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) }
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
  return { refreshes: result.requests.total, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 }
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

interface Measured extends Result { cpu: { service: number, provider: number, engine: number } }

async function main (): Promise<void> {
  await createEngineDatabase(DATABASES.engine)
  const users = Array.from({ length: CHAINS }, (_, i) => String(300000000000000000n + BigInt(i)))
  await fillEngineDatabase(DATABASES.engine, async (connection) => {
    for (const id of users) await insertHuman(connection, { id, name: `user ${id}` })
  })

  const file = import.meta.filename
  const children: ChildProcess[] = []
  try {
    const engine = await startRole(file, '--engine', { BENCH_ENGINE_DB: DATABASES.engine })
    children.push(engine.process)
    const provider = await startRole(file, '--provider')
    children.push(provider.process)
    const providerUrl = `http://127.0.0.1:${provider.ready.port}`
    const service = await startRole(file, '--service', {
      ...benchEnv(DATABASES, `http://127.0.0.1:${engine.ready.port}`, SECRET),
      OIDC_CLIENT_ID: 'bench',
      OIDC_CLIENT_SECRET: 'bench-secret',
      OIDC_AUTHORIZATION_URL: `${providerUrl}/auth`,
      OIDC_TOKEN_URL: `${providerUrl}/token`,
      OIDC_USERINFO_URL: `${providerUrl}/me`,
      OIDC_USE_REFRESH_TOKENS: 'true',
      OIDC_TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      BENCH_PROVIDER_URL: providerUrl
    })
    children.push(service.process)
    const load = await startRole(file, '--load')
    children.push(load.process)
    const url = `http://127.0.0.1:${service.ready.port}`

    const chains = async (): Promise<string[]> => {
      const seeds = await ask<string[]>(provider.process, { seed: users })
      return ask<string[]>(service.process, { chains: users.map((userId, i) => ({ userId, providerRefreshToken: seeds[i] ?? '' })) })
    }
    const processes = [service.process, provider.process, engine.process]
    const cpu = async () => Promise.all(processes.map(async (p) => (await ask<{ micros: number }>(p, 'cpu')).micros))
    /** One path for `seconds`, with each process's CPU time per refresh. */
    const measure = async (path: 'direct' | 'http', seconds: number): Promise<Measured> => {
      const tokens = await chains()
      const before = await cpu()
      const result = path === 'direct'
        ? await ask<Result>(service.process, { baseline: { tokens, seconds } } satisfies ServiceQuestion)
        : await ask<Result>(load.process, { url, tokens, seconds })
      const after = await cpu()
      const per = (i: number) => ((after[i] ?? 0) - (before[i] ?? 0)) / result.refreshes
      return { ...result, cpu: { service: per(0), provider: per(1), engine: per(2) } }
    }

    // Warm-up of both paths, so JIT, pools and caches are in the same state before measuring.
    await measure('direct', 2)
    await measure('http', 2)
    // Alternating halves (A B B A), so load that drifts during the run weighs on both paths alike.
    const half = DURATION_S / 2
    const direct: Measured[] = []
    const http: Measured[] = []
    direct.push(await measure('direct', half))
    http.push(await measure('http', half))
    http.push(await measure('http', half))
    direct.push(await measure('direct', half))
    const { rows } = await ask<{ rows: number }>(service.process, 'rows')
    const { ms: cleanupMs } = await ask<{ ms: number }>(service.process, 'cleanup')

    const avg = (results: Measured[], f: (m: Measured) => number) => results.reduce((sum, r) => sum + f(r), 0) / results.length
    const line = (name: string, results: Measured[]) =>
      `${name.padEnd(34)} ${avg(results, (r) => r.rps).toFixed(0).padStart(6)} refreshes/s  p50 ${avg(results, (r) => r.p50).toFixed(1)} ms  p99 ${avg(results, (r) => r.p99).toFixed(1)} ms`
    const µs = (value: number) => `${value.toFixed(0)} µs`.padStart(9)
    const cpuLine = (name: string, results: Measured[]) =>
      `${name.padEnd(34)} service ${µs(avg(results, (r) => r.cpu.service))}  provider stand-in ${µs(avg(results, (r) => r.cpu.provider))}  engine fake ${µs(avg(results, (r) => r.cpu.engine))}`
    console.log(`\n${CHAINS} concurrent refresh chains, ${DURATION_S} s per path in two halves (${rows} session rows written)`)
    console.log(line('service calls, no HTTP (baseline)', direct))
    console.log(line('POST /api/auth/oidc/refresh', http))
    console.log(`throughput ratio (HTTP / baseline) ${(avg(http, (r) => r.rps) / avg(direct, (r) => r.rps)).toFixed(2)}`)
    console.log('CPU time per refresh, each process on its own:')
    console.log(cpuLine('  service calls, no HTTP (baseline)', direct))
    console.log(cpuLine('  POST /api/auth/oidc/refresh', http))
    const ratio = (f: (m: Measured) => number) => (avg(http, f) / avg(direct, f)).toFixed(2)
    console.log(`  ratio (HTTP / baseline)          service ${ratio((r) => r.cpu.service)}  provider stand-in ${ratio((r) => r.cpu.provider)}  engine fake ${ratio((r) => r.cpu.engine)}`)
    console.log(`cleanup: ${CLEANUP_ROWS.toLocaleString('en')} stale rows (of ${(CLEANUP_ROWS + 10_000).toLocaleString('en')}) deleted in ${cleanupMs.toFixed(0)} ms`)
  } finally {
    for (const proc of children.reverse()) await stop(proc)
    await dropDatabases(DATABASES.service, DATABASES.engine)
  }
}

const roles: Record<string, () => Promise<void>> = { '--engine': () => engineFakeRole(SECRET), '--provider': providerRole, '--service': serviceRole, '--load': loadRole }
runRole(roles, main)
