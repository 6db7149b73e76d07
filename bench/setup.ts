import { randomBytes } from 'node:crypto'
import mariadb, { type Connection } from 'mariadb'
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
