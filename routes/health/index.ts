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
 * `/health`: every dependency with its latency (200 when all answer, 503 otherwise); any answer at all
 * means the process is alive. `/health/ready`: whether this instance should get traffic, the same checks
 * as a yes or no (503 also while it shuts down, which Fastify answers for every request then).
 */
const healthRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { health } = fastify

  fastify.get('/health', {
    schema: { tags: ['health'], response: { 200: HealthSchema, 503: HealthSchema } }
  }, async (_request, reply) => {
    const { ok, checks } = await health.check()
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'degraded', checks })
  })

  fastify.get('/health/ready', {
    schema: { tags: ['health'], response: { 200: ReadySchema, 503: ReadySchema } }
  }, async (_request, reply) => {
    const { ok, checks } = await health.check()
    // No body a load balancer must parse: the status is the answer; `failing` names what to look at.
    const failing = (Object.keys(checks) as Array<keyof typeof checks>).filter((name) => !checks[name].ok)
    return reply.code(ok ? 200 : 503).header('cache-control', 'no-store').send({ ready: ok, failing })
  })
}

export default healthRoutes
