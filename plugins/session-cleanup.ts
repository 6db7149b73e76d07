import fp from 'fastify-plugin'
import cron from 'node-cron'
import type { Pool } from 'mariadb'
import type { FastifyBaseLogger } from 'fastify'
import { toSqlTime } from '../db/client.js'

const DAY_MS = 86_400_000
/** About every 6 hours; instances that fire together are serialized by the lock below. */
export const CLEANUP_SCHEDULE = '17 */6 * * *'
/** The first pass, shortly after start, so a restarted instance does not wait up to 6 hours. */
export const FIRST_RUN_DELAY_MS = 60_000
/** Named lock: with several instances on one database only one deletes at a time. */
export const CLEANUP_LOCK = 'alarm-web:oidc-session-cleanup'

/**
 * Deletes expired rows, and revoked or rotated rows whose revocation is older than the retention. One
 * raw statement without a table alias: the query builder's aliased DELETE form is rejected by MariaDB.
 * Returns the number of rows deleted.
 */
export async function deleteStaleSessions (pool: Pick<Pool, 'query'>, now: number, retentionDays: number): Promise<number> {
  const result = await pool.query(
    'DELETE FROM oidc_sessions WHERE expires_at < ? OR (revoked_at IS NOT NULL AND revoked_at < ?)',
    [toSqlTime(now), toSqlTime(now - retentionDays * DAY_MS)]
  ) as { affectedRows: number }
  return result.affectedRows
}

/**
 * One cleanup pass under GET_LOCK (held on one connection, released before it goes back to the pool).
 * Returns the rows deleted, or null when another instance holds the lock.
 */
export async function runSessionCleanup (pool: Pool, now: number, retentionDays: number): Promise<number | null> {
  const connection = await pool.getConnection()
  try {
    const [lock] = await connection.query('SELECT GET_LOCK(?, 0) AS acquired', [CLEANUP_LOCK]) as Array<{ acquired: number | null }>
    if (lock?.acquired !== 1) return null
    try {
      return await deleteStaleSessions(connection, now, retentionDays)
    } finally {
      await connection.query('SELECT RELEASE_LOCK(?)', [CLEANUP_LOCK])
    }
  } finally {
    await connection.release()
  }
}

/** One scheduled pass: never throws; the outcome, failures included, goes to the log. */
export async function cleanupPass (pool: Pool, now: number, retentionDays: number, log: FastifyBaseLogger): Promise<void> {
  const started = performance.now()
  try {
    const deleted = await runSessionCleanup(pool, now, retentionDays)
    if (deleted === null) log.debug('session cleanup skipped: another instance holds the lock')
    else log.info({ deleted, ms: Math.round(performance.now() - started) }, 'session cleanup done')
  } catch (error) {
    // The next pass retries; nothing else depends on a pass succeeding.
    log.error({ kind: (error as { code?: string }).code ?? (error as Error).name }, 'session cleanup failed')
  }
}

/**
 * Removes spent `oidc_sessions` rows about every 6 hours and once shortly after start, whether or not
 * refresh-backed sessions are on (rows from an earlier period with the feature on still need to go).
 */
export default fp(async (fastify) => {
  const { db, clock, config } = fastify
  const log = fastify.log.child({ job: 'session-cleanup' })
  let running: Promise<void> | undefined
  const run = (): Promise<void> => {
    running ??= cleanupPass(db.pool, clock.now(), config.OIDC_SESSION_REVOKED_RETENTION_DAYS, log)
      .finally(() => { running = undefined })
    return running
  }

  let first: NodeJS.Timeout | undefined
  let task: ReturnType<typeof cron.schedule> | undefined
  fastify.addHook('onReady', async () => {
    first = setTimeout(() => { void run() }, FIRST_RUN_DELAY_MS).unref()
    task = cron.schedule(CLEANUP_SCHEDULE, run, { name: 'oidc-session-cleanup' })
  })
  // preClose: stop scheduling and let a pass in flight finish before the pool is closed under it.
  fastify.addHook('preClose', async () => {
    clearTimeout(first)
    await task?.destroy()
    await running
  })
}, { name: 'session-cleanup', fastify: '5.x', dependencies: ['config', 'clock', 'db'] })
