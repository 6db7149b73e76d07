import { randomUUID } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { asc, eq, inArray, sql } from 'drizzle-orm'
import { userGeofences } from '../../db/schema/service.js'
import { toSqlTime } from '../../db/client.js'
import { humans } from '../../db/schema/engine.js'
import { badRequest, conflict, notFound } from '../edge/errors.js'
import { openRing, sphericalAreaKm2, userPolygonProblem, type LatLon } from '../../lib/polygon.js'
import { TtlCache } from '../../lib/ttl-cache.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import type { ForumFence } from './geofence-forum.js'

/** The reference's limits for user-drawn fences. */
export const MAX_FENCES_PER_USER = 10
export const NAME_MAX = 50
const NAME_CHARSET = /^[A-Za-z0-9 \-'.()&]+$/

/**
 * The engine's name of a member's fence: the display name in lower case, then ` ~u<fence id>`. The id
 * is unique, so no two member fences can share a name, and `~` cannot be typed into a display name, so
 * a member cannot name a fence like another member's. Names from before this scheme (plain lower-case
 * display names) keep working until the fence is renamed; see `isLegacyName`.
 */
export const engineName = (id: number, displayName: string): string => `${displayName.toLowerCase()} ~u${id}`
const ENGINE_NAME = / ~u\d+$/
/** A fence named by the old rule (its display name in lower case), which can equal a shared area's name. */
export const isLegacyName = (name: string): boolean => !ENGINE_NAME.test(name)

export type FenceStatus = 'active' | 'pending_review' | 'approved' | 'rejected'
/** Statuses the service itself serves in the feed; approved fences are in Koji. */
export const FEED_STATUSES: FenceStatus[] = ['active', 'pending_review', 'rejected']
/**
 * How long the feed trusts its last reading of the user part's fingerprint. This instance's own changes
 * end it at once; another instance's change shows in this instance's feed at most this much later.
 */
export const FEED_FINGERPRINT_TTL_MS = 5000

/**
 * One alarm's override areas as the engine can take them: the engine drops names of user-drawn fences
 * (it serves them as not selectable), so `sent` leaves every private fence out (null for none) and
 * `own` says whether the user's own fences were among the names (then the alarm writer writes the full
 * list directly to the engine DB). Another user's private fence is refused as unknown: the caller cannot
 * see it. `owners` is `privateNames()`.
 */
export function splitOverrideAreas (owners: Map<string, string>, userId: string, names: string[], field: string): { sent: string[] | null, own: boolean } {
  const foreign = names.find((n) => owners.has(n) && owners.get(n) !== userId)
  if (foreign !== undefined) throw badRequest('Invalid request', { details: [{ field, message: `unknown area: ${foreign}` }] })
  const sent = names.filter((n) => !owners.has(n))
  return { sent: sent.length > 0 ? sent : null, own: sent.length < names.length }
}

type Row = typeof userGeofences.$inferSelect

export interface UserFence {
  id: number
  humanId: string
  kojiName: string
  displayName: string
  groupName: string
  status: FenceStatus
  parentId: number | null
  polygon: LatLon[]
  pointCount: number
  submittedAt: string | null
  reviewedAt: string | null
  reviewedBy: string | null
  reviewNotes: string | null
  promotedName: string | null
  createdAt: string
  updatedAt: string
}

/** Why one feature of an import file cannot be created (`file` for the file as a whole). */
export interface ImportProblem { featureName: string, reason: string }

export interface FenceInput {
  displayName: string
  groupName?: string
  parentId?: number | null
  polygon: unknown
}

export const parsePolygon = (text: string | null): LatLon[] => {
  try {
    const parsed: unknown = JSON.parse(text ?? '[]')
    return Array.isArray(parsed) ? parsed as LatLon[] : []
  } catch {
    return []
  }
}

const toFence = (row: Row): UserFence => {
  const polygon = parsePolygon(row.polygonJson)
  return {
    id: row.id,
    humanId: row.humanId,
    kojiName: row.kojiName,
    displayName: row.displayName,
    groupName: row.groupName,
    status: row.status as FenceStatus,
    parentId: row.parentId,
    polygon,
    pointCount: polygon.length,
    submittedAt: row.submittedAt,
    reviewedAt: row.reviewedAt,
    reviewedBy: row.reviewedBy,
    reviewNotes: row.reviewNotes,
    promotedName: row.promotedName,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  }
}

/**
 * Two creates for one user both take the gap lock and then both insert: MariaDB resolves that by
 * rolling one back as a deadlock victim, and running it again is the documented answer.
 */
/** The driver's error code, also when drizzle wrapped the driver's error. */
const sqlCode = (err: unknown): string | undefined => {
  const e = err as { code?: string, cause?: { code?: string } }
  return e.code ?? e.cause?.code
}

async function withDeadlockRetry<T> (work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work()
    } catch (err) {
      if (sqlCode(err) !== 'ER_LOCK_DEADLOCK' || attempt >= attempts) throw err
    }
  }
}

