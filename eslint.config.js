import neostandard from 'neostandard'
import drizzle from 'eslint-plugin-drizzle'

/**
 * The Fastify community's style (neostandard, TypeScript included) plus drizzle's guard against an
 * update or delete without a where clause. The client has its own toolchain and is linted there.
 */
export default [
  ...neostandard({ ts: true, ignores: ['client/**', 'dist/**', 'coverage/**', '.tap/**'] }),
  {
    plugins: { drizzle },
    rules: {
      // The query builders are named db (the plugins' drizzle instances) and tx (inside transactions).
      'drizzle/enforce-delete-with-where': ['error', { drizzleObjectName: ['db', 'tx'] }],
      'drizzle/enforce-update-with-where': ['error', { drizzleObjectName: ['db', 'tx'] }]
    }
  }
]
