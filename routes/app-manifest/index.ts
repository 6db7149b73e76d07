import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { webAppManifest } from '../../lib/app-manifest.js'
import { errors } from '../../schemas/common.js'
import { WebAppManifestSchema } from '../../schemas/app-manifest.js'

/**
 * `GET /api/app-manifest`, the web app manifest index.html links to: read without signing in (a browser
 * fetches it without credentials), built from the branding the admin sets at run time, so it is served
 * here rather than from the client's build.
 */
const appManifestRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { siteSettings, rateLimits } = fastify

  fastify.get('/', {
    config: { rateLimit: rateLimits.authRead },
    schema: { tags: ['settings'], summary: 'The installable app\'s manifest, named and coloured by the site\'s branding', response: { 200: WebAppManifestSchema, ...errors(429) } }
  }, async (_request, reply) => {
    const rows = await siteSettings.list()
    // Revalidated on every read: a changed site name or colour shows on the next install.
    reply.type('application/manifest+json; charset=utf-8').header('cache-control', 'no-cache')
    return webAppManifest(new Map(rows.map((row) => [row.key, row.value])))
  })
}

export default appManifestRoutes
