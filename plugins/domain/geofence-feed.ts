import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { parsePolygon } from './user-geofences/fence-rules.js'
import type { AdminFences } from './koji.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { openRing, ringProblem, type LatLon } from '../../lib/polygon.js'
import { createFeedBodies, type FeedBody, type FenceText } from './geofence-feed/body.js'

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

function createGeofenceFeed (fastify: FastifyInstance) {
  const { koji, userGeofences, siteSettings, config, log } = fastify
  const expected = config.GEOFENCE_FEED_TOKEN !== '' ? digest(`Bearer ${config.GEOFENCE_FEED_TOKEN}`) : null
  if (expected === null) {
    // Without a token the feed is anonymous, and it holds every member's private fences.
    fastify.addHook('onReady', async () => {
      const memberFencesOff = await siteSettings.isTrue('disable_user_geofences').catch(() => false)
      if (!memberFencesOff) {
        log.warn({ event: 'GeofenceFeedOpen' }, 'GEOFENCE_FEED_TOKEN is unset while member fences are on: anyone who can reach /api/geofence-feed reads every member\'s private fences; set it, and the same token as the engine\'s geofence bearer token')
      }
    })
  }
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
        if (problem !== null) log.warn({ geofenceId: row.id, problem }, 'user geofence left out of the feed: malformed polygon')
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

  return {
    /** Whether an `Authorization` header may read the feed: anyone when GEOFENCE_FEED_TOKEN is unset. */
    authorized (authorization: string | undefined): boolean {
      if (expected === null) return true
      // Both sides are hashed to one length first, so the comparison takes the same time for any input.
      return timingSafeEqual(digest(authorization ?? ''), expected)
    },

    /** The feed as it is now: rebuilt only when Koji's admin part or the user fences changed since the last call. */
    async current (): Promise<FeedBody> {
      const [admin, fingerprint] = await Promise.all([koji.adminFences(), userGeofences.feedFingerprint()])
      const key = `${admin.hash}/${fingerprint}`
      if (built?.key !== key) built = await build(key, admin)
      return built
    }
  }
}

export type GeofenceFeed = ReturnType<typeof createGeofenceFeed>

declare module 'fastify' {
  interface FastifyInstance {
    geofenceFeed: GeofenceFeed
  }
}

/**
 * The geofence feed the alarm engine downloads: Koji's admin fences followed by the user fences the
 * service serves itself, kept built (JSON text and gzip form) between requests.
 */
export default decoratorPlugin('geofence-feed', createGeofenceFeed, ['config', 'site-settings', 'koji', 'user-geofences'])
