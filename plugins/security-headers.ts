import fp from 'fastify-plugin'
import helmet from '@fastify/helmet'
import cors from '@fastify/cors'
import { tileImageSource } from './config.js'

/**
 * Browser-facing protections on every response.
 * - CORS: only the configured origins (any origin only in development when none is configured).
 * - CSP as strict as the SPA allows: same-origin scripts plus the Telegram login widget, inline styles
 *   (Leaflet positions its panes inline), https images (avatars, icon sets) and the configured map tile
 *   origin, which may be plain http on a private network.
 * - Referrer-Policy same-origin, not no-referrer: the sign-in start reads the Referer to send the user
 *   back to the origin they came from.
 * @see https://github.com/fastify/fastify-helmet
 * @see https://github.com/fastify/fastify-cors
 */
export default fp(async (fastify) => {
  const { config } = fastify
  const anyOrigin = config.NODE_ENV === 'development' && config.CORS_ORIGIN.length === 0
  await fastify.register(cors, {
    origin: anyOrigin ? true : config.CORS_ORIGIN,
    credentials: true,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    maxAge: 600
  })
  // A template that does not parse is refused by the configuration before this runs.
  const tileSource = tileImageSource(config.MAP_TILE_URL) ?? "'self'"
  await fastify.register(helmet, {
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
}, { name: 'security-headers', fastify: '5.x', dependencies: ['config'] })
