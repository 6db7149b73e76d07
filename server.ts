import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.js'
import { ConfigError, configFromProcess, summarize } from './plugins/base/config.js'

/** After the grace time, closing the pools and Redis may take this much longer before the exit is forced. */
const CLOSE_MARGIN_MS = 5000

/**
 * Reads the configuration, builds the app, listens, and closes gracefully on SIGTERM or SIGINT: it stops
 * accepting connections, lets the requests in flight finish for up to SHUTDOWN_GRACE_MS, cuts those still
 * running after that, closes the pools and Redis, and exits with 0.
 */
async function main (): Promise<void> {
  let config
  try {
    config = configFromProcess()
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message)
      process.exit(1)
    }
    throw error
  }
  const startedAt = performance.now()
  const app = await buildApp({ config })
  app.log.info({ config: summarize(config) }, 'configuration')
  const grace = config.SHUTDOWN_GRACE_MS
  let closing = false
  // An answer finished while closing ends its keep-alive connection: otherwise the close would wait for
  // the client (or the load balancer) to hang up.
  app.addHook('onSend', async (_request, reply) => { if (closing) reply.header('connection', 'close') })
  closeWithGrace({ delay: grace + CLOSE_MARGIN_MS, logger: { error: (message: unknown) => app.log.error(message) } }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'closing after an error')
    else app.log.info({ signal, graceMs: grace }, 'closing: no new connections, waiting for the requests in flight')
    closing = true
    const cutOff = setTimeout(() => {
      app.log.warn({ graceMs: grace }, 'requests still running after the grace time are cut off')
      app.server.closeAllConnections()
    }, grace)
    try {
      await app.close()
    } finally {
      clearTimeout(cutOff)
    }
    app.log.info('closed')
  })
  await app.listen({ host: config.HOST, port: config.PORT })
  app.log.info({ startupMs: Math.round(performance.now() - startedAt) }, 'ready')
}

main().catch((error: unknown) => {
  console.error(`Start-up failed: ${(error as Error).message}`)
  process.exit(1)
})
