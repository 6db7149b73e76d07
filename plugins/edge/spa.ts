import { existsSync, readFileSync } from 'node:fs'
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

/** What a link preview (Open Graph, as chat apps read it) shows of a page, in plain text. */
export interface PageHead { title: string, description: string }

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')

/** index.html with the page's own title and Open Graph tags in its head, every value escaped. */
export function withHead (html: string, head: PageHead): string {
  const title = escapeHtml(head.title)
  const description = escapeHtml(head.description)
  const tags = [
    `<meta property="og:title" content="${title}" />`,
    `<meta property="og:description" content="${description}" />`,
    '<meta property="og:type" content="website" />',
    `<meta name="description" content="${description}" />`
  ].join('\n    ')
  // A function, not a string: `$&` in a title is text, not a replacement pattern.
  return html.replace(/<title>[^<]*<\/title>/, () => `<title>${title}</title>\n    ${tags}`)
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The client's index.html for a page a route describes itself (a shared set's link): with `head`, its
     * title and Open Graph tags; null when the client is not built.
     */
    clientPage: { html: (head?: PageHead) => string | null }
  }
}

/**
 * Serves the single-page client: its files, and `index.html` for any other non-API page a browser
 * navigates to (`/alarms`, a reload on a client route), so client-side routes work as deep links.
 * Anything else goes to the application's not-found handler, which keeps `/api` 404s JSON.
 */
export default fp<SpaOptions>(async (fastify, opts) => {
  const root = opts.distDir ?? join(projectRoot(), 'client', 'dist')
  if (!existsSync(join(root, 'index.html'))) {
    fastify.log.warn({ root }, 'client build not found, the web client is not served (run npm run build:client)')
    fastify.decorate('clientPage', { html: () => null })
    return
  }
  // Read once: a deploy replaces the build and restarts the service.
  const index = readFileSync(join(root, 'index.html'), 'utf8')
  fastify.decorate('clientPage', { html: (head?: PageHead) => (head === undefined ? index : withHead(index, head)) })
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
