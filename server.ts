import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.js'
import { ConfigError, configFromProcess, summarize } from './plugins/config.js'

/** Reads the configuration, builds the app, listens, and closes gracefully on signals. */
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
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'closing after an error')
    else app.log.info({ signal }, 'closing')
    await app.close()
  })
  await app.listen({ host: config.HOST, port: config.PORT })
  app.log.info({ startupMs: Math.round(performance.now() - startedAt) }, 'ready')
}

main().catch((error: unknown) => {
  console.error(`Start-up failed: ${(error as Error).message}`)
  process.exit(1)
})
