/**
 * The cost of the plugin stack: an authenticated GET through the whole app (security headers, CORS,
 * request ids, JWT verification, blocked-account check, production log level) against a bare Fastify
 * route answering the same JSON, both measured with the same load generator in this run.
 * Then the cold start: process start to listening, with migrations applied to an empty database.
 *
 *   npm run bench:http            (MariaDB on 127.0.0.1:3306, root without password)
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import autocannon from 'autocannon'
import Fastify from 'fastify'
import { buildApp } from '../app.js'
import { loadConfig } from '../plugins/config.js'
import { startAlarmEngineFake } from '../test/fakes/alarm-engine.js'
import { insertHuman } from '../test/fakes/engine-db.js'
import { benchDatabases, benchEnv, createEngineDatabase, dropDatabases } from './setup.js'

const ROOT = join(import.meta.dirname, '..')
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10)
const CONNECTIONS = 32
const DATABASES = benchDatabases('http')
const SECRET = 'bench-engine-secret'

const PAYLOAD = { userId: '1234567890', username: 'bench', type: 'chat:user', isAdmin: false, enabled: true, profileNo: 1 }

async function load (url: string, headers: Record<string, string> = {}) {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers })
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`)
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 }
}

async function coldStart (env: Record<string, string>): Promise<number> {
  if (!existsSync(join(ROOT, 'dist', 'server.js'))) spawnSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' })
  const database = `aw_bench_cold_${process.pid}`
  const started = performance.now()
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'server.js')], {
    cwd: ROOT,
    env: { ...process.env, ...env, WEB_DB_NAME: database, PORT: '18099', HOST: '127.0.0.1' },
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

async function main (): Promise<void> {
  await createEngineDatabase(DATABASES.engine)
  // A real engine behind the app: the blocked-account check asks it once, then serves from its cache.
  const engine = await startAlarmEngineFake({ database: DATABASES.engine, secret: SECRET })
  const env = benchEnv(DATABASES, engine.url, SECRET)
  const app = await buildApp({ config: loadConfig(env), logger: { level: 'info', stream: { write: () => {} } } })
  app.get('/api/_bench', { onRequest: app.auth.authenticate }, async (request) => ({ userId: request.user.userId, profileNo: request.user.profileNo }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  await insertHuman(app.engineDb.pool, { id: PAYLOAD.userId, name: PAYLOAD.username })
  const token = app.auth.mint(PAYLOAD, 60).token

  const bare = Fastify({ logger: { level: 'info', stream: { write: () => {} } } })
  bare.get('/api/_bench', async () => ({ userId: PAYLOAD.userId, profileNo: PAYLOAD.profileNo }))
  await bare.listen({ port: 0, host: '127.0.0.1' })

  const address = (server: typeof bare) => { const a = server.server.address(); return typeof a === 'object' && a ? `http://127.0.0.1:${a.port}` : '' }

  // A short warm-up of both, so JIT and pools are in the same state before measuring.
  await autocannon({ url: `${address(bare)}/api/_bench`, connections: 8, duration: 2 })
  await autocannon({ url: `${address(app as unknown as typeof bare)}/api/_bench`, connections: 8, duration: 2, headers: { authorization: `Bearer ${token}` } })

  const baseline = await load(`${address(bare)}/api/_bench`)
  const stack = await load(`${address(app as unknown as typeof bare)}/api/_bench`, { authorization: `Bearer ${token}` })
  await app.close()
  await bare.close()

  const cold = await coldStart(env)
  await engine.close()
  await dropDatabases(DATABASES.service, DATABASES.engine)

  console.log(`\n${CONNECTIONS} connections, ${DURATION_S} s each`)
  console.log(`bare fastify route      ${baseline.rps.toFixed(0).padStart(7)} req/s  p50 ${baseline.p50} ms  p99 ${baseline.p99} ms`)
  console.log(`authenticated full app  ${stack.rps.toFixed(0).padStart(7)} req/s  p50 ${stack.p50} ms  p99 ${stack.p99} ms`)
  console.log(`ratio (full / bare)     ${(stack.rps / baseline.rps).toFixed(2)}`)
  console.log(`cold start to listening ${cold.toFixed(0)} ms (dist/server.js, migrations applied to an empty database)`)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
