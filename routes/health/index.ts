import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

const CheckSchema = Type.Object({ ok: Type.Boolean(), latencyMs: Type.Number(), error: Type.Optional(Type.String()) })
const HealthSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  checks: Type.Object({ serviceDb: CheckSchema, engineDb: CheckSchema, engineApi: CheckSchema })
})

/**
 * Each check's budget: the health answer comes within 2 s whatever a dependency does (a hanging engine
 * or database is reported as failing, not waited for).
 */
const CHECK_BUDGET_MS = 1500

class CheckTimeout extends Error {}

async function timed (probe: () => Promise<unknown>): Promise<{ ok: boolean, latencyMs: number, error?: string }> {
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

/** Liveness and dependencies (200 when all answer, 503 otherwise) and the build identity. */
const healthRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { db, engineDb, engine, config } = fastify

  fastify.get('/health', {
    schema: { tags: ['health'], response: { 200: HealthSchema, 503: HealthSchema } }
  }, async (_request, reply) => {
    const [serviceDb, engineDbCheck, engineApi] = await Promise.all([
      timed(() => db.ping()),
      timed(() => engineDb.ping()),
      timed(() => engine.health({ timeoutMs: CHECK_BUDGET_MS }))
    ])
    const ok = serviceDb.ok && engineDbCheck.ok && engineApi.ok
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'degraded', checks: { serviceDb, engineDb: engineDbCheck, engineApi } })
  })

  fastify.get('/version', {
    schema: {
      tags: ['health'],
      response: { 200: Type.Object({ version: Type.String(), revision: Type.String(), revisionShort: Type.String(), buildDate: Type.String(), environment: Type.String() }) }
    }
  }, async () => ({
    version: config.BUILD_VERSION,
    revision: config.BUILD_REVISION,
    revisionShort: config.BUILD_REVISION.slice(0, 7),
    buildDate: config.BUILD_DATE,
    environment: config.NODE_ENV
  }))
}

export default healthRoutes
