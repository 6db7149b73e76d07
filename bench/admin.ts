/**
 * The admin user operations at scale, in one process (the engine fake only answers the reload call):
 *
 * - GET /api/admin/users, page of 50 with a name search, over 100,000 engine users: p50/p99 through
 *   the service (JWT, admin check, validation, the query, serialisation) against the same SQL sent
 *   straight to MariaDB, and that SQL against the naive page of whole rows plus a separate count;
 *   plus the query plan.
 * - DELETE /api/admin/users (purge) of a user with 5,000 alarms: time through the service against the
 *   same DELETE statements sent straight to MariaDB in one transaction, on identically seeded users.
 *
 *   npm run bench:admin            (MariaDB on 127.0.0.1:3306, root without password)
 */
import { performance } from 'node:perf_hooks'
import type { Pool } from 'mariadb'
import { benchDatabases, startBenchSite } from './setup.js'
import { ALARM_TABLES, ALARM_DEFAULTS, PROFILE_TABLES, insertHuman, type EngineAlarmType } from '../test/fakes/engine-db.js'

const HUMANS = 100_000
const PAGE = 50
const LIST_RUNS = Number(process.env.BENCH_LIST_RUNS ?? 200)
const ALARMS = 5_000
const PURGE_RUNS = Number(process.env.BENCH_PURGE_RUNS ?? 5)
const SEARCH = 'ash'
const SECRET = 'bench-engine-secret'
const ADMIN = '100000000000000001'
const DATABASES = benchDatabases('admin')

const WORDS = ['pika', 'ash', 'misty', 'brock', 'gary', 'oak', 'may', 'dawn', 'iris', 'cilan', 'serena', 'clemont', 'lillie', 'kiawe', 'lana', 'mallow', 'sophocles', 'goh', 'chloe', 'leon']

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number
const ms = (n: number) => `${n.toFixed(2)} ms`

async function seedHumans (pool: Pool): Promise<void> {
  const BATCH = 2_000
  for (let start = 0; start < HUMANS; start += BATCH) {
    const rows: unknown[] = []
    for (let i = start; i < Math.min(HUMANS, start + BATCH); i++) {
      // Two words per name: "ash" appears in about one name in ten, spread over the whole table.
      const name = `${WORDS[i % WORDS.length] as string}${WORDS[Math.floor(i / WORDS.length) % WORDS.length] as string} ${i}`
      rows.push(`2${String(i).padStart(17, '0')}`, i % 50 === 0 ? 'webhook' : 'discord:user', name, i % 7 === 0 ? 0 : 1)
    }
    const count = rows.length / 4
    await pool.query(
      `INSERT INTO humans (id, type, name, enabled, area, community_membership) VALUES ${Array.from({ length: count }, () => "(?, ?, ?, ?, '[]', '[]')").join(', ')}`,
      rows
    )
  }
}

