import { existsSync } from 'node:fs'
import { dirname, join, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import fp from 'fastify-plugin'
import fastifyStatic from '@fastify/static'
import type { FastifyRequest } from 'fastify'

export interface SpaOptions {
  /** The built client (`index.html` plus `assets/`); defaults to the project's `client/dist`. */
  distDir?: string
}

/** Vite puts a content hash in every file name under `assets/`, so those can be cached forever. */
const IMMUTABLE = 'public, max-age=31536000, immutable'
/** Everything else, index.html above all, must be revalidated so a deploy shows up on the next load. */
const REVALIDATE = 'no-cache'

/** The nearest folder with a package.json: the same answer from `plugins/` and from `dist/plugins/`. */
function projectRoot (): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir)
    if (parent === dir) throw new Error('No package.json above the spa plugin; pass distDir')
    dir = parent
  }
  return dir
}

const isApiPath = (path: string): boolean => path === '/api' || path.startsWith('/api/')

/** Only browser navigations get the client; scripts, images and API clients get a real 404. */
export const acceptsHtml = (request: FastifyRequest): boolean => request.headers.accept?.includes('text/html') === true

/**
 * Serves the single-page client: its files, and `index.html` for any other non-API page a browser
 * navigates to (`/alarms`, a reload on a client route), so client-side routes work as deep links.
 * Anything else goes to the application's not-found handler, which keeps `/api` 404s JSON.
 */
export default fp<SpaOptions>(async (fastify, opts) => {
  const root = opts.distDir ?? join(projectRoot(), 'client', 'dist')
  if (!existsSync(join(root, 'index.html'))) {
    fastify.log.warn({ root }, 'client build not found, the web client is not served (run npm run build:client)')
    return
  }
  const assetsDir = join(root, 'assets') + sep

  /** @see https://github.com/fastify/fastify-static */
  await fastify.register(fastifyStatic, {
    root,
    // One route per built file instead of a catch-all, which would hand every unknown path to the
    // not-found handler before the fallback below could serve index.html.
    wildcard: false,
    // The build writes .br and .gz beside every text file; those go out as they are, with the matching
    // Content-Encoding, to clients that accept them.
    preCompressed: true,
    cacheControl: false,
    setHeaders (reply, path) {
      reply.header('cache-control', path.startsWith(assetsDir) ? IMMUTABLE : REVALIDATE)
    }
  })

  fastify.get('/*', { schema: { hide: true } }, async (request, reply) => {
    const path = request.url.split('?')[0] ?? ''
    if (isApiPath(path) || !acceptsHtml(request)) return reply.callNotFound()
    return reply.sendFile('index.html')
  })
}, { name: 'spa', fastify: '5.x' })
