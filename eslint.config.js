import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import neostandard from 'neostandard'
import drizzle from 'eslint-plugin-drizzle'
import importX, { createNodeResolver } from 'eslint-plugin-import-x'
import reactHooks from 'eslint-plugin-react-hooks'

const CLIENT_SOURCE = 'client/src'
const FEATURES = `${CLIENT_SOURCE}/features`
/** The files that load the pages lazily: the only shared code that names a feature. */
const PAGE_LOADERS = ['pages.ts', 'main.tsx']
// Read at every run, so a new feature or shared folder is fenced in without an edit here.
const features = readdirSync(new URL(`${FEATURES}/`, import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory()).map((entry) => entry.name)
const shared = readdirSync(new URL(`${CLIENT_SOURCE}/`, import.meta.url))
  .filter((name) => name !== 'features' && !PAGE_LOADERS.includes(name))

/**
 * The Fastify community's style (neostandard, TypeScript and JSX included) for the service and the
 * client alike, drizzle's guard against an update or delete without a where clause, React's rules
 * of hooks for the client, and the client's feature boundaries.
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
    // A feature folder holds one concern's pages and what only they use: it imports no other feature, and
    // shared client code imports no feature, so a piece two features need lives in a shared folder of
    // client/src (docs/decisions.md). Imports are resolved as Vite resolves them (no extension written):
    // an import the resolver cannot find would pass unchecked.
    files: ['client/src/**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.json'] })] },
    rules: {
      'import-x/no-restricted-paths': ['error', {
        basePath: fileURLToPath(new URL('.', import.meta.url)),
        zones: [
          ...features.map((feature) => ({
            target: `${FEATURES}/${feature}`,
            from: FEATURES,
            except: [`./${feature}`],
            message: 'A feature imports no other feature: move what both use to a shared folder of client/src.'
          })),
          {
            target: shared.map((name) => `${CLIENT_SOURCE}/${name}`),
            from: FEATURES,
            message: 'Shared client code imports no feature: move the piece it needs to a shared folder of client/src.'
          }
        ]
      }]
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
