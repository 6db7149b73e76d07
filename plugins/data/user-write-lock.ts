import { AsyncLocalStorage } from 'node:async_hooks'
import { createHash } from 'node:crypto'
import fp from 'fastify-plugin'
import type { Pool, PoolConnection } from 'mariadb'
import type { FastifyBaseLogger } from 'fastify'
import { serviceDbOptions } from './db.js'
import { conflict, unavailable } from '../edge/errors.js'

export const IN_PROGRESS = 'Another change of yours is in progress; try again in a moment.'
const LOCKS_UNAVAILABLE = 'Changes cannot be saved at the moment; try again shortly.'
/** What a 503 tells the client to wait before trying again. */
const RETRY_AFTER_SECONDS = 5
/** Users whose changes can be in progress at once on one instance; each holds one connection meanwhile. */
export const LOCK_CONNECTIONS = 20

/**
 * Named locks are server-wide and their names at most 64 characters: a fixed prefix and a digest of the
 * service database (instances of one site share it; other sites or test runs on the same server do not)
 * and the user id (which may be a long webhook URL).
 */
export function lockName (database: string, userId: string): string {
  return `alarm-web:user-write:${createHash('sha256').update(`${database}\n${userId}`).digest('hex').slice(0, 40)}`
}

/**
 * The line of one user's changes on this instance. Only the first in line goes on to the database lock,
 * so a burst of one user's requests holds one connection, not one each. A waiter whose time runs out
 * leaves the line without disturbing the others.
 */
class Turns {
  private readonly lines = new Map<string, Array<() => void>>()

  /** True when it is the caller's turn, false when `ms` passed first. */
  async wait (key: string, ms: number): Promise<boolean> {
    const line = this.lines.get(key)
    if (line === undefined) {
      this.lines.set(key, [])
      return true
    }
    return new Promise((resolve) => {
      const go = () => { clearTimeout(timer); resolve(true) }
      const timer = setTimeout(() => { line.splice(line.indexOf(go), 1); resolve(false) }, ms)
      line.push(go)
    })
  }

  /** Hands the turn to the next waiter, or forgets the user when nobody waits. */
  done (key: string): void {
    const next = this.lines.get(key)?.shift()
    if (next !== undefined) next()
    else this.lines.delete(key)
  }
}

export function createUserWriteLock (pool: Pool, database: string, waitMs: number, log: FastifyBaseLogger) {
  const turns = new Turns()
  /** The users whose lock the current async call chain holds: a nested `run` for one of them just runs. */
  const holding = new AsyncLocalStorage<ReadonlySet<string>>()

  /** A connection and the named lock on it within `ms`; null when another holder kept it that long. */
  async function lock (name: string, ms: number): Promise<PoolConnection | null> {
    let connection: PoolConnection
    try {
      connection = await pool.getConnection()
    } catch (err) {
      log.error({ err }, 'no database connection for a user write lock')
      throw unavailable(LOCKS_UNAVAILABLE, RETRY_AFTER_SECONDS)
    }
    try {
      const [row] = await connection.query('SELECT GET_LOCK(?, ?) AS acquired', [name, ms / 1000]) as Array<{ acquired: number | null }>
      if (row?.acquired === 1) return connection
      await connection.release()
      return null
    } catch (err) {
      log.error({ err }, 'could not take a user write lock')
      await connection.destroy()
      throw unavailable(LOCKS_UNAVAILABLE, RETRY_AFTER_SECONDS)
    }
  }

  /** Releases the lock; a connection that cannot say it did is closed, which releases it on the server. */
  async function unlock (connection: PoolConnection, name: string): Promise<void> {
    try {
      await connection.query('SELECT RELEASE_LOCK(?)', [name])
      await connection.release()
    } catch (err) {
      log.error({ err }, 'could not release a user write lock; closing its connection')
      await connection.destroy()
    }
  }

  return {
    /**
     * Runs `work` as the only change of `userId` in progress on any instance sharing the service
     * database. Waits up to USER_WRITE_LOCK_WAIT_MS for a change in progress to finish, then refuses
     * with 409; a database that cannot give the lock is a 503 with Retry-After. Nothing of `work` runs
     * unless the lock was taken, and the lock is released however `work` ends.
     */
    async run<T> (userId: string, work: () => Promise<T>): Promise<T> {
      const held = holding.getStore() ?? new Set<string>()
      if (held.has(userId)) return work()
      const deadline = performance.now() + waitMs
      if (!await turns.wait(userId, waitMs)) throw conflict(IN_PROGRESS)
      try {
        const name = lockName(database, userId)
        const connection = await lock(name, Math.max(0, deadline - performance.now()))
        if (connection === null) throw conflict(IN_PROGRESS)
        try {
          return await holding.run(new Set([...held, userId]), work)
        } finally {
          await unlock(connection, name)
        }
      } finally {
        turns.done(userId)
      }
    }
  }
}

export type UserWriteLock = ReturnType<typeof createUserWriteLock>

declare module 'fastify' {
  interface FastifyInstance {
    /** One change per user at a time, across instances: `run(userId, work)`. */
    userWriteLock: UserWriteLock
  }
}

/**
 * Serializes each user's alarm and profile changes: the engine offers no transactions, and its writes
 * depend on what was read just before (which rows exist, which profile is active). The lock is a
 * MariaDB named lock on the service database, held on a connection of its own pool for the whole change.
 */
export default fp(async (fastify) => {
  const { config } = fastify
  const pool = fastify.pools.open('user-write-lock', {
    ...serviceDbOptions(config),
    connectionLimit: LOCK_CONNECTIONS,
    // Connections are opened when changes come in and closed again when idle.
    minimumIdle: 0,
    acquireTimeoutMs: config.USER_WRITE_LOCK_WAIT_MS
  })
  fastify.decorate('userWriteLock', createUserWriteLock(pool, config.WEB_DB_NAME, config.USER_WRITE_LOCK_WAIT_MS, fastify.log))
}, { name: 'user-write-lock', fastify: '5.x', dependencies: ['config', 'pools', 'db'] })
