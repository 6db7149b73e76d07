import type { FastifyInstance } from 'fastify'
import type { Pool } from 'mariadb'
import { createPool, type ConnectionOptions } from '../../db/client.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'

function createPools (fastify: FastifyInstance) {
  const { log, metrics } = fastify
  return {
    /**
     * Opens a pool of this app (`createPool` with the app's logger), reports it on every metrics scrape
     * and ends it when the app closes. Called while the app registers, by each plugin that owns a pool:
     * its `onClose` then takes its place among the plugins' own, as if the plugin had added it itself.
     */
    open (name: string, options: ConnectionOptions): Pool {
      const pool = createPool(name, options, log)
      metrics.watchPool(name, pool)
      fastify.addHook('onClose', async () => { await pool.end() })
      return pool
    }
  }
}

export type Pools = ReturnType<typeof createPools>

declare module 'fastify' {
  interface FastifyInstance {
    /** Every MariaDB pool of the app goes through it: the service's, the engine's and the scanner's. */
    pools: Pools
  }
}

/** The app's MariaDB pools: one way to open one, each watched by the metrics and closed with the app. */
export default decoratorPlugin('pools', createPools, ['metrics'])
