import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import { fileURLToPath } from 'node:url'
import path from 'node:path'
import tap from 'tap'
import type { FastifyInstance } from 'fastify'
import { ALARM_KINDS } from '../schemas/alarm-types.js'
import { build } from './helper.js'

/*
 * Folder = URL, checked on the running app: an onRoute hook on every Fastify instance (added through
 * Fastify's own `fastify.initialization` diagnostics channel, before the app adds anything) reads the
 * stack of each route being added; its innermost frame under routes/ is the file whose code declared the
 * route, whatever prefix app.ts registered that file at.
 */
const ROUTES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'routes') + path.sep

/**
 * The URL a route file's folder stands for: `routes/a/b/index.ts` and `routes/a/b.ts` serve `/api/a/b`,
 * `routes/index.ts` serves `/api`. `routes/metrics/` and `routes/s/` are the folders outside `/api`: Prometheus
 * scrapes `/metrics`, and `/s/<token>` is a shared set's link, whose page head a chat app's preview reads.
 */
function folderUrl (file: string): string {
  const relative = file.slice(ROUTES.length).replace(/\.[cm]?[jt]s$/, '').split(path.sep)
  if (relative.at(-1) === 'index') relative.pop()
  const folder = relative.join('/')
  if (folder === 'metrics') return '/metrics'
  if (folder === 's') return '/s'
  return folder === '' ? '/api' : `/api/${folder}`
}

/** The innermost stack frame inside `routes/`: the file whose code declared the route being added. */
function declaringFile (stack: string): string | undefined {
  for (const line of stack.split('\n')) {
    const at = line.match(/\(?(?:file:\/\/)?(\/[^():]+):\d+:\d+\)?$/)
    if (at?.[1]?.startsWith(ROUTES) === true) return at[1]
  }
  return undefined
}

interface Declared { url: string, method: string, file: string, onRequest: unknown[] }

tap.test('every route lives in the folder of the URL it serves', async (t) => {
  const declared: Declared[] = []
  const untraced = new Set<string>()
  // The hook goes on each instance as it is created, before any plugin of the app adds a route.
  const onInit = (message: unknown): void => {
    const { fastify } = message as { fastify: FastifyInstance }
    fastify.addHook('onRoute', (route) => {
      const limit = Error.stackTraceLimit
      Error.stackTraceLimit = 100
      const file = declaringFile(new Error('route declared').stack ?? '')
      Error.stackTraceLimit = limit
      const methods = Array.isArray(route.method) ? route.method : [route.method]
      const onRequest = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]
      if (file !== undefined) for (const method of methods) declared.push({ url: route.url, method, file, onRequest })
      else untraced.add(route.url)
    })
  }
  subscribe('fastify.initialization', onInit)
  t.teardown(() => { unsubscribe('fastify.initialization', onInit) })
  const { app } = await build(t)

  // Under /api and /metrics only the OpenAPI document comes from a plugin; outside them are the client's
  // pages and files (plugins/edge/spa.ts). An API route this check could not trace shows up here.
  const isApi = (url: string): boolean => url === '/metrics' || url === '/api' || url.startsWith('/api/')
  t.same([...untraced].filter(isApi), ['/api/openapi.json'], 'every other API route is traced to a file under routes/')
  t.ok(declared.length > 100, `the check saw the app's routes (${declared.length})`)
  const files = new Set(declared.map((route) => route.file))
  t.ok([...files].some((file) => file.endsWith(path.join('routes', 'health', 'index.ts'))), 'the routes of routes/health/ are traced to their file')
  const mismatches = new Set(declared.filter(({ url, file }) => {
    const folder = folderUrl(file)
    return url !== folder && !url.startsWith(`${folder}/`)
  }).map(({ url, file }) => `${url} ← ${path.relative(path.dirname(ROUTES), file)}`))
  t.same([...mismatches], [], 'no route is served outside its file\'s folder (URL ← file)')

  // The API root's own file holds only the alarm URL families the alarm-type table generates, one per
  // type: anything else under /api has a folder of its own.
  const families = new Set(ALARM_KINDS.map((kind) => `/api${kind.path}`))
  const atRoot = declared.filter(({ file }) => folderUrl(file) === '/api')
  t.ok(atRoot.length > 0, 'the alarm families are traced to routes/index.ts')
  t.same([...new Set(atRoot.map(({ url }) => url).filter((url) => !families.has(`/api/${url.split('/')[2] ?? ''}`)))], [],
    'routes/index.ts serves only /api/<alarm type path>')

  // The admin guard one way: every /api/admin route carries `auth.adminOnly` in its own options, but the
  // two a member may call (a delegate acting for a webhook, and the member's own webhooks).
  const MEMBER_ROUTES = new Set(['POST /api/admin/impersonate', 'GET /api/admin/my-webhooks', 'HEAD /api/admin/my-webhooks'])
  const adminRoutes = declared.filter(({ url }) => url.startsWith('/api/admin/'))
  t.ok(adminRoutes.length > 40, `the admin routes are seen (${adminRoutes.length})`)
  const unguarded = adminRoutes.filter(({ url, method, onRequest }) => !MEMBER_ROUTES.has(`${method} ${url}`) &&
    !(onRequest.includes(app.auth.authenticate) && (onRequest.includes(app.auth.requireAdmin) || onRequest.includes(app.auth.requireAdminUnseen))))
  t.same(unguarded.map(({ method, url }) => `${method} ${url}`), [], 'every admin route is admin-only by auth.adminOnly')
})

/**
 * Routes only translate HTTP: the alarm engine, its database and the per-user write lock are the domain
 * plugins' to use, so a write's lock, its engine calls and its undo live in one place. A route file that
 * imports one of them, or takes one from the instance, fails here.
 */
const DOMAIN_ONLY = [
  { name: 'the alarm engine', imports: /plugins\/data\/engine(\.js|\/)/, decorator: 'engine' },
  { name: 'the engine database', imports: /plugins\/data\/engine-db\.js/, decorator: 'engineDb' },
  { name: 'the write lock', imports: /plugins\/data\/user-write-lock\.js/, decorator: 'userWriteLock' }
]

tap.test('no route file reaches the engine, the engine database or the write lock', async (t) => {
  const { readdir, readFile } = await import('node:fs/promises')
  const files = (await readdir(ROUTES, { recursive: true })).filter((f) => /\.[cm]?ts$/.test(f))
  t.ok(files.length > 30, `every route file is read (${files.length})`)
  for (const file of files) {
    const code = await readFile(path.join(ROUTES, file), 'utf8')
    // What a file takes from the instance: `const { a, b } = fastify` and `fastify.a`.
    const taken = new Set([
      ...[...code.matchAll(/const \{([^}]*)\} = fastify\b/g)].flatMap((m) => (m[1] ?? '').split(',').map((name) => name.trim())),
      ...[...code.matchAll(/\bfastify\.(\w+)/g)].map((m) => m[1])
    ])
    for (const rule of DOMAIN_ONLY) {
      t.notOk(rule.imports.test(code), `routes/${file} does not import ${rule.name}`)
      t.notOk(taken.has(rule.decorator), `routes/${file} does not use ${rule.name}`)
    }
  }
})
