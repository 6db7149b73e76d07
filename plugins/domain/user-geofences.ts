import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { asc, eq } from 'drizzle-orm'
import { userGeofences } from '../../db/schema/service.js'
import { badRequest, conflict } from '../edge/errors.js'
import { openRing, sphericalAreaKm2, userPolygonProblem, type LatLon } from '../../lib/polygon.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import {
  MAX_FENCES_PER_USER, engineName, isLegacyName, nameProblem, parsePolygon, toFence,
  type FenceInput, type FenceRow, type ImportProblem, type UserFence
} from './user-geofences/fence-rules.js'
import { createFenceRows } from './user-geofences/fence-rows.js'
import { createFenceFeed } from './user-geofences/fence-feed.js'
import { createFenceReview } from './user-geofences/fence-review.js'

/** The driver's error code, also when drizzle wrapped the driver's error. */
const sqlCode = (err: unknown): string | undefined => {
  const e = err as { code?: string, cause?: { code?: string } }
  return e.code ?? e.cause?.code
}

/**
 * Two creates for one user both take the gap lock and then both insert: MariaDB resolves that by
 * rolling one back as a deadlock victim, and running it again is the documented answer.
 */
async function withDeadlockRetry<T> (work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work()
    } catch (err) {
      if (sqlCode(err) !== 'ER_LOCK_DEADLOCK' || attempt >= attempts) throw err
    }
  }
}

/**
 * User-drawn geofences (`user_geofences`): the lifecycle of the reference (create, rename, delete,
 * activate, submit, approve, reject) and the pieces the feed and the area selection read. Every change
 * that alters the feed asks the engine to download it again; area names move through `areaWriter`.
 * The parts are in plugins/domain/user-geofences/: the rules, the shared reads, the feed, the review.
 */
