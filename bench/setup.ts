import { randomBytes } from 'node:crypto'
import mariadb from 'mariadb'
import { createEngineSchema, insertAlarm, insertHuman } from '../test/fakes/engine-db.js'

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

/** The user whose alarm list the benchmarks ask for, how many alarms they keep, and the engine's secret. */
export const BENCH_USER = '123456789012345678'
export const BENCH_ALARMS = 50
export const BENCH_ENGINE_SECRET = 'bench-engine-secret'

/** Creates the engine database and gives BENCH_USER BENCH_ALARMS pokemon alarms. */
export async function seedEngineDatabase (database: string): Promise<void> {
  await createEngineDatabase(database)
  const setup = await mariadb.createConnection({ ...BENCH_DB, database, bigIntAsNumber: true, insertIdAsNumber: true })
  try {
    await insertHuman(setup, { id: BENCH_USER })
    for (let i = 0; i < BENCH_ALARMS; i++) await insertAlarm(setup, 'pokemon', { id: BENCH_USER, pokemon_id: i + 1, min_iv: i % 100, distance: i * 10 })
  } finally {
    await setup.end()
  }
}

/**
 * The engine fake as a benchmark's child process, on the database named in BENCH_ENGINE_DB;
 * `answerQuestions` installs the coordinator's question handler.
 */
export async function engineRole (answerQuestions: () => void): Promise<void> {
  const { startAlarmEngineFake } = await import('../test/fakes/alarm-engine.js')
  const fake = await startAlarmEngineFake({ database: process.env.BENCH_ENGINE_DB ?? '', secret: BENCH_ENGINE_SECRET, mode: 'ng' })
  // The fake keeps every request for test assertions; a load run only needs the answers.
  const forget = setInterval(() => { fake.requests.length = 0 }, 1000)
  answerQuestions()
  process.on('SIGTERM', () => { clearInterval(forget); fake.close().then(() => process.exit(0), () => process.exit(1)) })
  process.send?.({ port: Number(new URL(fake.url).port) })
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
