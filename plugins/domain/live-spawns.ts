import type { FastifyInstance } from 'fastify'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { SNAPSHOT_COLUMNS, SpawnSnapshotBuilder, type SpawnSnapshot } from '../../lib/spawn-snapshot.js'

/** A snapshot this young answers as it is. */
const FRESH_MS = 60_000
/** An older one still answers at once (while a new read runs) up to this age; beyond it, the read is awaited. */
const STALE_MS = 5 * 60_000
/** The longest the scanner may spend on one read of its live table (a full scan of it). */
const READ_LIMIT_S = 60

class SnapshotUnavailable extends Error {}

/**
 * The scanner's live pokemon, read whole at most once a minute while someone asks and kept in columns
 * (lib/spawn-snapshot.ts), so that an estimate or a profile of a hundred alarms is a walk over memory
 * instead of a read of the scanner per answer: Golbat's `pokemon` has no index on when a row was first
 * seen, so every such read scanned the table anyway.
 *
 * - Fresh (under a minute): answered as it is.
 * - Older: answered at once while one new read runs behind it, up to five minutes of age.
 * - None, or too old: the read is awaited for at most `ESTIMATE_TIMEOUT_MS`; past that the caller hears
 *   `SnapshotUnavailable` while the read goes on for the next caller. A failed read is logged and
 *   forgotten, so the next caller tries again.
 * - Rows are streamed into the columns as they arrive: the driver's own rows never exist all at once.
 */
function createLiveSpawns (fastify: FastifyInstance) {
  const { config, clock, scannerDb, log } = fastify
  let snapshot: SpawnSnapshot | null = null
  let reading: Promise<SpawnSnapshot> | null = null
  let lastRead = { rows: 0, ms: 0, bytes: 0 }
  // The connection of a read under way: closing the app cuts it rather than wait out a whole table's read.
  let streaming: { destroy: () => void } | null = null
  fastify.addHook('onClose', async () => { streaming?.destroy() })

  async function read (): Promise<SpawnSnapshot> {
    if (scannerDb === null) throw new SnapshotUnavailable('no scanner database')
    const takenAt = clock.now()
    const started = performance.now()
    const since = Math.floor(takenAt / 1000) - config.ESTIMATE_WINDOW_HOURS * 3600
    const connection = await scannerDb.pool.getConnection()
    streaming = connection
    try {
      const builder = new SpawnSnapshotBuilder()
      const rows = connection.queryStream({ sql: `SET STATEMENT max_statement_time=${READ_LIMIT_S} FOR SELECT ${SNAPSHOT_COLUMNS} FROM pokemon WHERE first_seen_timestamp >= ?`, rowsAsArray: true }, [since])
      for await (const row of rows) builder.add(row as unknown[])
      const done = builder.finish(takenAt)
      lastRead = { rows: done.size, ms: Math.round(performance.now() - started), bytes: done.bytes }
      return done
    } finally {
      streaming = null
      await connection.release()
    }
  }

  /** The read under way, or a new one; its failure is logged here once, whoever waits for it. */
  function refresh (): Promise<SpawnSnapshot> {
    if (reading === null) {
      reading = read().then((fresh) => {
        snapshot = fresh
        log.debug(lastRead, 'live pokemon read')
        return fresh
      }).finally(() => { reading = null })
      reading.catch((err: unknown) => { log.warn({ reason: (err as { code?: string }).code ?? (err as Error).message }, 'live pokemon read failed') })
    }
    return reading
  }

  return {
    /** What the last read took: rows, milliseconds and bytes kept (for the benchmark and the logs). */
    get lastRead () { return lastRead },

    /** The scanner's live pokemon of the last `ESTIMATE_WINDOW_HOURS`, at most a few minutes old. */
    async current (): Promise<SpawnSnapshot> {
      const age = snapshot === null ? Infinity : clock.now() - snapshot.takenAt
      if (snapshot !== null && age < FRESH_MS) return snapshot
      const next = refresh()
      if (snapshot !== null && age < STALE_MS) return snapshot
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => { reject(new SnapshotUnavailable('the scanner did not answer in time')) }, config.ESTIMATE_TIMEOUT_MS) })
      try {
        return await Promise.race([next, timeout])
      } finally {
        clearTimeout(timer)
      }
    }
  }
}

export type LiveSpawns = ReturnType<typeof createLiveSpawns>

declare module 'fastify' {
  interface FastifyInstance {
    liveSpawns: LiveSpawns
  }
}

/** The scanner's live pokemon, kept in memory for alarm estimates. */
export default decoratorPlugin('live-spawns', createLiveSpawns, ['config', 'clock', 'scanner-db'])
