import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errors } from '../../schemas/common.js'
import { FeedSchema, type Feed } from '../../schemas/geofences.js'
import { unauthorized } from '../../plugins/errors.js'
import { parsePolygon } from '../../plugins/user-geofences.js'
import type { AdminFences } from '../../plugins/koji.js'
import { openRing, ringProblem, type LatLon } from '../../lib/polygon.js'
import { createFeedBodies, type FeedBody, type FenceText } from './body.js'

/**
 * User fences get ids above every admin id, so the two sets never collide: at least this base, and past
 * the admin count when Koji holds more. The engine keys areas by name; the id only has to be unique.
 */
const USER_ID_BASE = 1_000_000
const USER_FENCE_COLOR = '#3399ff'

const digest = (value: string) => createHash('sha256').update(value).digest()

/** One built feed, for the key (admin hash and user fingerprint) it was built from. */
interface Built extends FeedBody { key: string }

/** A served user fence as last built: its ring (null when malformed), and its entry for a name and id base. */
interface Served { ring: LatLon[] | null, key: string, text: string | null }

/**
 * The geofence feed the alarm engine downloads (`GET /api/geofence-feed`): Koji's admin fences followed
 * by the user fences the service serves itself, in a Koji-style `{ status, data }` wrapper both engine
 * generations read. Anonymous unless GEOFENCE_FEED_TOKEN is set; no rate limit. The body is rebuilt only
 * when the admin part or the user part changed, and its ETag lets an unchanged feed cost a 304.
 */
const geofenceFeedRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { koji, userGeofences, config } = fastify
  const expected = config.GEOFENCE_FEED_TOKEN !== '' ? digest(`Bearer ${config.GEOFENCE_FEED_TOKEN}`) : null
  const bodies = createFeedBodies()
  let built: Built | null = null
  /**
   * The served user fences of the last build, by row id. A polygon never changes after creation, so a
   * rebuild reads only the new fences' polygons and serializes only new and renamed ones; the map holds
   * exactly the served fences, replaced at each build.
   */
  let served = new Map<number, Served>()

  async function userFences (base: number): Promise<FenceText[]> {
    const rows = await userGeofences.feedIndex()
    const polygons = await userGeofences.feedPolygons(rows.filter((row) => !served.has(row.id)).map((row) => row.id))
    const next = new Map<number, Served>()
    const fences: FenceText[] = []
    for (const row of rows) {
      let fence = served.get(row.id)
      if (fence === undefined) {
        // Deleted between the two reads: it leaves the feed with this build.
        if (!polygons.has(row.id)) continue
        const path = parsePolygon(polygons.get(row.id) ?? null)
        const problem = ringProblem(path)
        if (problem !== null) fastify.log.warn({ geofenceId: row.id, problem }, 'user geofence left out of the feed: malformed polygon')
        fence = { ring: problem === null ? openRing(path) : null, key: '', text: null }
      }
      const key = `${base}/${row.kojiName}`
      if (fence.ring !== null && fence.key !== key) {
        fence = {
          ring: fence.ring,
          key,
          text: JSON.stringify({
            id: base + row.id,
            name: row.kojiName,
            path: fence.ring,
            group: '',
            description: '',
            color: USER_FENCE_COLOR,
            userSelectable: false,
            displayInMatches: false
          })
        }
      }
      next.set(row.id, fence)
      if (fence.text !== null) fences.push({ id: base + row.id, text: fence.text })
    }
    served = next
    return fences
  }

  async function build (key: string, admin: AdminFences): Promise<Built> {
    const fences = await userFences(Math.max(USER_ID_BASE, admin.fences.length + 1))
    // Both engines' downloaders accept gzip; a feed of thousands of fences shrinks to about a quarter.
    return { key, ...await bodies.build(admin.hash, admin.json, fences) }
  }

  fastify.get('/', {
    schema: {
      tags: ['geofences'],
      summary: 'Geofences for the alarm engine (Poracle format in a Koji-style wrapper)',
      headers: Type.Object({ authorization: Type.Optional(Type.String()), 'if-none-match': Type.Optional(Type.String()) }),
      response: { 200: FeedSchema, 304: Type.Null(), ...errors(401) }
    }
  }, async (request, reply) => {
    if (expected !== null) {
      const given = digest(request.headers.authorization ?? '')
      // Both sides are hashed to one length first, so the comparison takes the same time for any input.
      if (!timingSafeEqual(given, expected)) throw unauthorized('A valid feed token is required.')
    }
    const [admin, fingerprint] = await Promise.all([koji.adminFences(), userGeofences.feedFingerprint()])
    const key = `${admin.hash}/${fingerprint}`
    if (built?.key !== key) built = await build(key, admin)
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
