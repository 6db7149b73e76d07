import { defineConfig } from 'drizzle-kit'

/** Only the service's own database is migrated; the engine and scanner schemas are read-only here. */
export default defineConfig({
  dialect: 'mysql',
  schema: './db/schema/service.ts',
  out: './db/migrations'
})
