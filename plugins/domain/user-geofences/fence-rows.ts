import type { FastifyInstance } from 'fastify'
import { eq, sql } from 'drizzle-orm'
import { userGeofences } from '../../../db/schema/service.js'
import { toSqlTime } from '../../../db/client.js'
import { notFound } from '../../edge/errors.js'
import type { FenceRow } from './fence-rules.js'

/**
 * The reads every part of the user geofences shares: one fence by id (the owner's only, where a member
 * asks), how many a member has, and the names a fence must not take.
 */
export function createFenceRows ({ db, koji, engine, clock }: Pick<FastifyInstance, 'db' | 'koji' | 'engine' | 'clock'>) {
  async function row (id: number): Promise<FenceRow> {
    const [found] = await db.db.select().from(userGeofences).where(eq(userGeofences.id, id))
    if (found === undefined) throw notFound('Geofence not found.')
    return found
  }

  return {
    row,

    /** The time a row records now. */
    now: () => toSqlTime(clock.now()),

    /** The owner's fence; another user's answers 404 as if it did not exist. */
    async owned (userId: string, id: number): Promise<FenceRow> {
      const found = await row(id)
      if (found.humanId !== userId) throw notFound('Geofence not found.')
      return found
    },

    /**
     * Every name a fence must not take: every other member fence's (promoted ones included), Koji's, and
     * every area the engine itself knows (`/api/geofence/all`, which also lists this service's feed).
     */
    async takenNames (exceptId?: number): Promise<Set<string>> {
      const [rows, admin, engineFences] = await Promise.all([
        db.db.select({ id: userGeofences.id, kojiName: userGeofences.kojiName, promotedName: userGeofences.promotedName }).from(userGeofences),
        koji.adminFences(),
        engine.geofence.all()
      ])
      const taken = new Set([...admin.names].map((n) => n.toLowerCase()))
      for (const fence of engineFences) if (typeof fence.name === 'string') taken.add(fence.name.toLowerCase())
      for (const r of rows) {
        if (r.id === exceptId) {
          // The fence's own current names are its own, even as the engine lists them.
          taken.delete(r.kojiName.toLowerCase())
          if (r.promotedName !== null) taken.delete(r.promotedName.toLowerCase())
          continue
        }
        taken.add(r.kojiName.toLowerCase())
        if (r.promotedName !== null) taken.add(r.promotedName.toLowerCase())
      }
      return taken
    },

    /** Names of areas that are not member fences: Koji's shared fences. */
    async sharedNames (): Promise<Set<string>> {
      return new Set([...(await koji.adminFences()).names].map((n) => n.toLowerCase()))
    },

    /** How many fences the user has (the limit is checked again, under a lock, by `create`). */
    async count (userId: string): Promise<number> {
      const [result] = await db.db.select({ n: sql<number>`count(*)` }).from(userGeofences).where(eq(userGeofences.humanId, userId))
      return Number(result?.n ?? 0)
    }
  }
}

export type FenceRows = ReturnType<typeof createFenceRows>
