import { randomBytes } from 'node:crypto'
import { Writable } from 'node:stream'
import mariadb, { type Connection } from 'mariadb'
import tap from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../app.js'
import { loadConfig, type Config } from '../plugins/base/config.js'
import { ManualClock } from '../plugins/base/clock.js'
import type { TokenClaims } from '../plugins/edge/auth.js'
import { createEngineSchema, insertHuman, type SeedHuman } from './fakes/engine-db.js'
import { startAlarmEngineFake } from './fakes/alarm-engine.js'
import { webhookHandles } from '../lib/webhook-handle.js'

/** The type of `t` inside a tap test callback. */
export type Test = Parameters<Parameters<typeof tap.test>[0]>[0]

export const ROOT = { host: '127.0.0.1', port: 3306, user: 'root', password: '' }
export const ENGINE_SECRET = 'engine-shared-secret'
/** Generated with `openssl rand -base64 48`, as the configuration asks; weak secrets are refused at start. */
export const JWT_SECRET = 'LnSx9d2+nIEUqmrCIwzf6RRxHLikkU1x6pLU26mgJig2ujyPthGPvErBi8tbg33c'

/** The handle a delegate knows `webhook` by in an app built with the test JWT_SECRET. */
export const webhookHandle = (webhook: string): string => webhookHandles(JWT_SECRET).handleOf(webhook)

/** A connection to the server without a default database, for creating and dropping test databases. */
export async function rootConnection (): Promise<Connection> {
  // A busy machine can take more than the driver's 1 s default to open a socket.
  return mariadb.createConnection({ ...ROOT, connectTimeout: 10_000, bigIntAsNumber: true, insertIdAsNumber: true, dateStrings: true })
}

export interface TestDatabases { service: string, engine: string }
let databases: Promise<TestDatabases> | undefined

/**
 * A fresh pair of databases, dropped when the file's tests end: the service database is created and
 * migrated by the app itself; the engine database gets the engine's schema.
 */
export async function newTestDatabases (): Promise<TestDatabases> {
  const suffix = `${process.pid}_${randomBytes(3).toString('hex')}`
  const names = { service: `aw_test_svc_${suffix}`, engine: `aw_test_eng_${suffix}` }
  const connection = await rootConnection()
  try {
    await connection.query(`CREATE DATABASE \`${names.engine}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`)
    await connection.query(`USE \`${names.engine}\``)
    await createEngineSchema(connection)
  } finally {
    await connection.end()
  }
  tap.teardown(async () => {
    const drop = await rootConnection()
    await drop.query(`DROP DATABASE IF EXISTS \`${names.service}\``)
    await drop.query(`DROP DATABASE IF EXISTS \`${names.engine}\``)
    await drop.end()
  })
  return names
}

/**
 * The test process's own pair (tap runs each file in its own process), shared by the file's tests.
 */
export function testDatabases (): Promise<TestDatabases> {
  databases ??= newTestDatabases().then((names) => {
    tap.teardown(() => {
      // Every test of the file is over. A handle left open (a socket, a timer) must not hold the whole run
      // until tap's 600 s timeout: it is named on stderr and the process ends with the code tap set.
      setTimeout(() => {
        process.stderr.write(`${process.argv[1] ?? 'test'}: still running 10 s after its tests ended; open: ${process.getActiveResourcesInfo().join(', ')}\n`)
        process.exit()
      }, 10_000).unref()
    })
    return names
  })
  return databases
}

/** The environment every test starts from: a valid production-like configuration. */
export function baseEnv (dbs: TestDatabases, engineUrl = 'http://127.0.0.1:9'): Record<string, string> {
  return {
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    JWT_SECRET,
    // The public site first (the fallback for requests naming another host), then the origins tests
    // address the service at (inject's default Host is localhost).
    CORS_ORIGIN: 'https://alarms.example.org,http://localhost,https://localhost',
    WEB_DB_HOST: ROOT.host,
    WEB_DB_PORT: String(ROOT.port),
    WEB_DB_USER: ROOT.user,
    WEB_DB_NAME: dbs.service,
    DB_HOST: ROOT.host,
    DB_PORT: String(ROOT.port),
    DB_USER: ROOT.user,
    DB_NAME: dbs.engine,
    PORACLE_API_ADDRESS: engineUrl,
    PORACLE_API_SECRET: ENGINE_SECRET,
    ENGINE_TIMEOUT_MS: '2000',
    // The app runs on a manual clock that only tests move: an open breaker would stay open for the rest
    // of a file. Tests of the breaker switch it on.
    ENGINE_BREAKER_SECONDS: '0'
  }
}

