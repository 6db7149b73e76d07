import type { FastifyInstance } from 'fastify'
import { asc, eq, inArray } from 'drizzle-orm'
import { userGeofences } from '../../../db/schema/service.js'
import { humans } from '../../../db/schema/engine.js'
import { badRequest, conflict } from '../../edge/errors.js'
import type { ForumFence } from '../geofence-forum.js'
import { nameProblem, parsePolygon, toFence, type FenceRow, type FenceStatus, type UserFence } from './fence-rules.js'
import type { FenceRows } from './fence-rows.js'

type ReviewDeps = Pick<FastifyInstance, 'db' | 'engineDb' | 'koji' | 'areaWriter' | 'geofenceForum'>

/**
 * A member fence's review: submitted by its owner, listed for administrators with the names of owner and
 * reviewer, approved into Koji (under a promoted name) or rejected, each step posted to the fence's
 * review thread when its submission opened one.
 */
export function createFenceReview ({ db, engineDb, koji, areaWriter, geofenceForum }: ReviewDeps, { row, owned, takenNames, now }: FenceRows, feedChanged: () => Promise<void>) {
  /** The fence as its review post shows it, read when the post is made (the owner's name from the engine). */
  async function forumFence (id: number): Promise<{ found: FenceRow, fence: ForumFence }> {
    const found = await row(id)
    const [owner] = await engineDb.db.select({ name: humans.name, type: humans.type }).from(humans).where(eq(humans.id, found.humanId)).limit(1)
    return {
      found,
      fence: {
        id,
        displayName: found.displayName,
        publishedName: found.promotedName ?? found.kojiName,
        polygon: parsePolygon(found.polygonJson),
        ownerId: found.humanId,
        ownerName: owner?.name ?? null,
        ownerIsChatUser: owner?.type.startsWith('discord') === true
      }
    }
  }

  /** The verdict in the fence's review thread, when its submission opened one. */
  function postVerdict (id: number, verdict: Parameters<typeof geofenceForum.review>[2]): void {
    geofenceForum.later(id, `${verdict.status} post`, async () => {
      const { found, fence } = await forumFence(id)
      if (found.discordThreadId !== null) await geofenceForum.review(found.discordThreadId, fence, verdict)
    })
  }

  return {
    async all (status?: FenceStatus): Promise<Array<UserFence & { ownerName: string | null, reviewerName: string | null }>> {
      const rows = (await db.db.select().from(userGeofences).where(status === undefined ? undefined : eq(userGeofences.status, status)).orderBy(asc(userGeofences.id))).map(toFence)
      const ids = [...new Set(rows.flatMap((r) => (r.reviewedBy !== null ? [r.humanId, r.reviewedBy] : [r.humanId])))]
      const names = new Map<string, string>()
      if (ids.length > 0) {
        for (const h of await engineDb.db.select({ id: humans.id, name: humans.name }).from(humans).where(inArray(humans.id, ids))) names.set(h.id, h.name)
      }
      return rows.map((r) => ({ ...r, ownerName: names.get(r.humanId) ?? null, reviewerName: r.reviewedBy !== null ? names.get(r.reviewedBy) ?? null : null }))
    },

    async submit (userId: string, id: number): Promise<UserFence> {
      const found = await owned(userId, id)
      if (found.status !== 'active') throw badRequest('Only active geofences can be submitted for review.')
      await db.db.update(userGeofences).set({ status: 'pending_review', submittedAt: now(), updatedAt: now() }).where(eq(userGeofences.id, id))
      geofenceForum.later(id, 'review post', async () => {
        const threadId = await geofenceForum.announce((await forumFence(id)).fence)
        await db.db.update(userGeofences).set({ discordThreadId: threadId }).where(eq(userGeofences.id, id))
      })
      return toFence(await row(id))
    },

    async approve (adminId: string, id: number, input: { promotedName?: string, parentId?: number, groupName?: string }): Promise<UserFence> {
      const found = await row(id)
      if (found.status !== 'pending_review' && found.status !== 'rejected') throw badRequest('Only pending or rejected geofences can be approved.')
      const polygon = parsePolygon(found.polygonJson)
      if (polygon.length < 3) throw badRequest('This geofence has no polygon.')
      const promoted = input.promotedName?.trim()
      if (promoted !== undefined) {
        const problem = nameProblem(promoted)
        if (problem !== null) throw badRequest(problem)
        if (promoted.toLowerCase() !== found.kojiName && (await takenNames(id)).has(promoted.toLowerCase())) throw conflict('That geofence name is already taken.')
      }
      if (input.parentId !== undefined && !(await koji.regionExists(input.parentId))) throw badRequest('Unknown region.')
      const name = promoted?.toLowerCase() ?? found.kojiName
      const parentId = input.parentId ?? found.parentId
      const group = input.groupName?.trim() ?? found.groupName
      await koji.save({ name, displayName: promoted ?? found.displayName, group, parentId, path: polygon })
      koji.invalidate()
      await db.db.update(userGeofences).set({
        status: 'approved', promotedName: name, parentId, groupName: group, reviewedBy: adminId, reviewedAt: now(), updatedAt: now()
      }).where(eq(userGeofences.id, id))
      await feedChanged()
      if (name !== found.kojiName) await areaWriter.rename(found.humanId, found.kojiName, name)
      postVerdict(id, { status: 'approved' })
      return toFence(await row(id))
    },

    async reject (adminId: string, id: number, reviewNotes: string): Promise<UserFence> {
      const found = await row(id)
      if (found.status !== 'pending_review') throw badRequest('Only pending geofences can be rejected.')
      await db.db.update(userGeofences).set({ status: 'rejected', reviewNotes, reviewedBy: adminId, reviewedAt: now(), updatedAt: now() }).where(eq(userGeofences.id, id))
      postVerdict(id, { status: 'rejected', reason: reviewNotes })
      return toFence(await row(id))
    }
  }
}
