import fp from 'fastify-plugin'
import cron from 'node-cron'
import type { Pool } from 'mariadb'
import type { FastifyBaseLogger } from 'fastify'

/** About every 6 hours; instances that fire together are serialized by the lock below. */
export const CLEANUP_SCHEDULE = '17 */6 * * *'
/** The first pass, shortly after start, so a restarted instance does not wait up to 6 hours. */
export const FIRST_RUN_DELAY_MS = 60_000
/** Named lock: with several instances on one database only one deletes at a time. */
export const CLEANUP_LOCK = 'alarm-web:oidc-session-cleanup'

/**
 * Runs `purge` under GET_LOCK (held on one connection, released before it goes back to the pool).
 * Returns the rows deleted, or null when another pass (of this or another instance) holds the lock.
 */
export async function runSessionCleanup (pool: Pool, purge: () => Promise<number>): Promise<number | null> {
  const connection = await pool.getConnection()
  try {
    const [lock] = await connection.query('SELECT GET_LOCK(?, 0) AS acquired', [CLEANUP_LOCK]) as Array<{ acquired: number | null }>
    if (lock?.acquired !== 1) return null
    try {
      return await purge()
    } finally {
      await connection.query('SELECT RELEASE_LOCK(?)', [CLEANUP_LOCK])
    }
  } finally {
    await connection.release()
  }
}

/** One scheduled pass: never throws; the outcome, failures included, goes to the log. */
export async function cleanupPass (pool: Pool, purge: () => Promise<number>, log: FastifyBaseLogger): Promise<void> {
  const started = performance.now()
  try {
    const deleted = await runSessionCleanup(pool, purge)
    if (deleted === null) log.debug('session cleanup skipped: another instance holds the lock')
    else log.info({ deleted, ms: Math.round(performance.now() - started) }, 'session cleanup done')
  } catch (error) {
    // The next pass retries; nothing else depends on a pass succeeding.
    log.error({ kind: (error as { code?: string }).code ?? (error as Error).name }, 'session cleanup failed')
  }
}

/**
 * Schedules the refresh-sessions plugin's `purgeStale` about every 6 hours and once shortly after start,
 * whether or not refresh-backed sessions are on (rows from an earlier period with the feature on still
 * need to go). node-cron skips a tick while the previous pass still runs; the first pass, which runs
 * outside the schedule, is kept from overlapping a scheduled one by the database lock.
 */
export default fp(async (fastify) => {
  const { db, clock, refreshSessions, sessionEnds, auditLog } = fastify
  const log = fastify.log.child({ job: 'session-cleanup' })
  /** The pass in flight, awaited on shutdown so the pool is not closed under it. */
  let last: Promise<void> = Promise.resolve()
  const pass = (): Promise<void> => {
    last = cleanupPass(db.pool, async () => {
      const now = clock.now()
      // Session rows, ended sign-ins and used logout tokens, and audit entries past AUDIT_RETENTION_DAYS.
      return await refreshSessions.purgeStale(now) + await sessionEnds.purgeStale(now) + await auditLog.purgeStale(now)
    }, log)
    return last
  }

  let first: NodeJS.Timeout | undefined
  let task: ReturnType<typeof cron.schedule> | undefined
  fastify.addHook('onReady', async () => {
    first = setTimeout(pass, FIRST_RUN_DELAY_MS).unref()
    task = cron.schedule(CLEANUP_SCHEDULE, pass, { name: 'oidc-session-cleanup', noOverlap: true })
  })
  fastify.addHook('preClose', async () => {
    clearTimeout(first)
    await task?.destroy()
    await last
  })
}, { name: 'session-cleanup', fastify: '5.x', dependencies: ['clock', 'db', 'refresh-sessions', 'session-ends', 'audit-log'] })
