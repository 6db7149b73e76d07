import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'

const CheckSchema = Type.Object({ ok: Type.Boolean(), latencyMs: Type.Number(), error: Type.Optional(Type.String()) })
const ReadySchema = Type.Object({
  ready: Type.Boolean(),
  failing: Type.Array(Type.Union([Type.Literal('serviceDb'), Type.Literal('engineDb'), Type.Literal('engineApi')]))
})
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

/**
 * `/health`: every dependency with its latency (200 when all answer, 503 otherwise); any answer at all
 * means the process is alive. `/health/ready`: whether this instance should get traffic, the same checks
 * as a yes or no (503 also while it shuts down, which Fastify answers for every request then).
 */
const healthRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { db, engineDb, engine } = fastify

  async function check () {
    const [serviceDb, engineDbCheck, engineApi] = await Promise.all([
      timed(() => db.ping()),
      timed(() => engineDb.ping()),
      timed(() => engine.health({ timeoutMs: CHECK_BUDGET_MS }))
    ])
    return { ok: serviceDb.ok && engineDbCheck.ok && engineApi.ok, checks: { serviceDb, engineDb: engineDbCheck, engineApi } }
  }

  fastify.get('/health', {
    schema: { tags: ['health'], response: { 200: HealthSchema, 503: HealthSchema } }
  }, async (_request, reply) => {
    const { ok, checks } = await check()
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'degraded', checks })
  })

  fastify.get('/health/ready', {
    schema: { tags: ['health'], response: { 200: ReadySchema, 503: ReadySchema } }
  }, async (_request, reply) => {
    const { ok, checks } = await check()
    // No body a load balancer must parse: the status is the answer; `failing` names what to look at.
    const failing = (Object.keys(checks) as Array<keyof typeof checks>).filter((name) => !checks[name].ok)
    return reply.code(ok ? 200 : 503).header('cache-control', 'no-store').send({ ready: ok, failing })
  })
}

export default healthRoutes
