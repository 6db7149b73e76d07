import { spawn } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { and, eq, isNull, sql } from 'drizzle-orm'
import { createDb, createPool, type PoolLog } from '../db/client.js'
import { migrateServiceDb } from '../db/migrate.js'
import { siteSettings } from '../db/schema/service.js'
import { JWT_SECRET, ROOT, rootConnection, type Test } from './helper.js'

async function freshDatabase (t: Test, prefix: string): Promise<string> {
  const name = `${prefix}_${process.pid}_${Math.random().toString(16).slice(2, 8)}`
  t.teardown(async () => {
    const c = await rootConnection()
    await c.query(`DROP DATABASE IF EXISTS \`${name}\``)
    await c.end()
  })
  return name
}

const silent: PoolLog = { error: () => {} }

/** A logger that keeps what the pool reports, for the tests that read it. */
function recorder () {
  const lines: Array<{ details: Record<string, unknown>, message: string }> = []
  const log: PoolLog = { error: (details, message) => { lines.push({ details: details as Record<string, unknown>, message }) } }
  return { lines, log }
}

t.test('a pool that cannot connect logs why under its name, without the password', async (t) => {
  const { lines, log } = recorder()
  // Nothing listens on port 9: the pool's first connection is refused.
  const pool = createPool('probe', { ...ROOT, port: 9, password: 'pool-secret-1', database: 'nowhere', connectionLimit: 1, acquireTimeoutMs: 300 }, log)
  t.teardown(() => pool.end())
  await t.rejects(pool.query('SELECT 1'), 'the query fails')
  const deadline = Date.now() + 5000
  while (lines.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
  t.ok(lines.length > 0, 'the refused connection is logged')
  const [line] = lines
  t.equal(line?.message, 'database pool cannot open a connection')
  t.match(line?.details, { pool: 'probe', host: ROOT.host, port: 9, database: 'nowhere' })
  t.ok(line?.details.err instanceof Error, 'with the driver\'s error')
  t.notMatch(JSON.stringify(line?.details) + String((line?.details.err as Error).message), /pool-secret-1/, 'no password')
})

t.test('every connection of a pool runs in UTC with utf8mb4', async (t) => {
  const pool = createPool('test', { ...ROOT, database: '', connectionLimit: 1 }, silent)
  t.teardown(() => pool.end())
  const [row] = await pool.query('SELECT @@session.time_zone AS zone, @@character_set_connection AS charset, @@collation_connection AS collation') as Array<Record<string, string>>
  t.same(row, { zone: '+00:00', charset: 'utf8mb4', collation: 'utf8mb4_unicode_ci' })
})

t.test('migrations create the database, apply once, and are idempotent', async (t) => {
  const database = await freshDatabase(t, 'aw_mig')
  const first = await migrateServiceDb({ ...ROOT, database })
  t.ok(first > 5, `first run applied ${first} statements`)
  t.equal(await migrateServiceDb({ ...ROOT, database }), 0, 'second run applies nothing')
  const c = await rootConnection()
  const tables = (await c.query('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ? ORDER BY table_name', [database]) as Array<{ name: string }>).map((r) => r.name)
  await c.end()
  t.same(tables.sort(), ['__drizzle_migrations', 'alarm_defaults', 'audit_log', 'logout_token_uses', 'oidc_sessions', 'push_delivery', 'push_subscriptions', 'quick_pick_applied_states', 'quick_pick_definitions', 'session_cutoffs', 'shared_sets', 'sign_ins', 'site_settings', 'user_geofences', 'webhook_delegates'])
})

t.test('two processes starting together apply each migration exactly once', async (t) => {
  const database = await freshDatabase(t, 'aw_race')
  const script = join(import.meta.dirname, '..', 'scripts', 'migrate.ts')
  const env = { ...process.env, JWT_SECRET, NODE_ENV: 'development', WEB_DB_HOST: ROOT.host, WEB_DB_USER: ROOT.user, WEB_DB_NAME: database }
  const run = () => new Promise<{ code: number | null, out: string }>((resolve) => {
    const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), script], { env })
    let out = ''
    child.stdout.on('data', (d) => { out += String(d) })
    child.stderr.on('data', (d) => { out += String(d) })
    child.on('close', (code) => resolve({ code, out }))
  })
  const results = await Promise.all([run(), run()])
  t.same(results.map((r) => r.code), [0, 0], results.map((r) => r.out).join('\n'))
  const applied = results.map((r) => Number(/applied: (\d+)/.exec(r.out)?.[1]))
  t.equal(Math.min(...applied), 0, 'one of them found nothing to do')
  t.ok(Math.max(...applied) > 5, 'the other applied everything')
  const c = await rootConnection()
  const [row] = await c.query(`SELECT COUNT(*) AS n FROM \`${database}\`.__drizzle_migrations`) as Array<{ n: number }>
  await c.end()
  const journal = JSON.parse(await readFile(join(import.meta.dirname, '..', 'db', 'migrations', 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] }
  t.equal(row?.n, journal.entries.length, 'one bookkeeping row per migration')
})

t.test('transactions commit, roll back, and serialize a conditional update', async (t) => {
  const database = await freshDatabase(t, 'aw_tx')
  await migrateServiceDb({ ...ROOT, database })
  const handle = createDb(createPool('test', { ...ROOT, database, connectionLimit: 20 }, silent))
  t.teardown(() => handle.close())
  const { db } = handle

  await handle.transaction(async (tx) => { await tx.insert(siteSettings).values({ key: 'committed', value: 'yes' }) })
  t.equal((await db.select().from(siteSettings).where(eq(siteSettings.key, 'committed'))).length, 1, 'commit')

  await t.rejects(handle.transaction(async (tx) => {
    await tx.insert(siteSettings).values({ key: 'rolled_back', value: 'no' })
    throw new Error('boom')
  }), /boom/)
  t.equal((await db.select().from(siteSettings).where(eq(siteSettings.key, 'rolled_back'))).length, 0, 'rollback')

  await t.rejects(handle.transaction(async (tx) => {
    await tx.insert(siteSettings).values({ key: 'dup', value: '1' })
    await tx.insert(siteSettings).values({ key: 'dup', value: '2' })
  }), 'a failing statement rolls back')
  t.equal((await db.select().from(siteSettings).where(eq(siteSettings.key, 'dup'))).length, 0)

  await db.insert(siteSettings).values({ key: 'claim_me', value: null })
  const claims = await Promise.all(Array.from({ length: 20 }, (_, i) => handle.transaction(async (tx) => {
    const [result] = await tx.update(siteSettings).set({ value: `winner-${i}` })
      .where(and(eq(siteSettings.key, 'claim_me'), isNull(siteSettings.value)))
    return (result as unknown as { affectedRows: number }).affectedRows
  })))
  t.equal(claims.filter((n) => n === 1).length, 1, 'exactly one of 20 concurrent conditional updates wins')
  t.equal(claims.filter((n) => n === 0).length, 19)

  const [count] = await db.select({ n: sql<number>`COUNT(*)` }).from(siteSettings)
  t.equal(Number(count?.n), 2)
})
