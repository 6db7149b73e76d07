import neostandard from 'neostandard'
import drizzle from 'eslint-plugin-drizzle'
import reactHooks from 'eslint-plugin-react-hooks'

/**
 * The Fastify community's style (neostandard, TypeScript and JSX included) for the service and the
 * client alike, drizzle's guard against an update or delete without a where clause, and React's rules
 * of hooks for the client.
 */
export default [
  ...neostandard({ ts: true, ignores: ['client/dist/**', 'dist/**', 'coverage/**', '.tap/**'] }),
  {
    plugins: { drizzle },
    rules: {
      // The query builders are named db (the plugins' drizzle instances) and tx (inside transactions).
      'drizzle/enforce-delete-with-where': ['error', { drizzleObjectName: ['db', 'tx'] }],
      'drizzle/enforce-update-with-where': ['error', { drizzleObjectName: ['db', 'tx'] }]
    }
  },
  {
    files: ['client/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      // An event handler starts its async work and returns: `void save()` marks that promise as
      // deliberately not awaited (React ignores what a handler returns).
      'no-void': ['error', { allowAsStatement: true }]
    }
  }
]