export interface BuildOptions {
  /** Extra environment variables, parsed like real ones. */
  env?: Record<string, string>
  /** Typed overrides applied after parsing (e.g. raised rate limits). */
  config?: Partial<Config>
  engineMode?: 'ng' | 'js'
  /** Capture log lines (at `level`) into `logs`. */
  logLevel?: string
  /** Extra routes a test needs (registered before the app is ready). */
  routes?: (app: FastifyInstance) => void
  /** Databases of the app's own (newTestDatabases) instead of the file's shared pair, for apps that run side by side. */
  databases?: TestDatabases
}

export interface TestApp {
  app: FastifyInstance
  config: Config
  clock: ManualClock
  engine: Awaited<ReturnType<typeof startAlarmEngineFake>>
  logs: Array<Record<string, unknown>>
  /** Every log line as written, for "never logged" assertions. */
  rawLogs: () => string
  dbs: TestDatabases
}

/** Builds the whole app against fresh databases and a running engine fake; closes both after the test. */
export async function build (t: Test, options: BuildOptions = {}): Promise<TestApp> {
  const dbs = options.databases ?? await testDatabases()
  const engine = await startAlarmEngineFake({ database: dbs.engine, secret: ENGINE_SECRET, mode: options.engineMode ?? 'ng' })
  t.teardown(() => engine.close())
  const config = { ...loadConfig({ ...baseEnv(dbs, engine.url), ...options.env }), ...options.config }
  const clock = new ManualClock(Date.parse('2026-11-26T12:00:00Z'))
  const lines: string[] = []
  const stream = new Writable({ write (chunk, _encoding, done) { lines.push(String(chunk)); done() } })
  const app = await buildApp({ config, clock, logger: { level: options.logLevel ?? 'warn', stream } })
  t.teardown(() => app.close())
  await resetData(app)
  options.routes?.(app)
  await app.ready()
  return {
    app,
    config,
    clock,
    engine,
    dbs,
    get logs () { return lines.flatMap((l) => l.split('\n')).filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>) },
    rawLogs: () => lines.join('')
  }
}

/**
 * Another instance of the same site, as a scaled-out deployment runs it: the same databases and engine,
 * its own pools and processes-worth of state. Does not reset data.
 */
export async function buildInstance (t: Test, of: TestApp, config: Partial<Config> = {}): Promise<FastifyInstance> {
  const app = await buildApp({ config: { ...of.config, ...config }, clock: of.clock, logger: false })
  t.teardown(() => app.close())
  await app.ready()
  return app
}

/** Every test starts from empty tables: the file's databases are shared by its tests. */
async function resetData (app: FastifyInstance): Promise<void> {
  await app.after()
  for (const pool of [app.db.pool, app.engineDb.pool]) {
    const tables = await pool.query("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name NOT IN ('__drizzle_migrations', 'schema_migrations', 'migrations')") as Array<{ name: string }>
    for (const { name } of tables) await pool.query(`DELETE FROM \`${name}\``)
  }
}

/** A signed-in user's Authorization header, minted by the app itself. */
export function bearer (app: FastifyInstance, claims: Partial<TokenClaims> & { userId: string }, minutes = 60): { authorization: string } {
  const { token } = app.auth.mint({
    username: claims.userId,
    type: 'discord:user',
    isAdmin: false,
    enabled: true,
    profileNo: 1,
    ...claims
  }, minutes)
  return { authorization: `Bearer ${token}` }
}

/** Seeds an engine user (with profile 1) straight into the engine database. */
export async function seedHuman (testApp: TestApp, human: SeedHuman): Promise<void> {
  await insertHuman(testApp.app.engineDb.pool, human)
}