function createUserGeofences (fastify: FastifyInstance) {
  const { db, koji, areaWriter, userWriteLock, config } = fastify
  const rows = createFenceRows(fastify)
  const { row, owned, takenNames, sharedNames, count, now } = rows
  const feed = createFenceFeed(fastify, rows)
  const { feedChanged } = feed
  /** Fence writes change the user's area lists too, so they take the user's turn like every area write. */
  const mine = <T>(userId: string, work: () => Promise<T>) => userWriteLock.run(userId, work)

  /** What is wrong with a new fence (its name, its polygon, its size), or null. */
  function inputProblem (input: FenceInput): string | null {
    const problem = nameProblem(input.displayName) ?? userPolygonProblem(input.polygon)
    if (problem !== null) return problem
    const area = sphericalAreaKm2(openRing(input.polygon as LatLon[]))
    if (area > config.USER_GEOFENCE_MAX_AREA_KM2) {
      return `polygon covers about ${Math.round(area).toLocaleString('en')} km²; a geofence may cover at most ${config.USER_GEOFENCE_MAX_AREA_KM2.toLocaleString('en')} km²`
    }
    return null
  }

  function checkInput (input: FenceInput): { displayName: string, polygon: LatLon[] } {
    const problem = inputProblem(input)
    if (problem !== null) throw badRequest(problem)
    return { displayName: input.displayName.trim(), polygon: openRing(input.polygon as LatLon[]) }
  }

  async function create (userId: string, input: FenceInput, opts: { activate: boolean, reloadEngine?: boolean }): Promise<UserFence> {
    const { displayName, polygon } = checkInput(input)
    const taken = await takenNames()
    const insert = () => db.transaction(async (tx, connection) => {
      // Locks the user's range of the index, so two concurrent creates cannot both pass the limit.
      const mine = await connection.query('SELECT id FROM user_geofences WHERE human_id = ? FOR UPDATE', [userId]) as unknown[]
      if (mine.length >= MAX_FENCES_PER_USER) throw badRequest(`You can have at most ${MAX_FENCES_PER_USER} geofences.`)
      // The engine name holds the row's id: a unique stand-in first, replaced in the same transaction.
      const [result] = await tx.insert(userGeofences).values({
        humanId: userId,
        kojiName: `~new ${randomUUID()}`,
        displayName,
        groupName: input.groupName?.trim() ?? '',
        parentId: input.parentId ?? null,
        status: 'active',
        polygonJson: JSON.stringify(polygon),
        createdAt: now(),
        updatedAt: now()
      }).$returningId()
      const newId = (result as { id: number }).id
      const name = engineName(newId, displayName)
      // Someone (an admin in Koji, an engine fence file) already uses the name: refused, nothing kept.
      if (taken.has(name)) throw conflict('That geofence name is already taken.')
      await tx.update(userGeofences).set({ kojiName: name }).where(eq(userGeofences.id, newId))
      return newId
    })
    const id = await withDeadlockRetry(insert).catch((err: unknown) => {
      if (sqlCode(err) === 'ER_DUP_ENTRY') throw conflict('That geofence name was just taken; try again.')
      throw err
    })
    const kojiName = (await row(id)).kojiName
    if (opts.reloadEngine !== false) await feedChanged()
    if (opts.activate) {
      try {
        await areaWriter.add(userId, [kojiName])
      } catch (err) {
        // The fence without its area would surprise the user: undo it and report the engine's failure.
        await db.db.delete(userGeofences).where(eq(userGeofences.id, id))
        await feedChanged()
        throw err
      }
    }
    return toFence(await row(id))
  }

  async function rename (userId: string, id: number, input: { displayName: string, groupName?: string, parentId?: number | null }): Promise<UserFence> {
    const found = await owned(userId, id)
    if (found.status !== 'active' && found.status !== 'rejected') throw badRequest('Only active or rejected geofences can be renamed.')
    const problem = nameProblem(input.displayName)
    if (problem !== null) throw badRequest(problem)
    const displayName = input.displayName.trim()
    // A rename also moves a fence with an old-style name into the member namespace.
    const kojiName = engineName(id, displayName)
    if (kojiName !== found.kojiName && (await takenNames(id)).has(kojiName)) throw conflict('That geofence name is already taken.')
    await db.db.update(userGeofences).set({
      displayName,
      kojiName,
      // The reference's "keep" values: a blank group and parent 0.
      ...(input.groupName !== undefined && input.groupName.trim() !== '' ? { groupName: input.groupName.trim() } : {}),
      ...(input.parentId !== undefined && input.parentId !== null && input.parentId !== 0 ? { parentId: input.parentId } : {}),
      updatedAt: now()
    }).where(eq(userGeofences.id, id))
    if (kojiName !== found.kojiName) {
      await feedChanged()
      // An old-style name equal to a shared area names that area in the member's list, not this fence:
      // the shared area stays selected and the fence's new name is added instead of renamed.
      if (isLegacyName(found.kojiName) && (await sharedNames()).has(found.kojiName.toLowerCase())) await areaWriter.add(userId, [kojiName])
      else await areaWriter.rename(userId, found.kojiName, kojiName)
    }
    return toFence(await row(id))
  }

  /**
   * Removes a fence: out of Koji if it was published, its name out of every profile, the row, the feed.
   * Only ever this fence: an unpublished fence with an old-style name equal to a shared area leaves the
   * name in the owner's profiles, where it means the shared area.
   */
  async function destroy (found: FenceRow): Promise<void> {
    const name = found.promotedName ?? found.kojiName
    if (found.status === 'approved') {
      await koji.remove({ name, displayName: found.displayName, group: found.groupName, parentId: found.parentId, path: parsePolygon(found.polygonJson) })
      koji.invalidate()
    }
    const shadowsShared = found.status !== 'approved' && isLegacyName(name) && (await sharedNames()).has(name.toLowerCase())
    if (!shadowsShared) await areaWriter.remove(found.humanId, [name], 'all')
    await db.db.delete(userGeofences).where(eq(userGeofences.id, found.id))
    await feedChanged()
  }

  return {
    async list (userId: string): Promise<UserFence[]> {
      return (await db.db.select().from(userGeofences).where(eq(userGeofences.humanId, userId)).orderBy(asc(userGeofences.id))).map(toFence)
    },

    create: (userId: string, input: FenceInput, opts: { activate: boolean }) => mine(userId, () => create(userId, input, opts)),
    rename: (userId: string, id: number, input: { displayName: string, groupName?: string, parentId?: number | null }) => mine(userId, () => rename(userId, id, input)),
    inputProblem,

    /**
     * An import: every fence checked first (`problems` holds what reading the file found), then all created
     * in one turn of the user's lock with one feed change at the end. Any problem creates nothing.
     */
    async importAll (userId: string, inputs: FenceInput[], readProblems: ImportProblem[]): Promise<{ created: UserFence[], problems: ImportProblem[] }> {
      const problems = [...readProblems]
      if (problems.length === 0 && inputs.length === 0) problems.push({ featureName: 'file', reason: 'the file has no features' })
      for (const input of inputs) {
        const reason = inputProblem(input)
        if (reason !== null) problems.push({ featureName: input.displayName, reason })
      }
      return await mine(userId, async () => {
        const existing = await count(userId)
        if (problems.length === 0 && existing + inputs.length > MAX_FENCES_PER_USER) {
          problems.push({ featureName: 'file', reason: `you have ${existing} geofences; importing ${inputs.length} would pass the limit of ${MAX_FENCES_PER_USER}` })
        }
        const created: UserFence[] = []
        if (problems.length > 0) return { created, problems }
        try {
          for (const input of inputs) created.push(await create(userId, input, { activate: false, reloadEngine: false }))
        } finally {
          if (created.length > 0) await feedChanged()
        }
        return { created, problems }
      })
    },

    count,

    async delete (userId: string, id: number): Promise<void> {
      await mine(userId, async () => { await destroy(await owned(userId, id)) })
    },

    async adminDelete (id: number): Promise<void> {
      await destroy(await row(id))
    },

    async activate (userId: string, id: number): Promise<void> {
      await mine(userId, async () => {
        const found = await owned(userId, id)
        await areaWriter.add(userId, [found.promotedName ?? found.kojiName])
      })
    },

    async deactivate (userId: string, id: number): Promise<void> {
      await mine(userId, async () => {
        const found = await owned(userId, id)
        await areaWriter.remove(userId, [found.promotedName ?? found.kojiName], 'active')
      })
    },

    ...createFenceReview(fastify, rows, feedChanged),
    ...feed
  }
}

export type UserGeofences = ReturnType<typeof createUserGeofences>

declare module 'fastify' {
  interface FastifyInstance {
    userGeofences: UserGeofences
  }
}

export default decoratorPlugin('user-geofences', createUserGeofences, ['db', 'engine-db', 'engine', 'user-write-lock', 'koji', 'area-writer', 'clock', 'geofence-forum'])
