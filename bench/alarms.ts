/**
 * The cost of the alarm layer: GET /api/monsters for a user with 50 alarms through the service (JWT,
 * blocked-account check, feature gate, engine call, reshaping, serialisation) against the same list
 * asked straight from the engine fake, both measured with the same load generator in this run.
 * The engine fake and the service each run in their own process, so the service's peak RSS is its own.
 *
 *   npm run bench:alarms            (MariaDB on 127.0.0.1:3306, root without password)
 */
import type { ChildProcess } from 'node:child_process'
import autocannon from 'autocannon'
import mariadb from 'mariadb'
import { BENCH_DB, benchDatabases, benchEnv, createEngineDatabase, dropDatabases } from './setup.js'
import { ask, cpuMicros, startRole, stop } from './processes.js'

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10)
const MANY = 32
const ALARMS = 50
const SECRET = 'bench-engine-secret'
const USER = '123456789012345678'
// Named after the parent's pid; the children are told the names in their environment.
const DATABASES = benchDatabases('alarms')

const cpuNow = () => ({ micros: cpuMicros() })

/** One autocannon run; `measured` are the processes whose CPU time per request is reported. */
async function load (url: string, connections: number, headers: Record<string, string>, measured: ChildProcess[]) {
  const cpu = async () => Promise.all(measured.map(async (p) => (await ask<{ micros: number }>(p, 'cpu')).micros / 1000))
  const before = await cpu()
  const result = await autocannon({ url, connections, duration: DURATION_S, headers })
  const after = await cpu()
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`)
  const cpuPerRequest = after.map((a, i) => (a - (before[i] ?? 0)) / result.requests.total)
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpuPerRequest }
}

async function engineRole (): Promise<void> {
  const { startAlarmEngineFake } = await import('../test/fakes/alarm-engine.js')
  const fake = await startAlarmEngineFake({ database: process.env.BENCH_ENGINE_DB ?? '', secret: SECRET, mode: 'ng' })
  // The fake keeps every request for test assertions; a load run only needs the answers.
  const forget = setInterval(() => { fake.requests.length = 0 }, 1000)
  process.on('message', (question) => { if (question === 'cpu') process.send?.(cpuNow()) })
  process.on('SIGTERM', () => { clearInterval(forget); fake.close().then(() => process.exit(0), () => process.exit(1)) })
  process.send?.({ port: Number(new URL(fake.url).port) })
}

async function serviceRole (): Promise<void> {
  const { buildApp } = await import('../app.js')
  const { loadConfig } = await import('../plugins/base/config.js')
  const app = await buildApp({ config: loadConfig(process.env as Record<string, string>), logger: { level: 'info', stream: { write: () => {} } } })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const address = app.server.address()
  process.on('message', (question) => {
    if (question === 'rss') process.send?.({ maxRss: process.resourceUsage().maxRSS * 1024 })
    if (question === 'cpu') process.send?.(cpuNow())
    if (question === 'token') {
      process.send?.({ token: app.auth.mint({ userId: USER, username: 'bench', type: 'discord:user', isAdmin: false, enabled: true, profileNo: 1 }, 60).token })
    }
  })
  process.on('SIGTERM', () => { app.close().then(() => process.exit(0), () => process.exit(1)) })
  process.send?.({ port: typeof address === 'object' && address !== null ? address.port : 0 })
}

async function main (): Promise<void> {
  const { insertAlarm, insertHuman } = await import('../test/fakes/engine-db.js')
  await createEngineDatabase(DATABASES.engine)
  const setup = await mariadb.createConnection({ ...BENCH_DB, database: DATABASES.engine, bigIntAsNumber: true, insertIdAsNumber: true })
  await insertHuman(setup, { id: USER })
  for (let i = 0; i < ALARMS; i++) await insertAlarm(setup, 'pokemon', { id: USER, pokemon_id: i + 1, min_iv: i % 100, distance: i * 10 })
  await setup.end()

  const children: ChildProcess[] = []
  try {
    const engine = await startRole(import.meta.filename, '--engine', { BENCH_ENGINE_DB: DATABASES.engine })
    children.push(engine.process)
    const service = await startRole(import.meta.filename, '--service', benchEnv(DATABASES, `http://127.0.0.1:${engine.ready.port}`, SECRET))
    children.push(service.process)
    const { token } = await ask<{ token: string }>(service.process, 'token')

    const direct = { url: `http://127.0.0.1:${engine.ready.port}/api/tracking/pokemon/${USER}`, headers: { 'x-poracle-secret': SECRET } }
    const through = { url: `http://127.0.0.1:${service.ready.port}/api/monsters`, headers: { authorization: `Bearer ${token}` } }

    // The same answer both ways, then a warm-up of both so JIT, pools and caches are in the same state.
    const [viaEngine, viaService] = await Promise.all([
      fetch(direct.url, { headers: direct.headers }).then(async (r) => (await r.json() as { pokemon: unknown[] }).pokemon.length),
      fetch(through.url, { headers: through.headers }).then(async (r) => (await r.json() as unknown[]).length)
    ])
    if (viaEngine !== ALARMS || viaService !== ALARMS) throw new Error(`expected ${ALARMS} alarms, got ${viaEngine} and ${viaService}`)
    for (const target of [direct, through]) await autocannon({ ...target, connections: 8, duration: 2 })

    const engineOne = await load(direct.url, 1, direct.headers, [])
    const serviceOne = await load(through.url, 1, through.headers, [])
    const engineMany = await load(direct.url, MANY, direct.headers, [engine.process])
    const serviceMany = await load(through.url, MANY, through.headers, [service.process, engine.process])
    const { maxRss } = await ask<{ maxRss: number }>(service.process, 'rss')

    const ms = (n: number) => `${n.toFixed(2)} ms`
    console.log(`\nGET /api/monsters, ${ALARMS} alarms, ${DURATION_S} s per run`)
    console.log('1 connection            p50        p99')
    console.log(`engine fake directly    ${ms(engineOne.p50).padEnd(10)} ${ms(engineOne.p99)}`)
    console.log(`through the service     ${ms(serviceOne.p50).padEnd(10)} ${ms(serviceOne.p99)}`)
    console.log(`added latency           ${ms(serviceOne.p50 - engineOne.p50).padEnd(10)} ${ms(serviceOne.p99 - engineOne.p99)}`)
    console.log(`${MANY} connections`)
    console.log(`engine fake directly    ${engineMany.rps.toFixed(0).padStart(6)} req/s`)
    console.log(`through the service     ${serviceMany.rps.toFixed(0).padStart(6)} req/s`)
    console.log(`ratio (service / engine) ${(serviceMany.rps / engineMany.rps).toFixed(2)}`)
    const us = (n: number) => `${(n * 1000).toFixed(0)} µs`
    const engineCpu = engineMany.cpuPerRequest[0] ?? 0
    const serviceCpu = serviceMany.cpuPerRequest[0] ?? 0
    console.log(`CPU per request         engine ${us(engineCpu)}, service ${us(serviceCpu)} (+ engine ${us(serviceMany.cpuPerRequest[1] ?? 0)})`)
    console.log(`service over engine     ${us(serviceCpu - engineCpu)} per request (ratio ${(serviceCpu / engineCpu).toFixed(2)})`)
    console.log(`service peak RSS        ${(maxRss / 1024 / 1024).toFixed(0)} MiB`)
  } finally {
    for (const proc of children.reverse()) await stop(proc)
    await dropDatabases(DATABASES.service, DATABASES.engine)
  }
}

const role = process.argv[2]
const run = role === '--engine' ? engineRole : role === '--service' ? serviceRole : main
run().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
