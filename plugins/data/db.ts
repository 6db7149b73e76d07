import fp from 'fastify-plugin'
import { createDb, type ConnectionOptions, type Db } from '../../db/client.js'
import type { Config } from '../base/config.js'
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

/** Opens the service database, creating and migrating it first, and closes the pool with the app. */
export default fp(async (fastify) => {
  const options = serviceDbOptions(fastify.config)
  const applied = await migrateServiceDb(options)
  if (applied > 0) fastify.log.info({ statements: applied, database: options.database }, 'service database migrated')
  fastify.decorate('db', createDb(fastify.pools.open('service', options)))
}, { name: 'db', fastify: '5.x', dependencies: ['config', 'pools'] })
