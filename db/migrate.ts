import { fileURLToPath } from 'node:url'
import { dirname, resolve } from 'node:path'
import mariadb from 'mariadb'
import { drizzle } from 'drizzle-orm/mysql-proxy'
import { migrate } from 'drizzle-orm/mysql-proxy/migrator'
import type { ConnectionOptions } from './client.js'
import { poolOptions } from './client.js'

/** Works from the sources (db/) and from the build (dist/db/): the SQL files stay in db/migrations. */
function migrationsFolder (): string {
  const here = dirname(fileURLToPath(import.meta.url))
  return here.endsWith('/dist/db')
    ? resolve(here, '../../db/migrations')
    : resolve(here, 'migrations')
}

const LOCK_NAME = 'alarm_web_migrations'
const LOCK_TIMEOUT_SECONDS = 120

/**
 * Creates the service database when it is missing (and the user may), then applies pending migrations
 * under a MariaDB named lock, so instances starting together apply each migration exactly once.
 * Returns the number of statements applied.
 */
export async function migrateServiceDb (options: ConnectionOptions): Promise<number> {
  const connection = await mariadb.createConnection(poolOptions({ ...options, database: '' }))
  try {
    await connection.query(`CREATE DATABASE IF NOT EXISTS \`${options.database.replace(/`/g, '``')}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`)
    await connection.query(`USE \`${options.database.replace(/`/g, '``')}\``)
    const [lock] = await connection.query('SELECT GET_LOCK(?, ?) AS acquired', [LOCK_NAME, LOCK_TIMEOUT_SECONDS]) as Array<{ acquired: number | null }>
    if (lock?.acquired !== 1) throw new Error(`could not take the migration lock within ${LOCK_TIMEOUT_SECONDS} s`)
    try {
      let applied = 0
      const db = drizzle(async (sql, params, method) => method === 'all'
        ? { rows: await connection.query({ sql, rowsAsArray: true }, params) }
        : { rows: [await connection.query(sql, params)] })
      await migrate(db, async (queries) => {
        for (const query of queries) {
          await connection.query(query)
          applied++
        }
      }, { migrationsFolder: migrationsFolder() })
      return applied
    } finally {
      await connection.query('SELECT RELEASE_LOCK(?)', [LOCK_NAME])
    }
  } finally {
    await connection.end()
  }
}
