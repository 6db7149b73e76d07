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

export const poolOptions = (options: ConnectionOptions): PoolConfig => ({
  host: options.host,
  port: options.port,
  user: options.user,
  password: options.password,
  ...(options.database === '' ? {} : { database: options.database }),
  connectionLimit: options.connectionLimit ?? 10,
  acquireTimeout: options.acquireTimeoutMs ?? 10_000,
  connectTimeout: 5_000,
  dateStrings: true,
  bigIntAsNumber: true,
  insertIdAsNumber: true,
  decimalAsNumber: true,
  timezone: '+00:00',
  initSql: "SET time_zone = '+00:00'"
})

export function createDb (options: ConnectionOptions): Db {
  const pool = mariadb.createPool(poolOptions(options))
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
