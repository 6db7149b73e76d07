/**
 * What one request costs the server: CPU time per request, read from the server process before and after
 * a fixed number of requests sent by a load generator in its own process, for
 *   - a bare Fastify route answering a small JSON (the baseline, its own process),
 *   - the same JSON from an open route inside the app (global hooks only),
 *   - the same JSON behind `auth.authenticate` (plus the blocked-account check),
 *   - the same JSON after the engine call the alarm list makes (GET pokemon alarms, 50 rows),
 *   - GET /api/monsters with 50 alarms (the engine fake runs in a process of its own),
 *   - GET /api/version, the open route every visitor's first page load asks for, against a bare route with
 *     the same answer and response schema,
 *   - GET /api/alarm-types (every page load asks for it) against a bare route sending the same bytes.
 * Every figure is printed with its ratio to the bare route; throughput and p99 are secondary (on a
 * shared machine they say more about the load generator than about the server). Then the size of the
 * response headers of a JSON answer, and the cold start.
 *
 *   npm run bench:http                       (MariaDB on 127.0.0.1:3306, root without password)
 *   BENCH_REQUESTS=20000 npm run bench:http  (default 100,000 requests per route, 16 connections)
 *   BENCH_PROFILE=1 npm run bench:http       (writes a CPU profile of the service to ./profiles)
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { request as httpRequest } from 'node:http'
import { join } from 'node:path'
import autocannon from 'autocannon'
import { benchDatabases, benchEnv, createEngineDatabase, dropDatabases, fillEngineDatabase } from './setup.js'
import { ask, engineFakeRole, runRole, serveQuestions, startRole, stop } from './processes.js'

const ROOT = join(import.meta.dirname, '..')
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100_000)
const CONNECTIONS = 16
const ALARMS = 50
const SECRET = 'bench-engine-secret'
const USER = '123456789012345678'
const DATABASES = benchDatabases('http')
const SILENT_LOG = { level: 'info', stream: { write: () => {} } }
const ANSWER = { userId: USER, profileNo: 1 }

const IDLE_MS = 15_000
const VERSION_ANSWER = { version: '0.1.0', revision: '0'.repeat(40), revisionShort: '0000000', buildDate: '2026-01-01T00:00:00Z', environment: 'production' }
const VERSION_SCHEMA = {
  type: 'object',
  properties: Object.fromEntries(Object.keys(VERSION_ANSWER).map((key) => [key, { type: 'string' }])),
  required: Object.keys(VERSION_ANSWER)
}

interface Memory { rss: number, rssAfterGc: number, heapUsed: number }
interface LoadJob { url: string, headers: Record<string, string>, amount: number }
interface LoadResult { requests: number, rps: number, p99: number, non2xx: number, errors: number }

async function bareRole (): Promise<void> {
  const { default: Fastify } = await import('fastify')
  const { ALARM_KINDS, describeKind } = await import('../schemas/alarm-types.js')
  const bare = Fastify({ logger: SILENT_LOG })
  bare.get('/api/_bench', async () => ANSWER)
  // What GET /api/version answers, with the same response schema, from a bare app.
  bare.get('/api/_bench/version', { schema: { response: { 200: VERSION_SCHEMA } } }, async () => VERSION_ANSWER)
  // The bytes GET /api/alarm-types sends when every type is offered, serialized once.
  const descriptors = JSON.stringify(ALARM_KINDS.map((kind) => describeKind(kind)))
  bare.get('/api/_bench/alarm-types', async (_request, reply) => reply.type('application/json; charset=utf-8').send(descriptors))
  await bare.listen({ port: 0, host: '127.0.0.1' })
  serveQuestions()
  process.on('SIGTERM', () => { bare.close().then(() => process.exit(0), () => process.exit(1)) })
  process.send?.({ port: (bare.server.address() as { port: number }).port })
}

async function serviceRole (): Promise<void> {
  const { buildApp } = await import('../app.js')
  const { loadConfig } = await import('../plugins/base/config.js')
  const app = await buildApp({ config: loadConfig(process.env as Record<string, string>), logger: SILENT_LOG })
  app.get('/api/_bench/open', async () => ANSWER)
  app.get('/api/_bench/auth', { onRequest: app.auth.authenticate }, async (request) => ({ userId: request.user.userId, profileNo: request.user.profileNo }))
  app.get('/api/_bench/engine', { onRequest: app.auth.authenticate }, async (request) => {
    const rows = await app.engine.tracking.get('pokemon', request.user.userId)
    return { userId: request.user.userId, profileNo: rows.length === ALARMS ? 1 : 0 }
  })
  await app.listen({ port: 0, host: '127.0.0.1' })
  serveQuestions((question) => question === 'token'
    ? { token: app.auth.mint({ userId: USER, username: 'bench', type: 'discord:user', isAdmin: false, enabled: true, profileNo: 1 }, 60).token }
    : undefined)
  process.on('SIGTERM', () => { app.close().then(() => process.exit(0), () => process.exit(1)) })
  process.send?.({ port: (app.server.address() as { port: number }).port })
}

/** The load generator: one autocannon run per job, in this process only. */
async function loadRole (): Promise<void> {
  process.on('message', (job: LoadJob) => {
    autocannon({ url: job.url, headers: job.headers, amount: job.amount, connections: CONNECTIONS, timeout: 30 }).then((result) => {
      const answer: LoadResult = { requests: result.requests.total, rps: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors + result.timeouts }
      process.send?.(answer)
    }, (error: unknown) => {
      console.error(error)
      process.exit(1)
    })
  })
  process.on('SIGTERM', () => process.exit(0))
  process.send?.({ port: 0 })
}

