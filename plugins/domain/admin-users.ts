import { and, asc, count, eq, getTableName, inArray, like, or, sql, type SQL } from 'drizzle-orm'
import type { FastifyInstance } from 'fastify'
import type { PoolConnection } from 'mariadb'
import { alarmTables, humans, summarySchedules, weather } from '../../db/schema/engine.js'
import { toSqlTime } from '../../db/client.js'
import { EngineError, type EngineErrorKind, type EngineHuman } from '../data/engine.js'
import { ERRORS, badRequest, conflict, notFound } from '../edge/errors.js'
import { REASON } from './refresh-sessions.js'
import type { AdminUser, AdminUserDetail, UserOverview, UserListQuery, UserUpdate } from '../../schemas/admin-users.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'

/** Why a self-inflicted action is refused: an admin locked out of their own account cannot undo it. */
export const SELF_BLOCK = 'You cannot block your own account.'
export const SELF_DELETE = 'You cannot delete your own account.'

/**
 * The engine answered a webhook create with an error of its own (a refusal, an error status): "rejected
 * the webhook". Every other kind is a fault of the engine itself and answers its own status.
 */
const REJECTIONS = new Set<EngineErrorKind>(['bad_request', 'forbidden', 'not_found', 'failed'])

/** The engine tables holding a user's rows, children first; `humans` goes last. */
const USER_TABLES = [...Object.values(alarmTables), weather, summarySchedules].map((table) => getTableName(table))

type HumanRow = typeof humans.$inferSelect

/** `%` and `_` typed into the search box are searched for, not wildcards. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

const jsonList = (text: string | null): string[] => {
  if (text === null || text === '') return []
  try {
    const value = JSON.parse(text) as unknown
    return Array.isArray(value) ? value.map(String) : []
  } catch {
    return []
  }
}

/** The columns a list row shows: the sort carries only these, not the wide text columns. */
const LIST_COLUMNS = {
  id: humans.id,
  name: humans.name,
  type: humans.type,
  enabled: humans.enabled,
  adminDisable: humans.adminDisable,
  lastChecked: humans.lastChecked,
  disabledDate: humans.disabledDate,
  currentProfileNo: humans.currentProfileNo,
  language: humans.language,
  notes: humans.notes
}
type ListRow = Pick<HumanRow, keyof typeof LIST_COLUMNS>

/** Engine datetimes come back as "YYYY-MM-DD hh:mm:ss" in the engine's zone; shown as they are. */
function toListRow (row: ListRow, avatarUrl: string | null): AdminUser {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    enabled: row.enabled === 1,
    adminDisable: row.adminDisable === 1,
    lastChecked: row.lastChecked ?? null,
    disabledDate: row.disabledDate ?? null,
    currentProfileNo: row.currentProfileNo,
    language: row.language ?? null,
    notes: row.notes,
    avatarUrl
  }
}

function fromEngine (human: EngineHuman): HumanRow {
  return {
    id: human.id,
    type: human.type,
    name: human.name ?? '',
    enabled: Number(human.enabled),
    area: human.area,
    latitude: Number(human.latitude),
    longitude: Number(human.longitude),
    fails: Number(human.fails ?? 0),
    lastChecked: human.last_checked ?? '',
    language: human.language,
    adminDisable: Number(human.admin_disable),
    disabledDate: human.disabled_date,
    currentProfileNo: Number(human.current_profile_no),
    communityMembership: human.community_membership ?? '[]',
    areaRestriction: human.area_restriction,
    notes: human.notes ?? '',
    blockedAlerts: human.blocked_alerts
  }
}

const listWhere = (query: UserListQuery): SQL | undefined => {
  const conditions: SQL[] = []
  if (query.search !== undefined) {
    const text = escapeLike(query.search.trim())
    conditions.push(or(eq(humans.id, query.search.trim()), like(humans.id, `${text}%`), like(humans.name, `%${text}%`)) as SQL)
  }
  if (query.type !== undefined) conditions.push(eq(humans.type, query.type))
  if (query.status === 'blocked') conditions.push(eq(humans.adminDisable, 1))
  if (query.status === 'paused') conditions.push(and(eq(humans.enabled, 0), eq(humans.adminDisable, 0)) as SQL)
  if (query.status === 'active') conditions.push(and(eq(humans.enabled, 1), eq(humans.adminDisable, 0)) as SQL)
  return conditions.length > 0 ? and(...conditions) : undefined
}