/** A user with `ALARMS` alarms spread over every type and two profiles. */
async function seedAlarmOwner (pool: Pool, userId: string): Promise<void> {
  await insertHuman(pool, { id: userId, name: 'Purged' })
  await pool.query("INSERT INTO profiles (id, profile_no, name, area) VALUES (?, 2, 'Second', '[]')", [userId])
  const types = Object.keys(ALARM_TABLES) as EngineAlarmType[]
  const perType = ALARMS / types.length
  for (const type of types) {
    const row = { ping: '', template: '1', ...ALARM_DEFAULTS[type] }
    const columns = ['id', 'profile_no', ...Object.keys(row)]
    const values: unknown[] = []
    // Invasions and lures are unique per grunt/gender and lure id: those columns vary per row.
    const vary = type === 'invasion' ? 'gender' : type === 'lure' ? 'lure_id' : null
    for (let i = 0; i < perType; i++) values.push(userId, 1 + (i % 2), ...Object.entries(row).map(([column, value]) => column === vary ? i : value))
    await pool.query(
      `INSERT INTO \`${ALARM_TABLES[type]}\` (${columns.map((c) => `\`${c}\``).join(', ')}) VALUES ${Array.from({ length: perType }, () => `(${columns.map(() => '?').join(', ')})`).join(', ')}`,
      values
    )
  }
}

async function main (): Promise<void> {
  const site = await startBenchSite(DATABASES, SECRET)
  const { app, pool } = site
  try {
    const seeding = performance.now()
    await seedHumans(pool)
    await insertHuman(pool, { id: ADMIN, name: 'Admin' })
    console.log(`seeded ${HUMANS} humans in ${((performance.now() - seeding) / 1000).toFixed(1)} s`)
    const authorization = `Bearer ${app.auth.mint({ userId: ADMIN, username: 'admin', type: 'discord:user', isAdmin: true, enabled: true, profileNo: 1 }, 60).token}`

    // The list: the same statements the service sends, for the baseline and the plan.
    const where = '(`id` = ? OR `id` LIKE ? OR `name` LIKE ?)'
    const params = [SEARCH, `${SEARCH}%`, `%${SEARCH}%`]
    const columns = 'id, name, type, enabled, admin_disable, last_checked, disabled_date, current_profile_no, language, notes'
    const pageSql = `SELECT ${columns}, COUNT(*) OVER () AS total FROM humans WHERE ${where} ORDER BY name, id LIMIT ${PAGE} OFFSET ${PAGE}`
    // What a page of the whole rows plus a separate count costs: the first version of the list.
    const wideSql = `SELECT * FROM humans WHERE ${where} ORDER BY name, id LIMIT ${PAGE} OFFSET ${PAGE}`
    const countSql = `SELECT COUNT(*) AS total FROM humans WHERE ${where}`
    const url = `/api/admin/users?search=${SEARCH}&page=2&pageSize=${PAGE}`
    const check = await app.inject({ method: 'GET', url, headers: { authorization } })
    const answer = check.json() as { users: unknown[], total: number }
    const [direct] = await pool.query(countSql, params) as Array<{ total: number }>
    if (check.statusCode !== 200 || answer.users.length !== PAGE || answer.total !== Number(direct?.total)) throw new Error(`list answered ${check.statusCode}: ${check.body.slice(0, 200)}`)

    const time = async (run: () => Promise<unknown>): Promise<number[]> => {
      for (let i = 0; i < 10; i++) await run()
      const samples: number[] = []
      for (let i = 0; i < LIST_RUNS; i++) {
        const started = performance.now()
        await run()
        samples.push(performance.now() - started)
      }
      return samples.sort((a, b) => a - b)
    }
    const twoScans = await time(async () => { await pool.query(wideSql, params); await pool.query(countSql, params) })
    const sqlOnly = await time(() => pool.query(pageSql, params))
    const service = await time(() => app.inject({ method: 'GET', url, headers: { authorization } }))
    const plan = await pool.query(`EXPLAIN ${pageSql}`, params) as Array<Record<string, unknown>>

    console.log(`\nGET ${url}  (${HUMANS} humans, ${answer.total} match, ${LIST_RUNS} sequential requests)`)
    console.log('                          p50        p99')
    console.log(`whole rows + count (SQL)  ${ms(percentile(twoScans, 0.5)).padEnd(10)} ${ms(percentile(twoScans, 0.99))}`)
    console.log(`the service's SQL         ${ms(percentile(sqlOnly, 0.5)).padEnd(10)} ${ms(percentile(sqlOnly, 0.99))}`)
    console.log(`through the service       ${ms(percentile(service, 0.5)).padEnd(10)} ${ms(percentile(service, 0.99))}`)
    console.log(`ratio (service / SQL)     ${(percentile(service, 0.5) / percentile(sqlOnly, 0.5)).toFixed(2)}`)
    const show = (rows: Array<Record<string, unknown>>) => rows.map((r) => `type=${String(r.type)} key=${String(r.key)} rows=${String(r.rows)} extra=${String(r.Extra)}`).join('; ')
    console.log(`ratio (service's SQL / whole rows + count) ${(percentile(sqlOnly, 0.5) / percentile(twoScans, 0.5)).toFixed(2)}`)
    console.log(`plan                      ${show(plan)}`)

    // The purge: through the service, and the same deletes straight to MariaDB, on fresh owners each time.
    const tables = [...PROFILE_TABLES, 'summary_schedules', 'profiles', 'humans']
    const purgeTimes: number[] = []
    const rawTimes: number[] = []
    for (let run = 0; run < PURGE_RUNS; run++) {
      const viaService = `3${String(run).padStart(17, '0')}`
      const viaSql = `4${String(run).padStart(17, '0')}`
      await seedAlarmOwner(pool, viaService)
      await seedAlarmOwner(pool, viaSql)

      let started = performance.now()
      const res = await app.inject({ method: 'DELETE', url: `/api/admin/users?id=${viaService}`, headers: { authorization } })
      purgeTimes.push(performance.now() - started)
      if (res.statusCode !== 204) throw new Error(`purge answered ${res.statusCode}: ${res.body}`)

      const connection = await pool.getConnection()
      started = performance.now()
      await connection.beginTransaction()
      for (const table of tables) await connection.query(`DELETE FROM \`${table}\` WHERE id = ?`, [viaSql])
      await connection.commit()
      rawTimes.push(performance.now() - started)
      await connection.release()
    }
    const [left] = await pool.query('SELECT (SELECT COUNT(*) FROM monsters) + (SELECT COUNT(*) FROM raid) AS n') as Array<{ n: number }>
    if (Number(left?.n) !== 0) throw new Error('the purge left alarms behind')
    purgeTimes.sort((a, b) => a - b)
    rawTimes.sort((a, b) => a - b)
    console.log(`\nDELETE /api/admin/users (purge), ${ALARMS} alarms over ${Object.keys(ALARM_TABLES).length} types and 2 profiles, ${PURGE_RUNS} runs`)
    console.log(`SQL deletes in one transaction  median ${ms(percentile(rawTimes, 0.5))}  max ${ms(rawTimes.at(-1) as number)}`)
    console.log(`through the service             median ${ms(percentile(purgeTimes, 0.5))}  max ${ms(purgeTimes.at(-1) as number)}`)
    console.log(`ratio (service / SQL)           ${(percentile(purgeTimes, 0.5) / percentile(rawTimes, 0.5)).toFixed(2)}`)
  } finally {
    await site.close()
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
