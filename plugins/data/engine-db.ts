import fp from 'fastify-plugin'
import { and, eq } from 'drizzle-orm'
import { createDb, type ConnectionOptions, type Db } from '../../db/client.js'
import type { Config } from '../base/config.js'
import { humans, profiles } from '../../db/schema/engine.js'
import { ALARM_TYPES, type AlarmType } from '../../schemas/alarm-types.js'

/** Each alarm type's table in the engine's schema; a fixed map, so no table name ever comes from input. */
type Row = Record<string, unknown>

/** One member's rows as the engine's `tracking/allProfiles` answers them: its human, profiles and alarms by type. */
export interface MemberRows { human: Row, profiles: Row[], alarms: Partial<Record<AlarmType, Row[]>> }

/** Members read in one statement per table at most: a bound on the statement's size. */
const MEMBERS_PER_READ = 1000

export const ALARM_TABLES: Record<AlarmType, string> = {
  pokemon: 'monsters',
  raid: 'raid',
  egg: 'egg',
  quest: 'quest',
  invasion: 'invasion',
  lure: 'lures',
  nest: 'nests',
  gym: 'gym',
  fort: 'forts',
  maxbattle: 'maxbattle'
}

/**
 * The alarm engine's database. Owned and migrated by the engine: only the direct operations the spec
 * lists may touch it (admin bulk user operations, profile rename, user-geofence area writes, per-alarm
 * override areas, the schema-migrations probe), and they are methods here, so no route holds SQL.
 * Everything else goes through `engine`. After a write the caller makes the engine reload.
 */
function createEngineDb (db: Db) {
  return {
    ...db,

    async renameProfile (userId: string, profileNo: number, name: string): Promise<void> {
      await db.db.update(profiles).set({ name }).where(and(eq(profiles.id, userId), eq(profiles.profileNo, profileNo)))
    },

    /** Neither engine has an API to change a user's notification language: one column of `humans`. */
    async setLanguage (userId: string, language: string | null): Promise<void> {
      await db.db.update(humans).set({ language }).where(eq(humans.id, userId))
    },

    /**
     * One alarm's `override_areas`, written as the engine stores it (JSON text, null for none): the engine
     * drops names of user-drawn fences, which it serves as not selectable, so those are written here.
     */
    async setOverrideAreas (type: AlarmType, userId: string, uid: number, names: string[]): Promise<void> {
      await db.pool.query(`UPDATE \`${ALARM_TABLES[type]}\` SET override_areas = ? WHERE id = ? AND uid = ?`,
        [names.length > 0 ? JSON.stringify(names) : null, userId, uid])
    },

    /**
     * Many members' rows, the engine's own (what `tracking/allProfiles` answers for one), read with one pass
     * over each table per thousand members: the engine's tables have no index by member, so one API call per
     * member scans every table each time. A member the engine does not know is absent; a table the engine's
     * generation lacks (PoracleJS has no max battles) holds nothing.
     */
    async memberRows (userIds: readonly string[]): Promise<Map<string, MemberRows>> {
      const found = new Map<string, MemberRows>()
      for (let from = 0; from < userIds.length; from += MEMBERS_PER_READ) {
        const ids = userIds.slice(from, from + MEMBERS_PER_READ)
        const read = async (sql: string): Promise<Row[]> => {
          try {
            return await db.pool.query(sql, [ids]) as Row[]
          } catch (err) {
            if ((err as { code?: string }).code === 'ER_NO_SUCH_TABLE') return []
            throw err
          }
        }
        for (const human of await read('SELECT * FROM humans WHERE id IN (?)')) found.set(String(human.id), { human, profiles: [], alarms: {} })
        for (const profile of await read('SELECT * FROM profiles WHERE id IN (?) ORDER BY id, profile_no')) found.get(String(profile.id))?.profiles.push(profile)
        for (const type of ALARM_TYPES) {
          for (const row of await read(`SELECT * FROM \`${ALARM_TABLES[type]}\` WHERE id IN (?) ORDER BY uid`)) {
            const member = found.get(String(row.id))
            if (member !== undefined) (member.alarms[type] ??= []).push(row)
          }
        }
      }
      return found
    }
  }
}

export type EngineDb = ReturnType<typeof createEngineDb>

declare module 'fastify' {
  interface FastifyInstance {
    engineDb: EngineDb
  }
}

/** Where the engine's database is, as configured; a few connections, as most engine work is its HTTP API. */
export const engineDbOptions = (config: Config): ConnectionOptions => ({
  host: config.DB_HOST,
  port: config.DB_PORT,
  user: config.DB_USER,
  password: config.DB_PASSWORD,
  database: config.DB_NAME,
  connectionLimit: 5
})

export default fp(async (fastify) => {
  fastify.decorate('engineDb', createEngineDb(createDb(fastify.pools.open('engine', engineDbOptions(fastify.config)))))
}, { name: 'engine-db', fastify: '5.x', dependencies: ['config', 'pools'] })