function createAdminUsers (fastify: FastifyInstance) {
  const { config, engine, engineDb, db, userWriteLock, refreshSessions, cacheEviction, avatars, userGeofences, areaSelection, clock, log } = fastify
  let existingTables: Promise<string[]> | null = null

  /** Which of the user tables this engine's database has (PoracleJS lacks several); asked once. */
  function userTables (): Promise<string[]> {
    existingTables ??= (engineDb.pool.query('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE()') as Promise<Array<{ name: string }>>)
      .then((rows) => {
        const present = new Set(rows.map((r) => r.name))
        return USER_TABLES.filter((t) => present.has(t))
      })
    existingTables.catch(() => { existingTables = null })
    return existingTables
  }

  async function row (userId: string): Promise<HumanRow> {
    const [found] = await engineDb.db.select().from(humans).where(eq(humans.id, userId)).limit(1)
    if (found === undefined) throw notFound('User not found.')
    return found
  }

  /** The engine's answer for a user that the admin named: a missing user is a 404, not "account gone". */
  async function viaEngine (action: () => Promise<void>): Promise<void> {
    try {
      await action()
    } catch (error) {
      if (error instanceof EngineError && error.kind === 'not_found') throw notFound('User not found.')
      throw error
    }
  }

  async function evictUser (userId: string): Promise<void> {
    await cacheEviction.evict('blocked-account', userId)
    await cacheEviction.evict('roles', userId)
  }

  /**
   * Deletes every alarm row of the user (all profiles, all types) on `connection`, and with `schedules`
   * the user's quest summary schedules too (they are per user, not alarms); returns how many rows.
   */
  async function deleteAlarmRows (connection: PoolConnection, userId: string, schedules = false): Promise<number> {
    let deleted = 0
    for (const table of await userTables()) {
      if (!schedules && table === getTableName(summarySchedules)) continue
      const result = await connection.query(`DELETE FROM \`${table}\` WHERE id = ?`, [userId]) as { affectedRows: number }
      deleted += result.affectedRows
    }
    return deleted
  }

  /** The engine re-reads tracking after direct writes; its failure does not undo a committed write. */
  async function reloadEngine (): Promise<void> {
    await engine.orFallback(() => engine.reload(), {
      log, message: 'the alarm engine could not be told to reload after an admin write', fallback: undefined, anyError: true
    })
  }

  /** One user as the engine reports it (the spec's single-user reads go through the engine). */
  async function one (userId: string): Promise<AdminUserDetail> {
    let human: EngineHuman
    try {
      human = await engine.humans.one(userId)
    } catch (error) {
      if (error instanceof EngineError && error.kind === 'not_found') throw notFound('User not found.')
      throw error
    }
    const r = fromEngine(human)
    return {
      ...toListRow(r, avatars.urlFor(r.id, r.type)),
      area: jsonList(r.area),
      latitude: r.latitude,
      longitude: r.longitude,
      communityMembership: jsonList(r.communityMembership),
      areaRestriction: r.areaRestriction === null ? null : jsonList(r.areaRestriction)
    }
  }

  return {
    one,

    /**
     * Everyone the service treats as an admin by configuration: PORACLE_ADMIN_IDS and the engine's
     * admin lists. An engine that cannot be read leaves only the configured ids.
     */
    async poracleAdmins (): Promise<string[]> {
      const engineAdmins = await engine.orFallback(async () => {
        const c = await engine.config.poracleWeb()
        return [...c.admins.discord, ...c.admins.telegram]
      }, { log, message: 'the alarm engine\'s admin list could not be read; answering the configured admins only', fallback: [], anyError: true })
      return [...new Set([...config.PORACLE_ADMIN_IDS, ...engineAdmins].map((id) => id.trim()).filter((id) => id !== ''))].sort()
    },

    /** Avatar addresses of these users by id (blank ids skipped, each once); never asks the chat platform. */
    async avatarsOf (ids: string[]): Promise<Record<string, string>> {
      const wanted = [...new Set(ids.map((id) => id.trim()).filter((id) => id !== ''))]
      if (wanted.length === 0) return {}
      const found = await engineDb.db.select({ id: humans.id, type: humans.type }).from(humans).where(inArray(humans.id, wanted))
      const out: Record<string, string> = {}
      for (const row of found) {
        const url = avatars.urlFor(row.id, row.type)
        if (url !== null) out[row.id] = url
      }
      return out
    },

    /**
     * Every profile of the user with its alarm counts per type (one engine call), and the areas the
     * user may choose. A user without profile rows has one implicit profile: the active number.
     */
    async overview (userId: string): Promise<UserOverview> {
      let snapshot: Awaited<ReturnType<typeof engine.tracking.allProfiles>>
      let areas: Awaited<ReturnType<typeof engine.humans.areas>>
      try {
        [snapshot, areas] = await Promise.all([engine.tracking.allProfiles(userId), engine.humans.areas(userId)])
      } catch (error) {
        if (error instanceof EngineError && error.kind === 'not_found') throw notFound('User not found.')
        throw error
      }
      const current = Number(snapshot.human.current_profile_no)
      const rows = snapshot.profiles.map((p) => ({ profileNo: Number(p.profile_no), name: String(p.name) }))
      if (!rows.some((r) => r.profileNo === current)) rows.push({ profileNo: current, name: 'Default' })
      const profiles = rows.sort((a, b) => a.profileNo - b.profileNo).map((row) => ({
        ...row,
        active: row.profileNo === current,
        counts: Object.fromEntries(Object.entries(snapshot.alarms).map(([type, alarms]) => [type, alarms.filter((a) => Number(a.profile_no) === row.profileNo).length]))
      }))
      return { profiles, areas: areas.map((a) => ({ name: String(a.name), group: a.group ?? '' })) }
    },

    /**
     * One page and the number of matches in a single statement: the window count is taken over every
     * match before LIMIT, so the table (which has no index the search could use) is scanned once, not
     * twice. Only a page past the end needs the separate count.
     */
    async list (query: UserListQuery): Promise<{ users: AdminUser[], total: number, page: number, pageSize: number }> {
      const where = listWhere(query)
      const rows = await engineDb.db.select({ ...LIST_COLUMNS, total: sql<number>`COUNT(*) OVER ()` }).from(humans).where(where)
        .orderBy(asc(humans.name), asc(humans.id)).limit(query.pageSize).offset((query.page - 1) * query.pageSize)
      const total = rows[0]?.total ?? (await engineDb.db.select({ total: count() }).from(humans).where(where))[0]?.total ?? 0
      return {
        users: rows.map((r) => toListRow(r, avatars.urlFor(r.id, r.type))),
        total: Number(total),
        page: query.page,
        pageSize: query.pageSize
      }
    },

    /** Rows of the given ids (missing ones left out), list-shaped; for "my webhooks". */
    async rows (ids: string[]): Promise<AdminUser[]> {
      if (ids.length === 0) return []
      const found = await engineDb.db.select(LIST_COLUMNS).from(humans).where(or(...ids.map((id) => eq(humans.id, id)))).orderBy(asc(humans.name), asc(humans.id))
      return found.map((r) => toListRow(r, avatars.urlFor(r.id, r.type)))
    },

    async webhooks (): Promise<AdminUser[]> {
      const found = await engineDb.db.select(LIST_COLUMNS).from(humans).where(eq(humans.type, 'webhook')).orderBy(asc(humans.name), asc(humans.id))
      return found.map((r) => toListRow(r, null))
    },

    /**
     * The spec's "update user": a direct write of the admin-editable columns; the active profile's
     * location and areas go through the engine as the user's own changes do. The caller holds the
     * user's write lock.
     */
    async update (userId: string, patch: UserUpdate): Promise<void> {
      return await userWriteLock.run(userId, async () => {
        await row(userId)
        const set: Partial<HumanRow> = {}
        if (patch.name !== undefined) set.name = patch.name
        if (patch.notes !== undefined) set.notes = patch.notes
        if (patch.language !== undefined) set.language = patch.language
        if (patch.areaRestriction !== undefined) set.areaRestriction = patch.areaRestriction === null ? null : JSON.stringify(patch.areaRestriction.map((a) => a.toLowerCase()))
        if (patch.communityMembership !== undefined) set.communityMembership = JSON.stringify(patch.communityMembership.map((c) => c.toLowerCase()))
        if (Object.keys(set).length > 0) {
          await engineDb.db.update(humans).set(set).where(eq(humans.id, userId))
          await reloadEngine()
        }
        const { location } = patch
        if (location !== undefined) await viaEngine(() => engine.humans.setLocation(userId, location.latitude, location.longitude))
        if (patch.area !== undefined) await areaSelection.write(userId, patch.area)
      })
    },

    /**
     * Blocks or unblocks an account. Blocking also ends every refresh family of the user in this same
     * request, and every instance forgets its cached block flag, so the block holds from the user's
     * next API call and next refresh on, not from the next cache expiry.
     */
    async setBlocked (userId: string, blocked: boolean, adminId: string): Promise<void> {
      if (blocked && userId === adminId) throw badRequest(SELF_BLOCK)
      if (await engine.generation() === 'ng') {
        await viaEngine(() => engine.humans.adminDisabled(userId, blocked))
      } else {
        // PoracleJS has no block route: the flag and its date are written directly, as "update" does.
        await row(userId)
        await engineDb.db.update(humans)
          .set({ adminDisable: blocked ? 1 : 0, disabledDate: blocked ? toSqlTime(clock.now()).slice(0, 19) : null })
          .where(eq(humans.id, userId))
        await reloadEngine()
      }
      if (blocked) await refreshSessions.revokeAllForUser(userId, REASON.adminRevoked)
      await evictUser(userId)
    },

    async setPaused (userId: string, paused: boolean): Promise<void> {
      await viaEngine(() => paused ? engine.humans.stop(userId) : engine.humans.start(userId))
    },

    /** Every alarm of every type and profile, in one transaction. */
    async deleteAlarms (userId: string): Promise<number> {
      return await userWriteLock.run(userId, async () => {
        await row(userId)
        const deleted = await engineDb.transaction(async (_tx, connection) => deleteAlarmRows(connection, userId))
        await reloadEngine()
        return deleted
      })
    },

    /**
     * Removes a user and everything of theirs: alarms of every type, profiles and the human row in the
     * engine's database; user geofences, delegate grants both ways, personal quick picks, applied quick
     * picks and refresh sessions in the service's. Both databases run one transaction each, the engine's
     * nested inside the service's: any failure rolls both back. The engine's commits first, so the only
     * window left (the service commit failing right after it) leaves service rows of a user who no
     * longer exists, which nothing reads, rather than a user who lost their grants.
     */
    async purge (userId: string, adminId: string): Promise<void> {
      return await userWriteLock.run(userId, async () => {
        if (userId === adminId) throw badRequest(SELF_DELETE)
        await row(userId)
        const delegates = await db.pool.query('SELECT user_id AS userId FROM webhook_delegates WHERE webhook_id = ?', [userId]) as Array<{ userId: string }>
        await db.transaction(async (_tx, service) => {
          await service.query('DELETE FROM user_geofences WHERE human_id = ?', [userId])
          await service.query('DELETE FROM webhook_delegates WHERE user_id = ? OR webhook_id = ?', [userId, userId])
          await service.query('DELETE FROM quick_pick_applied_states WHERE user_id = ?', [userId])
          await service.query("DELETE FROM quick_pick_definitions WHERE scope = 'user' AND owner_user_id = ?", [userId])
          await service.query('DELETE FROM oidc_sessions WHERE user_id = ?', [userId])
          await engineDb.transaction(async (_etx, connection) => {
            await deleteAlarmRows(connection, userId, true)
            await connection.query('DELETE FROM profiles WHERE id = ?', [userId])
            await connection.query('DELETE FROM humans WHERE id = ?', [userId])
          })
        })
        await evictUser(userId)
        for (const delegate of delegates) await cacheEviction.evict('roles', delegate.userId)
        await reloadEngine()
        // The user's own fences left the feed with the rows.
        await userGeofences.feedChanged()
      })
    },

    /**
     * A webhook target: an engine user whose id is its URL, created through the engine (which applies
     * its defaults and profile 1). If the engine refuses after writing part of it, the rows are removed.
     */
    async createWebhook (name: string, url: string): Promise<AdminUserDetail> {
      const existing = await engineDb.db.select({ id: humans.id }).from(humans).where(eq(humans.id, url)).limit(1)
      if (existing.length > 0) throw conflict('A webhook with this URL already exists.')
      try {
        await engine.humans.create({ id: url, name: name.trim(), type: 'webhook', enabled: true, admin_disable: false })
      } catch (error) {
        if (error instanceof EngineError && (error.kind === 'unsupported' || error.kind === 'conflict')) {
          throw error.kind === 'conflict' ? conflict('A webhook with this URL already exists.') : error
        }
        await engineDb.transaction(async (_tx, connection) => {
          await connection.query('DELETE FROM profiles WHERE id = ?', [url])
          await connection.query('DELETE FROM humans WHERE id = ?', [url])
        })
        log.warn({ kind: error instanceof EngineError ? error.kind : 'unknown' }, 'the alarm engine refused a new webhook; nothing was kept')
        // Only an error answer to this create is the engine rejecting the webhook; an engine that cannot
        // be reached, does not answer in time or answers unusably keeps its own status (503, 504, 502).
        if (error instanceof EngineError && !REJECTIONS.has(error.kind)) throw error
        throw new ERRORS.WebhookRejected()
      }
      return one(url)
    }
  }
}

export type AdminUsers = ReturnType<typeof createAdminUsers>

declare module 'fastify' {
  interface FastifyInstance {
    adminUsers: AdminUsers
  }
}

/** The admin's user operations: list and edit engine users directly, block, pause, purge, webhooks. */
export default decoratorPlugin('admin-users', createAdminUsers, ['config', 'clock', 'db', 'engine-db', 'engine', 'user-write-lock', 'refresh-sessions', 'cache-eviction', 'avatars', 'user-geofences', 'area-selection'])
