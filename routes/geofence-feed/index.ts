import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errors } from '../../schemas/common.js'
import { FeedSchema, type Feed } from '../../schemas/geofences.js'
import { unauthorized } from '../../plugins/edge/errors.js'

/**
 * The geofence feed the alarm engine downloads (`GET /api/geofence-feed`): Koji's admin fences followed
 * by the user fences the service serves itself, in a Koji-style `{ status, data }` wrapper both engine
 * generations read. Anonymous unless GEOFENCE_FEED_TOKEN is set; no rate limit. The body is rebuilt only
 * when the admin part or the user part changed, and its ETag lets an unchanged feed cost a 304.
 */
const geofenceFeedRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { geofenceFeed } = fastify

  fastify.get('/', {
    schema: {
      tags: ['geofences'],
      summary: 'Geofences for the alarm engine (Poracle format in a Koji-style wrapper)',
      headers: Type.Object({ authorization: Type.Optional(Type.String()), 'if-none-match': Type.Optional(Type.String()) }),
      response: { 200: FeedSchema, 304: Type.Null(), ...errors(401) }
    }
  }, async (request, reply) => {
    if (!geofenceFeed.authorized(request.headers.authorization)) throw unauthorized('A valid feed token is required.')
    const built = await geofenceFeed.current()
    const zipped = /\bgzip\b/.test(request.headers['accept-encoding'] ?? '')
    // Each encoding is its own representation, so each has its own tag; either one matches.
    const etag = `"${built.etag}${zipped ? '-gz' : ''}"`
    reply.header('etag', etag).header('cache-control', 'no-cache').header('vary', 'accept-encoding')
    const ifNoneMatch = request.headers['if-none-match']
    const tags = [`"${built.etag}"`, `"${built.etag}-gz"`]
    if (ifNoneMatch !== undefined && ifNoneMatch.split(',').some((tag) => tags.includes(tag.trim()))) return reply.code(304).send(undefined as unknown as null)
    reply.type('application/json; charset=utf-8')
    if (zipped) reply.header('content-encoding', 'gzip')
    // Already serialized (once per change, not per request): Fastify sends a string or Buffer as it is.
    return reply.send((zipped ? built.gzipped : built.body) as unknown as Feed)
  })
}

export default geofenceFeedRoutes
