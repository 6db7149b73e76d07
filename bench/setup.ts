import { randomBytes } from 'node:crypto'
import mariadb, { type Connection, type Pool } from 'mariadb'
import type { FastifyInstance } from 'fastify'
import { createEngineSchema } from '../test/fakes/engine-db.js'

/** Every benchmark talks to the local MariaDB as root, like the tests. */
export const BENCH_DB = { host: '127.0.0.1', port: 3306, user: 'root', password: '' }

/** A fresh pair of databases for one benchmark run: the service's (migrated by the app) and the engine's. */
export function benchDatabases (name: string): { service: string, engine: string } {
  return { service: `aw_bench_${name}_${process.pid}`, engine: `aw_bench_${name}_eng_${process.pid}` }
}

/** Creates the engine database with the engine's schema; the service database is the app's to create. */
export async function createEngineDatabase (database: string): Promise<void> {
  const connection = await mariadb.createConnection(BENCH_DB)
  try {
    await connection.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`)
    await connection.query(`USE \`${database}\``)
    await createEngineSchema(connection)
  } finally {
    await connection.end()
  }
}

export async function dropDatabases (...databases: string[]): Promise<void> {
  const connection = await mariadb.createConnection(BENCH_DB)
  try {
    for (const database of databases) await connection.query(`DROP DATABASE IF EXISTS \`${database}\``)
  } finally {
    await connection.end()
  }
}

/** The production-like environment every benchmark runs the service with. */
export function benchEnv (databases: { service: string, engine: string }, engineUrl: string, engineSecret: string): Record<string, string> {
  return {
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    JWT_SECRET: randomBytes(48).toString('base64'),
    CORS_ORIGIN: 'https://alarms.example.org',
    WEB_DB_NAME: databases.service,
    DB_NAME: databases.engine,
    PORACLE_API_ADDRESS: engineUrl,
    PORACLE_API_SECRET: engineSecret
  }
}

/** Writes a benchmark's starting rows into the engine database over one connection. */
export async function fillEngineDatabase (database: string, fill: (connection: Connection) => Promise<void>): Promise<void> {
  const connection = await mariadb.createConnection({ ...BENCH_DB, database, bigIntAsNumber: true, insertIdAsNumber: true })
  try {
    await fill(connection)
  } finally {
    await connection.end()
  }
}

/** A whole site for a benchmark: the engine database, the engine fake and the app, quiet below warnings. */
export interface BenchSite {
  app: FastifyInstance
  fake: Awaited<ReturnType<typeof import('../test/fakes/alarm-engine.js').startAlarmEngineFake>>
  /** Two connections to the engine database, for seeding. */
  pool: Pool
  close: () => Promise<void>
}

/**
 * Creates the engine database, starts the engine fake (NG) and the app against both (`env` adds to the
 * bench environment); `close` stops all three and drops the databases. The app and fake are imported here so a benchmark's own module
 * loads before them.
 */
export async function startBenchSite (databases: { service: string, engine: string }, engineSecret: string, env: Record<string, string> = {}): Promise<BenchSite> {
  const { startAlarmEngineFake } = await import('../test/fakes/alarm-engine.js')
  const { buildApp } = await import('../app.js')
  const { loadConfig } = await import('../plugins/base/config.js')
  await createEngineDatabase(databases.engine)
  const pool = mariadb.createPool({ ...BENCH_DB, database: databases.engine, bigIntAsNumber: true, insertIdAsNumber: true, connectionLimit: 2 })
  const fake = await startAlarmEngineFake({ database: databases.engine, secret: engineSecret, mode: 'ng' })
  const app = await buildApp({ config: loadConfig({ ...benchEnv(databases, fake.url, engineSecret), LOG_LEVEL: 'warn', ...env }), logger: { level: 'warn', stream: { write: () => {} } } })
  await app.ready()
  return {
    app,
    fake,
    pool,
    close: async () => {
      await app.close()
      await fake.close()
      await pool.end()
      await dropDatabases(databases.service, databases.engine)
    }
  }
}

/**
 * A site a browser benchmark drives: the engine database, the engine and master-file fakes and the app
 * listening on 127.0.0.1 (the origin it allows); `close` stops them all and drops the databases.
 */
export async function startListeningBenchSite (name: string, engineSecret: string) {
  const { startMasterfileFake } = await import('../test/fakes/masterfile.js')
  const databases = benchDatabases(name)
  const masterfile = await startMasterfileFake()
  const site = await startBenchSite(databases, engineSecret, { MASTERFILE_URL: masterfile.url, CORS_ORIGIN: 'http://127.0.0.1' })
  await site.app.listen({ host: '127.0.0.1', port: 0 })
  const address = site.app.server.address()
  return {
    app: site.app,
    engine: site.fake,
    databases,
    base: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`,
    close: async () => {
      await site.close()
      await masterfile.close()
    }
  }
}
