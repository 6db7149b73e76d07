import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Pool } from 'mariadb'
import { createDb, createPool, type ConnectionOptions, type Db } from '../../db/client.js'
import type { Config } from './config.js'
import { migrateServiceDb } from '../../db/migrate.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The service's own database: drizzle, the raw pool and transactions. */
    db: Db
  }
}

/** Where the service database is, as configured. */
export const serviceDbOptions = (config: Config): ConnectionOptions => ({
  host: config.WEB_DB_HOST,
  port: config.WEB_DB_PORT,
  user: config.WEB_DB_USER,
  password: config.WEB_DB_PASSWORD,
  database: config.WEB_DB_NAME
})

/**
 * Opens a pool of this app (`createPool` with the app's logger) and ends it when the app closes: every
 * plugin that talks to MariaDB gets its pool here.
 */
export function openPool (fastify: FastifyInstance, name: string, options: ConnectionOptions): Pool {
  const pool = createPool(name, options, fastify.log)
  fastify.metrics.watchPool(name, pool)
  fastify.addHook('onClose', async () => { await pool.end() })
  return pool
}

/** Opens the service database, creating and migrating it first, and closes the pool with the app. */
export default fp(async (fastify) => {
  const options = serviceDbOptions(fastify.config)
  const applied = await migrateServiceDb(options)
  if (applied > 0) fastify.log.info({ statements: applied, database: options.database }, 'service database migrated')
  fastify.decorate('db', createDb(openPool(fastify, 'service', options)))
}, { name: 'db', fastify: '5.x', dependencies: ['config', 'metrics'] })
