import type { EventEmitter } from 'node:events'
import mariadb, { type Pool, type PoolConnection, type PoolConfig } from 'mariadb'
import { drizzle, type MySqlRemoteDatabase, type RemoteCallback } from 'drizzle-orm/mysql-proxy'

export interface ConnectionOptions {
  host: string
  port: number
  user: string
  password: string
  database: string
  connectionLimit?: number
  /** How long a query waits for a connection (including connecting) before failing; default 10 s. */
  acquireTimeoutMs?: number
  /** Connections kept open while idle; default all of `connectionLimit`. */
  minimumIdle?: number
}

/** Where a pool reports what no query sees: the app's logger (pino's argument order). */
export interface PoolLog {
  error: (details: object, message: string) => void
}

export type Database = MySqlRemoteDatabase

/** What drizzle's proxy driver needs from a connection: rows as value arrays for `all`, the OK packet for `execute`. */
function callbackFor (target: Pool | PoolConnection): RemoteCallback {
  return async (sql, params, method) => method === 'all'
    ? { rows: await target.query({ sql, rowsAsArray: true }, params) }
    : { rows: [await target.query(sql, params)] }
}

export interface Db {
  /** The drizzle query builder over the pool. */
  db: Database
  /** The raw pool, for the few statements drizzle cannot express (locks, set-based deletes). */
  pool: Pool
  /**
   * Runs `work` on one connection between BEGIN and COMMIT; any throw rolls back and re-throws.
   * drizzle's proxy driver has no transactions of its own, so this lends `work` a drizzle instance bound
   * to the borrowed connection, plus the connection itself for raw SQL.
   */
  transaction: <T>(work: (tx: Database, connection: PoolConnection) => Promise<T>) => Promise<T>
  /** One round trip to the server (health checks); throws when it cannot be reached. */
  ping: () => Promise<void>
  close: () => Promise<void>
}

/** The settings of every connection the service opens: UTC times as strings, numbers as numbers, utf8mb4. */
export const poolOptions = (options: ConnectionOptions): PoolConfig => ({
  host: options.host,
  port: options.port,
  user: options.user,
  password: options.password,
  ...(options.database === '' ? {} : { database: options.database }),
  connectionLimit: options.connectionLimit ?? 10,
  ...(options.minimumIdle === undefined ? {} : { minimumIdle: options.minimumIdle }),
  acquireTimeout: options.acquireTimeoutMs ?? 10_000,
  connectTimeout: 5_000,
  collation: 'UTF8MB4_UNICODE_CI',
  dateStrings: true,
  bigIntAsNumber: true,
  insertIdAsNumber: true,
  decimalAsNumber: true,
  timezone: '+00:00',
  initSql: "SET time_zone = '+00:00'"
})

/**
 * The one way the service opens a MariaDB pool. A pool that cannot open a connection retries by itself
 * and tells only its listeners why, so the reason (refused, wrong password, unknown database) is logged
 * here under the pool's `name`; the queries waiting meanwhile fail with a bare timeout.
 */
export function createPool (name: string, options: ConnectionOptions, log: PoolLog): Pool {
  const pool = mariadb.createPool(poolOptions(options))
  // The driver's type definitions leave out the 'error' event its pools emit.
  ;(pool as unknown as EventEmitter).on('error', (err: Error) => {
    log.error({ err, pool: name, host: options.host, port: options.port, database: options.database }, 'database pool cannot open a connection')
  })
  return pool
}

/** drizzle, transactions and a health ping over a pool from `createPool`; `close` ends the pool. */
export function createDb (pool: Pool): Db {
  return {
    db: drizzle(callbackFor(pool)),
    pool,
    async transaction (work) {
      const connection = await pool.getConnection()
      try {
        await connection.beginTransaction()
        try {
          const result = await work(drizzle(callbackFor(connection)), connection)
          await connection.commit()
          return result
        } catch (error) {
          await connection.rollback().catch(() => {})
          throw error
        }
      } finally {
        await connection.release()
      }
    },
    async ping () {
      await pool.query('SELECT 1')
    },
    close: () => pool.end()
  }
}

/** Formats epoch milliseconds as the UTC `datetime(6)` string the tables store. */
export function toSqlTime (ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace('Z', '')
}

/** Parses a UTC `datetime(6)` string back to epoch milliseconds. */
export function fromSqlTime (value: string): number {
  return Date.parse(`${value.replace(' ', 'T')}Z`)
}
