import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { acceptsHtml } from '../../plugins/edge/spa.js'
import { LOG_REDACTED } from '../../schemas/common.js'

/**
 * `GET /s/:token`, a shared set's link as a browser or a chat app's link preview asks for it: the client's
 * page, its head carrying the set's title and summary as Open Graph tags, with no sign-in (the preview
 * reveals nothing else). A link that does not answer gets the plain page, which says so once signed in.
 */
const sharedLinkRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { sharedSets, rateLimits } = fastify

  fastify.get('/s/:token', {
    config: { rateLimit: rateLimits.sharePreview },
    schema: { hide: true, params: Type.Object({ token: Type.String({ maxLength: 64, ...LOG_REDACTED }) }) }
  }, async (request, reply) => {
    if (!acceptsHtml(request)) return reply.callNotFound()
    const head = await sharedSets.preview(request.params.token)
    // Read at request time: the client's pages are registered after every route (app.ts).
    const html = fastify.clientPage.html(head ?? undefined)
    if (html === null) return reply.callNotFound()
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(html)
  })
}

export default sharedLinkRoutes
