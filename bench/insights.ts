/**
 * The admin insights at community scale, in one process (the engine fake answers the fence list):
 *
 * - an engine database of `--members` humans (one in 50 a webhook or channel), `--alarms` alarm rows over
 *   the ten types, `--fences` fences (each member selects one to three), and `--sign-ins` sign-ins over
 *   120 days in the service's database;
 * - each panel's first (uncached) answer through the service, on a new app each run, against its plain
 *   aggregate SQL sent straight to MariaDB (the floor): p50/p95 and the ratio;
 * - the cached answer: p50/p95 of `--cached-runs` requests;
 * - the page's chunk (client/dist, `npm run build:client` first): its size gzip.
 *
 *   npm run bench:insights                                  (100,000 members, 5,000,000 alarms, 500 fences)
 *   npm run bench:insights -- --members 10000 --alarms 500000   (a smaller community)
 *
 * The noise panel needs a scanner database (none here): its answer is "unavailable" and only the
 * selection of the members to measure is timed; each measured member then costs one estimate
 * (`npm run bench:estimates`).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { gzipSync } from 'node:zlib'
import { performance } from 'node:perf_hooks'
import mariadb, { type Pool } from 'mariadb'
import { BENCH_DB, benchDatabases, benchEnv, createEngineDatabase, dropDatabases } from './setup.js'
import { ALARM_DEFAULTS, ALARM_TABLES, type EngineAlarmType } from '../test/fakes/engine-db.js'

const { values: args } = parseArgs({
  options: {
    members: { type: 'string', default: '100000' },
    alarms: { type: 'string', default: '5000000' },
    fences: { type: 'string', default: '500' },
    'sign-ins': { type: 'string', default: '200000' },
    runs: { type: 'string', default: '5' },
    'cached-runs': { type: 'string', default: '200' }
  }
})
const MEMBERS = Number(args.members)
const ALARMS = Number(args.alarms)
const FENCES = Number(args.fences)
const SIGN_INS = Number(args['sign-ins'])
const RUNS = Number(args.runs)
const CACHED_RUNS = Number(args['cached-runs'])
const SECRET = 'bench-engine-secret'
const ADMIN = '100000000000000001'
const DATABASES = benchDatabases('insights')
const NOW = Date.now()

/** How the alarm rows are spread over the types: most communities track pokemon above all. */
const SHARE: Record<EngineAlarmType, number> = { pokemon: 0.5, raid: 0.15, quest: 0.1, egg: 0.05, invasion: 0.04, lure: 0.04, nest: 0.03, gym: 0.03, fort: 0.03, maxbattle: 0.03 }

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number
const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 0)} ms`
const sqlTime = (at: number) => new Date(at).toISOString().replace('T', ' ').replace('Z', '')
const humanId = (expression: string) => `CONCAT('2', LPAD(${expression}, 17, '0'))`

/** Rows made by MariaDB itself from its sequence engine: millions of rows without a round trip each. */
async function seed (engine: Pool, service: Pool): Promise<void> {
  const step = async (what: string, work: () => Promise<unknown>) => {
    const started = performance.now()
    await work()
    console.log(`  ${what}: ${((performance.now() - started) / 1000).toFixed(1)} s`)
  }
  const fenceName = (expression: string) => `CONCAT('"fence ', ${expression}, '"')`
  await step(`${MEMBERS} humans`, () => engine.query(`
    INSERT INTO humans (id, type, name, enabled, admin_disable, area, latitude, longitude, community_membership, current_profile_no)
    SELECT ${humanId('seq')}, IF(seq % 50 = 0, 'webhook', IF(seq % 3 = 0, 'telegram:user', 'discord:user')), CONCAT('member ', seq),
      seq % 11 <> 0, seq % 97 = 0,
      IF(seq % 9 = 0, '[]', CONCAT('[', ${fenceName(`seq % ${FENCES}`)}, IF(seq % 4 = 0, CONCAT(',', ${fenceName(`(seq * 7) % ${FENCES}`)}), ''), ']')),
      IF(seq % 5 = 0, 0, 51 + (seq % 1000) / 10000), IF(seq % 5 = 0, 0, 7 + (seq % 997) / 10000), '[]', 1
    FROM seq_1_to_${MEMBERS}`))
  await step('profiles', () => engine.query(`
    INSERT INTO profiles (id, profile_no, name, area) SELECT ${humanId('seq')}, 1, 'Default', '[]' FROM seq_1_to_${MEMBERS}
    UNION ALL SELECT ${humanId('seq')}, 2, 'Second', '[]' FROM seq_1_to_${MEMBERS} WHERE seq % 3 = 0`))
  for (const type of Object.keys(ALARM_TABLES) as EngineAlarmType[]) {
    const rows = Math.round(ALARMS * SHARE[type])
    const values: Record<string, string> = Object.fromEntries(Object.entries({ ping: '', template: '1', ...ALARM_DEFAULTS[type] })
      .map(([column, value]) => [column, value === null ? 'NULL' : typeof value === 'number' ? String(value) : `'${String(value)}'`]))
    // Skewed choices, so the "most tracked" lists have a head and a tail; the unique keys of invasions
    // and lures (per member) take the row's round through the members.
    const member = `1 + seq % ${MEMBERS}`
    const round = `seq DIV ${MEMBERS}`
    if (type === 'pokemon') values.pokemon_id = 'IF(seq % 10 = 0, 0, 1 + FLOOR(POW(RAND(seq), 3) * 1000))'
    if (type === 'raid') values.pokemon_id = 'IF(seq % 4 = 0, 9000, 1 + FLOOR(POW(RAND(seq), 3) * 1000))'
    if (type === 'quest') Object.assign(values, { reward_type: 'IF(seq % 3 = 0, 2, 7)', reward: '1 + FLOOR(POW(RAND(seq), 3) * 500)' })
    if (type === 'invasion') Object.assign(values, { gender: round, grunt_type: "'mixed'" })
    if (type === 'lure') values.lure_id = round
    const columns = ['id', 'profile_no', ...Object.keys(values)]
    await step(`${rows} ${type} alarms`, () => engine.query(`
      INSERT INTO \`${ALARM_TABLES[type]}\` (${columns.map((c) => `\`${c}\``).join(', ')})
      SELECT ${humanId(member)}, IF(seq % 7 = 0, 2, 1), ${Object.values(values).join(', ')} FROM seq_0_to_${rows - 1}`))
  }
  await step(`${SIGN_INS} sign-ins`, () => service.query(`
    INSERT INTO sign_ins (user_id, method, at)
    SELECT ${humanId(`1 + FLOOR(POW(RAND(seq), 2) * ${MEMBERS})`)}, ELT(1 + seq % 3, 'discord', 'telegram', 'oidc'),
      TIMESTAMPADD(SECOND, -FLOOR(RAND(seq + 1) * 120 * 86400), ?) FROM seq_1_to_${SIGN_INS}`, [sqlTime(NOW)]))
  await step('pending fences', () => service.query(`
    INSERT INTO user_geofences (human_id, koji_name, display_name, status, submitted_at)
    SELECT ${humanId('seq')}, CONCAT('member_', seq), CONCAT('Fence ', seq), IF(seq % 4 = 0, 'pending', 'active'), ? FROM seq_1_to_400`, [sqlTime(NOW - 86_400_000)]))
}

const MEMBER = "type LIKE '%:user'"
const IN_MEMORY = 'SET STATEMENT tmp_table_size = 268435456, max_heap_table_size = 268435456 FOR'
const KEY = (width: number) => `IF(LENGTH(id) <= ${width}, CAST(id AS BINARY(${width})), NULL)`
const NO_AREAS = "COALESCE(JSON_LENGTH(IF(JSON_VALID(area), area, '[]')), 0) = 0"
const IDS = `SELECT id FROM humans WHERE ${MEMBER}`
const TYPES = Object.keys(ALARM_TABLES) as EngineAlarmType[]
const ESTIMATED: EngineAlarmType[] = ['pokemon', 'raid', 'egg', 'quest', 'invasion', 'lure']

/** Each panel's statements as the service sends them: the floor its answer is measured against. */
const FLOOR: Record<string, Array<[db: 'engine' | 'service', sql: string, params?: unknown[]]>> = {
  members: [
    ['engine', `SELECT COUNT(*), SUM(enabled = 0 AND admin_disable = 0), SUM(admin_disable <> 0), SUM(latitude = 0 AND longitude = 0),
      SUM(${NO_AREAS}), SUM(latitude = 0 AND longitude = 0 AND ${NO_AREAS}) FROM humans WHERE ${MEMBER}`],
    ['service', 'SELECT COUNT(DISTINCT CASE WHEN at >= ? THEN user_id END), COUNT(DISTINCT user_id) FROM sign_ins WHERE at >= ?', [sqlTime(NOW - 7 * 86_400_000), sqlTime(NOW - 30 * 86_400_000)]],
    ['service', 'SELECT DATE_FORMAT(at, \'%Y-%m-%d\'), COUNT(*), COUNT(DISTINCT user_id) FROM sign_ins WHERE at >= ? GROUP BY 1', [sqlTime(NOW - 90 * 86_400_000)]],
    ['service', 'SELECT DATE_FORMAT(f, \'%Y-%m-%d\'), COUNT(*) FROM (SELECT MIN(at) AS f FROM sign_ins GROUP BY user_id) firsts WHERE f >= ? GROUP BY 1', [sqlTime(NOW - 84 * 86_400_000)]]
  ],
  // The simplest correct SQL for the same figures: members by the engine's own id column, distinct members by COUNT(DISTINCT).
  alarms: [
    ['engine', TYPES.map((type) => `SELECT '${type}', COUNT(*) FROM \`${ALARM_TABLES[type]}\` WHERE id IN (${IDS})`).join(' UNION ALL ')],
    ['engine', `SELECT CASE ${[1000, 500, 250, 100, 50, 10, 1].map((from) => `WHEN total >= ${from} THEN ${from}`).join(' ')} ELSE 0 END AS bucket, COUNT(*) FROM (
      SELECT c.id, SUM(c.n) AS total FROM (${TYPES.map((type) => `SELECT id, COUNT(*) AS n FROM \`${ALARM_TABLES[type]}\` GROUP BY id`).join(' UNION ALL ')}) c
      WHERE c.id IN (${IDS}) GROUP BY c.id) t GROUP BY bucket`],
    ['engine', `SELECT COUNT(*) FROM humans WHERE ${MEMBER}`],
    ['engine', `SELECT n, COUNT(*) FROM (SELECT h.id, COUNT(p.uid) AS n FROM humans h LEFT JOIN profiles p ON p.id = h.id WHERE h.${MEMBER} GROUP BY h.id) c GROUP BY n ORDER BY n`],
    ['engine', `SELECT pokemon_id, COUNT(DISTINCT id) AS m, COUNT(*) AS n FROM monsters WHERE pokemon_id > 0 AND id IN (${IDS}) GROUP BY pokemon_id ORDER BY m DESC, n DESC, pokemon_id LIMIT 25`],
    ['engine', `SELECT pokemon_id, COUNT(DISTINCT id) AS m, COUNT(*) AS n FROM raid WHERE pokemon_id > 0 AND pokemon_id <> 9000 AND id IN (${IDS}) GROUP BY pokemon_id ORDER BY m DESC, n DESC, pokemon_id LIMIT 25`],
    ['engine', `SELECT reward_type, reward, COUNT(DISTINCT id) AS m, COUNT(*) AS n FROM quest WHERE reward > 0 AND id IN (${IDS}) GROUP BY reward_type, reward ORDER BY m DESC, n DESC, reward_type, reward LIMIT 25`]
  ],
  areas: [
    ['engine', `${IN_MEMORY} SELECT LOWER(a.name), COUNT(DISTINCT h.id) FROM humans h JOIN JSON_TABLE(IF(JSON_VALID(h.area), h.area, '[]'), '$[*]' COLUMNS (name VARCHAR(255) PATH '$')) a
      WHERE h.${MEMBER} AND a.name IS NOT NULL AND a.name <> '' GROUP BY 1`],
    ['service', 'SELECT COUNT(*), MIN(submitted_at) FROM user_geofences WHERE status = \'pending\'']
  ],
  'sign-ins': [
    ['service', 'SELECT method, COUNT(*), COUNT(DISTINCT user_id) FROM sign_ins WHERE at >= ? GROUP BY method ORDER BY 2 DESC, 1', [sqlTime(NOW - 30 * 86_400_000)]],
    ['engine', `SELECT COUNT(*) FROM humans WHERE ${MEMBER}`],
    ['service', 'SELECT COUNT(DISTINCT user_id) FROM push_subscriptions'],
    ['service', "SELECT SUBSTRING_INDEX(device, ' on ', 1), COUNT(DISTINCT user_id) FROM push_subscriptions GROUP BY 1"]
  ]
}
/** The bench's member ids are 18 characters. */
const NOISE_SELECTION = `${IN_MEMORY} SELECT c.k, SUM(c.n) AS n FROM (
  ${ESTIMATED.map((type) => `SELECT ${KEY(18)} AS k, profile_no AS p, COUNT(*) AS n FROM \`${ALARM_TABLES[type]}\` GROUP BY 1, 2`).join(' UNION ALL ')}
  ) c WHERE (c.k, c.p) IN (SELECT ${KEY(18)}, current_profile_no FROM humans WHERE ${MEMBER} AND enabled = 1 AND admin_disable = 0)
  GROUP BY c.k ORDER BY n DESC, c.k LIMIT 200`

function chunkSize (): string {
  const assets = fileURLToPath(new URL('../client/dist/assets/', import.meta.url))
  try {
    const chunk = readdirSync(assets).find((f) => /^Insights-.*\.js$/.test(f))
    if (chunk === undefined) return 'no Insights chunk in client/dist (run npm run build:client)'
    const bytes = readFileSync(`${assets}${chunk}`)
    return `${chunk}: ${(bytes.length / 1024).toFixed(1)} KB, ${(gzipSync(bytes, { level: 9 }).length / 1024).toFixed(1)} KB gzip`
  } catch {
    return 'client/dist is not built (run npm run build:client)'
  }
}

async function main (): Promise<void> {
  const { startAlarmEngineFake } = await import('../test/fakes/alarm-engine.js')
  const { buildApp } = await import('../app.js')
  const { loadConfig } = await import('../plugins/base/config.js')
  const { ManualClock } = await import('../plugins/base/clock.js')
  await createEngineDatabase(DATABASES.engine)
  const engine = mariadb.createPool({ ...BENCH_DB, database: DATABASES.engine, bigIntAsNumber: true, connectionLimit: 2 })
  let service: Pool | undefined
  const fake = await startAlarmEngineFake({ database: DATABASES.engine, secret: SECRET, mode: 'ng' })
  const side = 0.01
  fake.set({
    fences: Array.from({ length: FENCES }, (_, i) => {
      const lat = 50 + Math.floor(i / 25) * side
      const lon = 6 + (i % 25) * side
      return { name: `Fence ${i}`, path: [[lat, lon], [lat, lon + side], [lat + side, lon + side], [lat + side, lon]] as Array<[number, number]> }
    })
  })
  // No game master file to download here: names come from the engine fake, items stay unnamed.
  const config = loadConfig({ ...benchEnv(DATABASES, fake.url, SECRET), LOG_LEVEL: 'warn', MASTERFILE_URL: 'http://127.0.0.1:9/master.json' })
  const clock = new ManualClock(NOW)
  const newApp = async () => {
    const app = await buildApp({ config, clock, logger: { level: 'warn', stream: { write: () => {} } } })
    await app.ready()
    return app
  }
  try {
    // The first app creates and migrates the service database.
    const first = await newApp()
    await first.close()
    service = mariadb.createPool({ ...BENCH_DB, database: DATABASES.service, bigIntAsNumber: true, connectionLimit: 2 })
    console.log(`seeding (${MEMBERS} members, ${ALARMS} alarms, ${FENCES} fences, ${SIGN_INS} sign-ins):`)
    await seed(engine, service)
    await engine.query('ANALYZE TABLE humans, profiles, monsters, raid, quest')

    const pools = { engine, service }
    const floor = async (panel: string) => {
      const started = performance.now()
      for (const [db, sql, params] of FLOOR[panel] ?? []) await pools[db].query(sql, params ?? [])
      return performance.now() - started
    }
    const panels = ['members', 'alarms', 'areas', 'noise', 'sign-ins']
    const uncached: Record<string, number[]> = Object.fromEntries(panels.map((p) => [p, []]))
    const floors: Record<string, number[]> = Object.fromEntries(panels.map((p) => [p, []]))
    const cached: Record<string, number[]> = Object.fromEntries(panels.map((p) => [p, []]))
    const noiseSelection: number[] = []
    for (let run = 0; run < RUNS; run++) {
      // A new app per run: its copies are empty, so every panel's first answer is computed.
      const app = await newApp()
      const authorization = `Bearer ${app.auth.mint({ userId: ADMIN, username: 'admin', type: 'discord:user', isAdmin: true, enabled: true, profileNo: 1 }, 60).token}`
      try {
        for (const panel of panels) {
          const started = performance.now()
          const res = await app.inject({ url: `/api/admin/insights/${panel}`, headers: { authorization } })
          uncached[panel]?.push(performance.now() - started)
          if (res.statusCode !== 200) throw new Error(`${panel} answered ${res.statusCode}: ${res.body.slice(0, 300)}`)
          if (run === 0) console.log(`  ${panel}: ${res.body.slice(0, 160)}…`)
          if (panel !== 'noise') floors[panel]?.push(await floor(panel))
        }
        if (run === RUNS - 1) {
          for (const panel of panels) {
            for (let i = 0; i < CACHED_RUNS; i++) {
              const started = performance.now()
              await app.inject({ url: `/api/admin/insights/${panel}`, headers: { authorization } })
              cached[panel]?.push(performance.now() - started)
            }
          }
        }
      } finally {
        await app.close()
      }
      const started = performance.now()
      await engine.query(NOISE_SELECTION)
      noiseSelection.push(performance.now() - started)
    }

    console.log(`\n${MEMBERS} members, ${ALARMS} alarms, ${FENCES} fences, ${SIGN_INS} sign-ins; ${RUNS} uncached runs, ${CACHED_RUNS} cached requests per panel`)
    // The machine may be shared: the load average says how far the times are from an idle machine's.
    console.log(`load average (1, 5, 15 min): ${loadavg().map((l) => l.toFixed(2)).join(', ')}`)
    console.log('panel       uncached p50  p95        plain SQL p50  p95       ratio p50   cached p50  p95')
    for (const panel of panels) {
      const u = (uncached[panel] ?? []).sort((a, b) => a - b)
      const f = (floors[panel] ?? []).sort((a, b) => a - b)
      const c = (cached[panel] ?? []).sort((a, b) => a - b)
      const ratio = f.length === 0 ? 'n/a' : (percentile(u, 0.5) / percentile(f, 0.5)).toFixed(2)
      const floorText = f.length === 0 ? 'n/a (no scanner)'.padEnd(25) : `${ms(percentile(f, 0.5)).padEnd(14)} ${ms(percentile(f, 0.95)).padEnd(10)}`
      console.log(`${panel.padEnd(11)} ${ms(percentile(u, 0.5)).padEnd(13)} ${ms(percentile(u, 0.95)).padEnd(10)} ${floorText} ${ratio.padEnd(11)} ${ms(percentile(c, 0.5)).padEnd(11)} ${ms(percentile(c, 0.95))}`)
    }
    noiseSelection.sort((a, b) => a - b)
    console.log(`noise: choosing the 200 members to measure (SQL)  p50 ${ms(percentile(noiseSelection, 0.5))}  p95 ${ms(percentile(noiseSelection, 0.95))}`)
    console.log(`page chunk: ${chunkSize()}`)
  } finally {
    await fake.close()
    await engine.end()
    await service?.end()
    await dropDatabases(DATABASES.service, DATABASES.engine)
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
