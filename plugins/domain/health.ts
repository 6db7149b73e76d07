import type { FastifyInstance } from 'fastify'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'

/**
 * Each check's budget: the health answer comes within 2 s whatever a dependency does (a hanging engine
 * or database is reported as failing, not waited for).
 */
const CHECK_BUDGET_MS = 1500

class CheckTimeout extends Error {}

export interface Check { ok: boolean, latencyMs: number, error?: string }

async function timed (probe: () => Promise<unknown>): Promise<Check> {
  const started = performance.now()
  let timer: NodeJS.Timeout | undefined
  try {
    const late = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => reject(new CheckTimeout()), CHECK_BUDGET_MS) })
    await Promise.race([probe(), late])
    return { ok: true, latencyMs: Math.round((performance.now() - started) * 10) / 10 }
  } catch (error) {
    const latencyMs = Math.round((performance.now() - started) * 10) / 10
    // The error's class is enough for an operator; its message may carry hosts or credentials.
    if (error instanceof CheckTimeout) return { ok: false, latencyMs, error: `no answer within ${CHECK_BUDGET_MS} ms` }
    return { ok: false, latencyMs, error: (error as Error).name === 'EngineError' ? (error as Error).message : 'unavailable' }
  } finally {
    clearTimeout(timer)
  }
}

/** Whether this instance's dependencies answer: the service's database, the engine's, the engine's API. */
function createHealth (fastify: FastifyInstance) {
  const { db, engineDb, engine } = fastify
  return {
    async check (): Promise<{ ok: boolean, checks: { serviceDb: Check, engineDb: Check, engineApi: Check } }> {
      const [serviceDb, engineDbCheck, engineApi] = await Promise.all([
        timed(() => db.ping()),
        timed(() => engineDb.ping()),
        timed(() => engine.health({ timeoutMs: CHECK_BUDGET_MS }))
      ])
      return { ok: serviceDb.ok && engineDbCheck.ok && engineApi.ok, checks: { serviceDb, engineDb: engineDbCheck, engineApi } }
    }
  }
}

export type Health = ReturnType<typeof createHealth>

declare module 'fastify' {
  interface FastifyInstance {
    health: Health
  }
}

export default decoratorPlugin('health', createHealth, ['db', 'engine-db', 'engine'])