/** Bytes of the status line and headers of one answer, as sent on the wire. */
function headerBytes (url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers, agent: false }, (res) => {
      let bytes = `HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n`.length + 2
      for (let i = 0; i < res.rawHeaders.length; i += 2) bytes += Buffer.byteLength(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}\r\n`)
      res.resume()
      res.on('end', () => resolve(bytes))
    })
    req.on('error', reject)
    req.end()
  })
}

async function coldStart (env: Record<string, string>): Promise<number> {
  spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' })
  const database = `aw_bench_cold_${process.pid}`
  const started = performance.now()
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'server.js')], {
    cwd: ROOT,
    env: { ...process.env, ...env, WEB_DB_NAME: database, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  const ready = await new Promise<number>((resolve, reject) => {
    let buffer = ''
    child.stdout.on('data', (chunk) => {
      buffer += String(chunk)
      if (buffer.includes('Server listening')) resolve(performance.now() - started)
    })
    child.on('exit', (code) => reject(new Error(`server exited with ${code}`)))
  })
  child.kill('SIGTERM')
  await new Promise((resolve) => child.on('exit', resolve))
  await dropDatabases(database)
  return ready
}

interface Target { name: string, url: string, headers: Record<string, string>, server: ChildProcess }
interface Measured { name: string, cpuPerRequest: number, engineCpuPerRequest: number, rps: number, p99: number }

async function main (): Promise<void> {
  const { insertAlarm, insertHuman } = await import('../test/fakes/engine-db.js')
  await createEngineDatabase(DATABASES.engine)
  await fillEngineDatabase(DATABASES.engine, async (connection) => {
    await insertHuman(connection, { id: USER })
    for (let i = 0; i < ALARMS; i++) await insertAlarm(connection, 'pokemon', { id: USER, pokemon_id: i + 1, min_iv: i % 100, distance: i * 10 })
  })

  const file = import.meta.filename
  const children: ChildProcess[] = []
  try {
    const engine = await startRole(file, '--engine', { BENCH_ENGINE_DB: DATABASES.engine })
    children.push(engine.process)
    const env = benchEnv(DATABASES, `http://127.0.0.1:${engine.ready.port}`, SECRET)
    const bare = await startRole(file, '--bare')
    children.push(bare.process)
    const profile = process.env.BENCH_PROFILE !== undefined ? ['--cpu-prof', `--cpu-prof-dir=${join(ROOT, 'profiles')}`] : []
    const service = await startRole(file, '--service', env, ['--expose-gc', ...profile])
    children.push(service.process)
    const load = await startRole(file, '--load')
    children.push(load.process)
    const { token } = await ask<{ token: string }>(service.process, 'token')
    const auth = { authorization: `Bearer ${token}` }
    const at = (port: number, path: string) => `http://127.0.0.1:${port}${path}`

    const targets: Target[] = [
      { name: 'bare Fastify route', url: at(bare.ready.port, '/api/_bench'), headers: {}, server: bare.process },
      { name: 'open route in the app', url: at(service.ready.port, '/api/_bench/open'), headers: {}, server: service.process },
      { name: 'authenticated route', url: at(service.ready.port, '/api/_bench/auth'), headers: auth, server: service.process },
      { name: 'authenticated + engine call', url: at(service.ready.port, '/api/_bench/engine'), headers: auth, server: service.process },
      { name: 'GET /api/monsters (50 alarms)', url: at(service.ready.port, '/api/monsters'), headers: auth, server: service.process },
      { name: 'bare route, version answer', url: at(bare.ready.port, '/api/_bench/version'), headers: {}, server: bare.process },
      { name: 'GET /api/version (open)', url: at(service.ready.port, '/api/version'), headers: {}, server: service.process },
      { name: 'bare route, alarm-types bytes', url: at(bare.ready.port, '/api/_bench/alarm-types'), headers: {}, server: bare.process },
      { name: 'GET /api/alarm-types', url: at(service.ready.port, '/api/alarm-types'), headers: auth, server: service.process }
    ]

    const run = async (target: Target, amount: number): Promise<Measured> => {
      const cpu = async () => Promise.all([target.server, engine.process].map(async (p) => (await ask<{ micros: number }>(p, 'cpu')).micros))
      const before = await cpu()
      const result = await ask<LoadResult>(load.process, { url: target.url, headers: target.headers, amount } satisfies LoadJob)
      const after = await cpu()
      if (result.non2xx > 0 || result.errors > 0) throw new Error(`${target.name}: ${result.non2xx} non-2xx, ${result.errors} errors`)
      const per = (i: number) => ((after[i] ?? 0) - (before[i] ?? 0)) / result.requests
      return { name: target.name, cpuPerRequest: per(0), engineCpuPerRequest: per(1), rps: result.rps, p99: result.p99 }
    }

    // Warm-up: JIT, pools and caches in the same state for every target before measuring.
    for (const target of targets) await run(target, Math.min(REQUESTS, 10_000))
    // Two halves in opposite orders (A B C C B A), so load that drifts during the run (the machine is
    // shared) weighs on every target alike.
    const firstHalf: Measured[] = []
    for (const target of targets) firstHalf.push(await run(target, REQUESTS / 2))
    const secondHalf: Measured[] = []
    for (const target of [...targets].reverse()) secondHalf.unshift(await run(target, REQUESTS / 2))
    const measured = firstHalf.map((a, i): Measured => {
      const b = secondHalf[i] as Measured
      const mean = (f: (m: Measured) => number) => (f(a) + f(b)) / 2
      return { name: a.name, cpuPerRequest: mean((m) => m.cpuPerRequest), engineCpuPerRequest: mean((m) => m.engineCpuPerRequest), rps: mean((m) => m.rps), p99: Math.max(a.p99, b.p99) }
    })

    const jsonHeaders = await headerBytes(targets[2]?.url ?? '', auth)
    const listHeaders = await headerBytes(targets[4]?.url ?? '', auth)
    const atEnd = await ask<Memory>(service.process, 'memory')
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS))
    const idle = await ask<Memory>(service.process, 'memory')

    const byName = (name: string) => measured.find((m) => m.name.startsWith(name)) as Measured
    const base = byName('bare').cpuPerRequest
    console.log(`\n${REQUESTS.toLocaleString('en')} requests per route in two halves, ${CONNECTIONS} connections, load generator in its own process`)
    console.log('route                            CPU/request  ratio to bare   req/s   p99')
    for (const m of measured) {
      console.log(`${m.name.padEnd(32)} ${`${m.cpuPerRequest.toFixed(1)} µs`.padStart(10)}  ${(m.cpuPerRequest / base).toFixed(2).padStart(12)}  ${m.rps.toFixed(0).padStart(6)}  ${m.p99} ms`)
    }
    const list = byName('GET /api/monsters')
    const engineCall = byName('authenticated + engine call')
    console.log(`engine fake's own CPU per alarm list: ${list.engineCpuPerRequest.toFixed(1)} µs (not counted above)`)
    console.log(`alarm list over the engine call:      ${(list.cpuPerRequest - engineCall.cpuPerRequest).toFixed(1)} µs (GET /api/monsters minus authenticated + engine call)`)
    console.log(`authenticated / bare:                 ${(byName('authenticated').cpuPerRequest / base).toFixed(2)}`)
    console.log(`open route / bare:                    ${(byName('open route').cpuPerRequest / base).toFixed(2)}`)
    console.log(`version / bare with its answer:      ${(byName('GET /api/version').cpuPerRequest / byName('bare route, version').cpuPerRequest).toFixed(2)}`)
    console.log(`alarm-types / bare with its bytes:    ${(byName('GET /api/alarm-types').cpuPerRequest / byName('bare route, alarm').cpuPerRequest).toFixed(2)}`)
    console.log(`response headers: ${jsonHeaders} bytes (small JSON), ${listHeaders} bytes (alarm list)`)
    const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`
    console.log(`service memory after ${(targets.filter((target) => target.server === service.process).length * (REQUESTS + Math.min(REQUESTS, 10_000))).toLocaleString('en')} requests: RSS ${mib(atEnd.rss)}; after ${IDLE_MS / 1000} s idle ${mib(idle.rss)}, after a full GC ${mib(idle.rssAfterGc)} (JS heap in use ${mib(idle.heapUsed)})`)
    await stop(service.process)
    console.log(`cold start to listening: ${(await coldStart(env)).toFixed(0)} ms (dist/server.js, migrations applied to an empty database)`)
  } finally {
    for (const proc of children.reverse()) await stop(proc)
    await dropDatabases(DATABASES.service, DATABASES.engine)
  }
}

const roles: Record<string, () => Promise<void>> = { '--engine': () => engineFakeRole(SECRET), '--bare': bareRole, '--service': serviceRole, '--load': loadRole }
runRole(roles, main)
