import fp from 'fastify-plugin'
import { createDb, type Db } from '../db/client.js'

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The alarm engine's database. Owned and migrated by the engine: only the direct operations the spec
     * lists may touch it (admin bulk user operations, profile rename, user-geofence area writes,
     * per-alarm override areas, the schema-migrations probe). Everything else goes through `engine`.
     */
    engineDb: Db
  }
}

export default fp(async (fastify) => {
  const { config } = fastify
  const db = createDb({
    host: config.DB_HOST,
    port: config.DB_PORT,
    user: config.DB_USER,
    password: config.DB_PASSWORD,
    database: config.DB_NAME,
    connectionLimit: 5
  })
  fastify.decorate('engineDb', db)
  fastify.addHook('onClose', async () => { await db.close() })
}, { name: 'engine-db', fastify: '5.x', dependencies: ['config'] })