/** The display-name rule: 1 to 50 characters of letters, digits, space and - ' . ( ) &. */
export function nameProblem (name: string): string | null {
  const trimmed = name.trim()
  if (trimmed.length < 1 || trimmed.length > NAME_MAX) return `name must be 1 to ${NAME_MAX} characters`
  if (!NAME_CHARSET.test(trimmed)) return "name may contain only letters, digits, spaces and - ' . ( ) &"
  return null
}

/**
 * User-drawn geofences (`user_geofences`): the lifecycle of the reference (create, rename, delete,
 * activate, submit, approve, reject) and the pieces the feed and the area selection read. Every change
 * that alters the feed asks the engine to download it again; area names move through `areaWriter`.
 */
function createUserGeofences (fastify: FastifyInstance) {
  const { db, engineDb, engine, koji, areaWriter, userWriteLock, clock, log, config, geofenceForum } = fastify
  /** Fence writes change the user's area lists too, so they take the user's turn like every area write. */
  const mine = <T>(userId: string, work: () => Promise<T>) => userWriteLock.run(userId, work)
  const now = () => toSqlTime(clock.now())
  /**
   * The fingerprint by the count of this instance's feed changes: a change moves to a new key, so a read
   * that was under way during the change can neither be served nor kept for a request after it.
   */
  const fingerprints = new TtlCache<number, string>(clock, 2)
  let feedChanges = 0

  async function row (id: number): Promise<Row> {
    const [found] = await db.db.select().from(userGeofences).where(eq(userGeofences.id, id))
    if (found === undefined) throw notFound('Geofence not found.')
    return found
  }

  /** The owner's fence; another user's answers 404 as if it did not exist. */
  async function owned (userId: string, id: number): Promise<Row> {
    const found = await row(id)
    if (found.humanId !== userId) throw notFound('Geofence not found.')
    return found
  }

  /**
   * Every name a fence must not take: every other member fence's (promoted ones included), Koji's, and
   * every area the engine itself knows (`/api/geofence/all`, which also lists this service's feed).
   */
  async function takenNames (exceptId?: number): Promise<Set<string>> {
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
  }

  /** Names of areas that are not member fences: Koji's shared fences. */
  async function sharedNames (): Promise<Set<string>> {
    return new Set([...(await koji.adminFences()).names].map((n) => n.toLowerCase()))
  }

  /**
   * After a change of the served fences: the next feed request reads the fingerprint again, and the engine
   * is asked to download the feed; a failed ask is logged, the engine's next reload picks the change up.
   */
  async function feedChanged (): Promise<void> {
    feedChanges++
    try {
      await engine.geofence.reload()
    } catch (err) {
      log.warn({ reason: err instanceof Error ? err.message : String(err) }, 'alarm engine geofence reload failed; the feed change applies at its next reload')
    }
  }

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

  /** The fence as its review post shows it, read when the post is made (the owner's name from the engine). */
  async function forumFence (id: number): Promise<{ found: Row, fence: ForumFence }> {
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

  /**
   * Removes a fence: out of Koji if it was published, its name out of every profile, the row, the feed.
   * Only ever this fence: an unpublished fence with an old-style name equal to a shared area leaves the
   * name in the owner's profiles, where it means the shared area.
   */
  async function destroy (found: Row): Promise<void> {
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

  /** How many fences the user has (the limit is checked again, under a lock, by `create`). */
  async function count (userId: string): Promise<number> {
    const [result] = await db.db.select({ n: sql<number>`count(*)` }).from(userGeofences).where(eq(userGeofences.humanId, userId))
    return Number(result?.n ?? 0)
  }

  return {
    async list (userId: string): Promise<UserFence[]> {
      return (await db.db.select().from(userGeofences).where(eq(userGeofences.humanId, userId)).orderBy(asc(userGeofences.id))).map(toFence)
    },

    async all (status?: FenceStatus): Promise<Array<UserFence & { ownerName: string | null, reviewerName: string | null }>> {
      const rows = (await db.db.select().from(userGeofences).where(status === undefined ? undefined : eq(userGeofences.status, status)).orderBy(asc(userGeofences.id))).map(toFence)
      const ids = [...new Set(rows.flatMap((r) => (r.reviewedBy !== null ? [r.humanId, r.reviewedBy] : [r.humanId])))]
      const names = new Map<string, string>()
      if (ids.length > 0) {
        for (const h of await engineDb.db.select({ id: humans.id, name: humans.name }).from(humans).where(inArray(humans.id, ids))) names.set(h.id, h.name)
      }
      return rows.map((r) => ({ ...r, ownerName: names.get(r.humanId) ?? null, reviewerName: r.reviewedBy !== null ? names.get(r.reviewedBy) ?? null : null }))
    },

    create: (userId: string, input: FenceInput, opts: { activate: boolean }) => mine(userId, () => create(userId, input, opts)),
    rename: (userId: string, id: number, input: { displayName: string, groupName?: string, parentId?: number | null }) => mine(userId, () => rename(userId, id, input)),
    inputProblem,
    feedChanged,

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

export type UserGeofences = ReturnType<typeof createUserGeofences>

declare module 'fastify' {
  interface FastifyInstance {
    userGeofences: UserGeofences
  }
}

export default decoratorPlugin('user-geofences', createUserGeofences, ['db', 'engine-db', 'engine', 'user-write-lock', 'koji', 'area-writer', 'clock', 'geofence-forum'])
