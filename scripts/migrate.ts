import { configFromProcess, ConfigError } from '../plugins/base/config.js'
import { migrateServiceDb } from '../db/migrate.js'

/** `npm run db:migrate`: applies the service database's migrations without starting the service. */
try {
  const config = configFromProcess()
  const applied = await migrateServiceDb({
    host: config.WEB_DB_HOST, port: config.WEB_DB_PORT, user: config.WEB_DB_USER, password: config.WEB_DB_PASSWORD, database: config.WEB_DB_NAME
  })
  console.log(`Migrations applied: ${applied} statement(s) in ${config.WEB_DB_NAME}`)
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : `Migration failed: ${(error as Error).message}`)
  process.exitCode = 1
}
