import fp from 'fastify-plugin'
import { createEngineClient, type EngineClient } from './engine/routes.js'

export { createEngineClient, type EngineClient } from './engine/routes.js'
export * from './engine/types.js'

declare module 'fastify' {
  interface FastifyInstance {
    engine: EngineClient
  }
}

export default fp(async (fastify) => {
  const { config } = fastify
  const engine = createEngineClient({
    baseUrl: config.PORACLE_API_ADDRESS,
    secret: config.PORACLE_API_SECRET,
    timeoutMs: config.ENGINE_TIMEOUT_MS,
    breakerOpenMs: config.ENGINE_BREAKER_SECONDS * 1000,
    maxBytes: config.ENGINE_MAX_BYTES,
    clock: fastify.clock,
    log: fastify.log
  })
  fastify.decorate('engine', engine)
  // Each request's engine calls share one ENGINE_TIMEOUT_MS of waiting (transport.ts, `Wait`); the rest
  // of the request runs inside `done`, so the budget follows it through every hook and the handler.
  fastify.addHook('onRequest', (_request, _reply, done) => { engine.withBudget(done) })
  fastify.addHook('onClose', async () => { await engine.close() })
}, { name: 'engine', dependencies: ['config', 'clock'], fastify: '5.x' })
