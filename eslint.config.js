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
  },
  {
    // The API module is the one place that knows the server's URLs and speaks HTTP: a page calls a named,
    // typed function of it, so a changed route is one edit and every call is typed by the server's schemas.
    files: ['client/src/**/*.{ts,tsx}'],
    ignores: ['client/src/api/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/api/transport'], message: 'Call a named function of client/src/api instead.' }] }],
      'no-restricted-syntax': ['error',
        { selector: 'Literal[value=/^\\/api\\//]', message: 'Server URLs live in client/src/api: call its function for this endpoint.' },
        { selector: 'TemplateElement[value.raw=/^\\/api\\//]', message: 'Server URLs live in client/src/api: call its function for this endpoint.' },
        { selector: "CallExpression[callee.name='fetch']", message: 'HTTP goes through client/src/api (its transport adds the token, timeouts and errors).' }
      ]
    }
  }
]
