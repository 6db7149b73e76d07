import type { FastifyInstance } from 'fastify'
import { asc, inArray, sql } from 'drizzle-orm'
import { userGeofences } from '../../../db/schema/service.js'
import { TtlCache } from '../../../lib/ttl-cache.js'
import { FEED_FINGERPRINT_TTL_MS, FEED_STATUSES } from './fence-rules.js'
import type { FenceRows } from './fence-rows.js'

/**
 * The member fences the service serves itself (the feed's user part, and the private names the alarm
 * writer keeps from the engine), and the engine told to download the feed again after a change.
 */
export function createFenceFeed ({ db, engine, clock, log }: Pick<FastifyInstance, 'db' | 'engine' | 'clock' | 'log'>, { sharedNames }: FenceRows) {
  /**
   * The fingerprint by the count of this instance's feed changes: a change moves to a new key, so a read
   * that was under way during the change can neither be served nor kept for a request after it.
   */
  const fingerprints = new TtlCache<number, string>(clock, 2)
  let feedChanges = 0

  return {
    /**
     * After a change of the served fences: the next feed request reads the fingerprint again, and the engine
     * is asked to download the feed; a failed ask is logged, the engine's next reload picks the change up.
     */
    async feedChanged (): Promise<void> {
      feedChanges++
      try {
        await engine.geofence.reload()
      } catch (err) {
        log.warn({ reason: err instanceof Error ? err.message : String(err) }, 'alarm engine geofence reload failed; the feed change applies at its next reload')
      }
    },

    /** The fences the feed serves itself, in id order, without their polygons (which never change). */
    async feedIndex (): Promise<Array<{ id: number, kojiName: string }>> {
      const [rows, shared] = await Promise.all([
        db.db.select({ id: userGeofences.id, kojiName: userGeofences.kojiName })
          .from(userGeofences).where(inArray(userGeofences.status, FEED_STATUSES)).orderBy(asc(userGeofences.id)),
        sharedNames()
      ])
      // A member fence is never served under a shared area's name (an old-style name can equal one).
      return rows.filter((r) => {
        if (!shared.has(r.kojiName.toLowerCase())) return true
        log.warn({ geofenceId: r.id }, 'member geofence left out of the feed: its old-style name equals a shared area; renaming it moves it to its own name')
        return false
      })
    },

    /** The raw polygon text of these fences, by id; a fence deleted meanwhile is missing. */
    async feedPolygons (ids: number[]): Promise<Map<number, string | null>> {
      if (ids.length === 0) return new Map()
      const rows = await db.db.select({ id: userGeofences.id, polygonJson: userGeofences.polygonJson }).from(userGeofences).where(inArray(userGeofences.id, ids))
      return new Map(rows.map((r) => [r.id, r.polygonJson]))
    },

    /**
     * A cheap fingerprint of the feed's user part. What the feed shows of a fence is its id, name and
     * polygon, and a polygon never changes after creation, so rows entering or leaving the served set and
     * renames are all that can change it: they change the count, the id sum or the id/name checksum. It
     * reads two short columns through the status index, never the polygons, and at most once per
     * FEED_FINGERPRINT_TTL_MS unless this instance changed the fences (`feedChanged`).
     */
    async feedFingerprint (): Promise<string> {
      return fingerprints.getOrLoad(feedChanges, async () => {
        const [result] = await db.db.select({
          n: sql<number>`count(*)`,
          ids: sql<string | null>`sum(${userGeofences.id})`,
          names: sql<string | null>`bit_xor(crc32(concat(${userGeofences.id}, ':', ${userGeofences.kojiName})))`
        }).from(userGeofences).where(inArray(userGeofences.status, FEED_STATUSES))
        return { value: `${result?.n ?? 0}/${result?.ids ?? 0}/${result?.names ?? 0}`, ttlMs: FEED_FINGERPRINT_TTL_MS }
      })
    },

    /**
     * Names of fences the service serves privately (not yet promoted), mapped to their owner. An old-style
     * name equal to a shared area is the shared area's: it stays everyone's to select.
     */
    async privateNames (): Promise<Map<string, string>> {
      const [rows, shared] = await Promise.all([
        db.db.select({ kojiName: userGeofences.kojiName, humanId: userGeofences.humanId })
          .from(userGeofences).where(inArray(userGeofences.status, FEED_STATUSES)),
        sharedNames()
      ])
      return new Map(rows.filter((r) => !shared.has(r.kojiName.toLowerCase())).map((r) => [r.kojiName.toLowerCase(), r.humanId]))
    }
  }
}
