import fp from 'fastify-plugin'
import helmet, { type HelmetOptions } from 'helmet'
import cors from '@fastify/cors'
import { tileImageSource } from '../base/config.js'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { acceptsHtml } from './spa.js'

/**
 * The HTML document's protections, exactly as helmet computes them:
 * - CSP as strict as the SPA allows: same-origin scripts plus the Telegram login widget, inline styles
 *   (Leaflet positions its panes inline), https images (avatars, icon sets) and the configured map tile
 *   origin, which may be plain http on a private network.
 * - Referrer-Policy same-origin, not no-referrer: the sign-in start reads the Referer to send the user
 *   back to the origin they came from.
 * HSTS is not helmet's here: it depends on the request's scheme (see below).
 */
const documentPolicy = (tileSource: string): HelmetOptions => ({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'", 'https://telegram.org'],
      styleSrc: ["'self'", "'unsafe-inline'"],
      fontSrc: ["'self'", 'https://fonts.gstatic.com'],
      imgSrc: ["'self'", 'data:', 'https:', tileSource],
      connectSrc: ["'self'"],
      frameSrc: ['https://oauth.telegram.org'],
      frameAncestors: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      objectSrc: ["'none'"]
    }
  },
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'same-origin' },
  strictTransportSecurity: false,
  crossOriginEmbedderPolicy: false,
  crossOriginResourcePolicy: { policy: 'same-origin' }
})

/** Runs helmet once against a recording response: its headers never depend on the request here. */
function headersOf (options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {}
  const recorder = {
    setHeader (name: string, value: string) { headers[name.toLowerCase()] = value },
    removeHeader (name: string) { Reflect.deleteProperty(headers, name.toLowerCase()) }
  }
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, () => {})
  return headers
}

/**
 * Every other response (JSON above all, also scripts and images): no sniffing and no framing. A CSP that
 * allows nothing costs 45 bytes and keeps an answer harmless even if a browser is made to render it;
 * the document's long policy would protect nothing a JSON answer can do and cost ~400 bytes on every
 * call.
 */
export const RESOURCE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY'
}

/**
 * The service worker's script (client/sw/sw.ts): a worker runs under the policy its script came with, and
 * this one fetches the app shell's files from this origin to keep them, nothing else.
 */
const SERVICE_WORKER_PATH = '/sw.js'
const WORKER_HEADERS: Readonly<Record<string, string>> = {
  ...RESOURCE_HEADERS,
  'content-security-policy': "default-src 'none'; connect-src 'self'; frame-ancestors 'none'"
}

/**
 * The kind of an answer, for its headers: an HTML document, or anything else. An answer without a body
 * (a 304 above all, which carries no content type) is what the browser asked for: a navigation (Accept:
 * text/html, the rule the client's pages are served by) revalidates a page, anything else a resource.
 * Browsers merge a 304's headers into the cached answer, so it must carry the same ones as the 200.
 */
function isDocument (request: FastifyRequest, reply: FastifyReply): boolean {
  const type = reply.getHeader('content-type')
  return typeof type === 'string' ? type.startsWith('text/html') : acceptsHtml(request)
}

/**
 * Browser-facing protections on every response.
 * - CORS: only the configured origins (any origin only in development when none is configured).
 * - The document headers on HTML documents, the short resource headers on everything else, set in one
 *   step when the answer is sent and its kind known. Both sets are computed once, at start.
 * - Strict-Transport-Security on answers that reached the browser over https (directly, or through a
 *   trusted proxy saying so: `request.protocol`), HSTS_MAX_AGE seconds; never on plain http, where it
 *   would be ignored, and 0 switches it off.
 * @see https://github.com/helmetjs/helmet
 * @see https://github.com/fastify/fastify-cors
 */
export default fp(async (fastify) => {
  const { config } = fastify
  const anyOrigin = config.NODE_ENV === 'development' && config.CORS_ORIGIN.length === 0
  await fastify.register(cors, {
    origin: anyOrigin ? true : config.CORS_ORIGIN,
    credentials: true,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    maxAge: 600,
    // An OPTIONS without Origin is no preflight but a plain OPTIONS: answered 204 like any other, not
    // with the plugin's text/plain 400, the only answer outside the JSON error shape.
    strictPreflight: false
  })
  // The full document policy for every HTML response (the client's pages), computed once at start. A tile
  // template that does not parse is refused by the configuration before this runs.
  const documentHeaders = headersOf(documentPolicy(tileImageSource(config.MAP_TILE_URL) ?? "'self'"))
  const hsts = config.HSTS_MAX_AGE > 0 ? `max-age=${config.HSTS_MAX_AGE}` : null
  fastify.addHook('onSend', (request, reply, payload, done) => {
    reply.headers(isDocument(request, reply) ? documentHeaders : request.url === SERVICE_WORKER_PATH ? WORKER_HEADERS : RESOURCE_HEADERS)
    if (hsts !== null && request.protocol === 'https') reply.header('strict-transport-security', hsts)
    done(null, payload)
  })
}, { name: 'security-headers', fastify: '5.x', dependencies: ['config'] })
