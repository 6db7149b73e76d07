import type { FastifyInstance } from 'fastify'
import type { Pool } from 'mariadb'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { KeptAnswer } from '../../lib/kept-answer.js'
import { TtlCache } from '../../lib/ttl-cache.js'
import { inTurn } from '../../lib/in-turn.js'
import { fromSqlTime, toSqlTime } from '../../db/client.js'
import { ALARM_TABLES } from '../data/engine-db.js'
import { ESTIMATE_TYPES } from './alarm-estimates.js'
import { ALARM_TYPES, type AlarmType } from '../../schemas/alarm-types.js'
import { BROWSER_FAMILIES, type BrowserFamily } from '../../lib/devices.js'
import type { AlarmsInsight, AreaInsight, AreasInsight, MembersInsight, NoiseInsight, SignInsInsight } from '../../schemas/insights.js'

/** How long an answer serves every admin before it is recomputed (in the background). */
const INSIGHTS_FRESH_MS = 10 * 60_000
const DAY_MS = 86_400_000
const SIGN_IN_DAYS = 90
const NEW_MEMBER_WEEKS = 12
const METHOD_DAYS = 30
const TOP_TRACKED = 25
/** The species named for one area of the map. */
const AREA_TOP_TRACKED = 3
/** Areas whose answers are kept at once: more than a site has fences, so a map's clicks all stay kept. */
const AREAS_KEPT = 2000
/** Estimates of this many members run at once: each is an engine read and a pass over the scanner's rows. */
const NOISE_PARALLEL = 2
/**
 * Alarm-table passes sent at once: two of the engine pool's five connections, so the rest of the site
 * keeps its share and no statement waits for a connection past the pool's acquire timeout.
 */
const ALARM_PARALLEL = 2
/** Members by number of alarms: the lower bound of each bucket (the last is open). */
const ALARM_BUCKETS = [0, 1, 10, 50, 100, 250, 500, 1000]

/**
 * Members are the engine's humans of a user type (`discord:user`, `telegram:user`, an SSO site's own
 * `…:user` type); channels, groups and webhooks are not. A fixed SQL condition, no input in it.
 */
const MEMBER = "type LIKE '%:user'"
/**
 * Grouping alarms by member builds a temporary table keyed by the engine's id column. These statements may
 * keep up to 256 MB of it in memory while they run (the server's default is 16 MB); they run at most once
 * per panel and instance every 10 minutes.
 */
const IN_MEMORY = 'SET STATEMENT tmp_table_size = 268435456, max_heap_table_size = 268435456 FOR'
/**
 * A member's id as a narrow, exact grouping key: its bytes, padded to `width`, the longest member id.
 * Grouping or joining by the engine's own column costs a collation weight per character and 1,020-byte
 * temporary keys; a key of about 20 bytes compares as memory and stays in memory (bench:insights). An id
 * longer than every member's cannot be a member's and gets no key. The engine writes a member's id the same
 * way in every table, so byte equality finds exactly the member's rows.
 */
const KEY = (width: number, column = 'id') => `IF(LENGTH(${column}) <= ${width}, CAST(${column} AS BINARY(${width})), NULL)`
/** The members' keys, as a derived table to join on. */
const MEMBER_KEYS = (width: number, where = '') => `(SELECT ${KEY(width)} AS k FROM humans WHERE ${MEMBER}${where})`

type Row = unknown[]
/** A panel's answer before its `computedAt` is added. */
type Figures<V> = Omit<V, 'computedAt'>
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const iso = (sqlTime: string) => new Date(fromSqlTime(sqlTime)).toISOString()
const num = (v: unknown) => Number(v ?? 0)

function createInsights (fastify: FastifyInstance) {
  const { config, clock, db, engineDb, engineFences, alarmEstimates, masterNames, log } = fastify

  /** Aggregates only: both databases are read with rows as arrays, never a member's position. */
  const rows = async (pool: Pool, sql: string, params: unknown[] = []): Promise<Row[]> =>
    await pool.query({ sql, rowsAsArray: true }, params) as Row[]
  /** Names are a nicety: without the game data an entry is named by its id. */
  const bestEffort = async (read: () => Promise<Record<string, string>>): Promise<Record<string, string>> => {
    try {
      return await read()
    } catch (err) {
      log.warn({ reason: (err as Error).message }, 'insights: game data names unavailable')
      return {}
    }
  }
  const startOfToday = () => Math.floor(clock.now() / DAY_MS) * DAY_MS

  async function members (): Promise<Figures<MembersInsight>> {
    const [[total, paused, blocked, noPin, noAreas, neither]] = await rows(engineDb.pool, `
      SELECT COUNT(*), SUM(enabled = 0 AND admin_disable = 0), SUM(admin_disable <> 0), SUM(${NO_PIN}),
        SUM(${NO_AREAS}), SUM(${NO_PIN} AND ${NO_AREAS})
      FROM humans WHERE ${MEMBER}`) as [Row]
    const now = clock.now()
    const today = startOfToday()
    const [[in7, in30]] = await rows(db.pool,
      'SELECT COUNT(DISTINCT CASE WHEN at >= ? THEN user_id END), COUNT(DISTINCT user_id) FROM sign_ins WHERE at >= ?',
      [toSqlTime(now - 7 * DAY_MS), toSqlTime(now - 30 * DAY_MS)]) as [Row]
    const firstDay = today - (SIGN_IN_DAYS - 1) * DAY_MS
    const perDay = new Map((await rows(db.pool,
      'SELECT DATE_FORMAT(at, \'%Y-%m-%d\'), COUNT(*), COUNT(DISTINCT user_id) FROM sign_ins WHERE at >= ? GROUP BY 1',
      [toSqlTime(firstDay)])).map((r) => [String(r[0]), { signIns: num(r[1]), members: num(r[2]) }]))
    const firstWeek = today - (NEW_MEMBER_WEEKS * 7 - 1) * DAY_MS
    const newPerWeek = Array.from({ length: NEW_MEMBER_WEEKS }, (_, i) => ({ weekStart: day(firstWeek + i * 7 * DAY_MS), members: 0 }))
    for (const [first, count] of await rows(db.pool,
      'SELECT DATE_FORMAT(f, \'%Y-%m-%d\'), COUNT(*) FROM (SELECT MIN(at) AS f FROM sign_ins GROUP BY user_id) firsts WHERE f >= ? GROUP BY 1',
      [toSqlTime(firstWeek)])) {
      const week = newPerWeek[Math.floor((Date.parse(`${String(first)}T00:00:00Z`) - firstWeek) / (7 * DAY_MS))]
      if (week !== undefined) week.members += num(count)
    }
    return {
      total: num(total),
      signedIn7d: num(in7),
      signedIn30d: num(in30),
      paused: num(paused),
      blocked: num(blocked),
      withoutLocation: num(noPin),
      withoutAreas: num(noAreas),
      withoutLocationOrAreas: num(neither),
      newPerWeek,
      signInsPerDay: Array.from({ length: SIGN_IN_DAYS }, (_, i) => {
        const d = day(firstDay + i * DAY_MS)
        return { day: d, ...(perDay.get(d) ?? { signIns: 0, members: 0 }) }
      })
    }
  }

  /** The longest member id in bytes: the width of the members' keys (1 when there are no members). */
  const keyWidth = async (): Promise<number> => {
    const [[width]] = await rows(engineDb.pool, `SELECT GREATEST(COALESCE(MAX(LENGTH(id)), 1), 1) FROM humans WHERE ${MEMBER}`) as [Row]
    return num(width)
  }

  /** Each member's number of alarms in one table: one pass over the table, members' keys only. */
  async function perMember (type: AlarmType, width: number): Promise<Row[]> {
    return await rows(engineDb.pool, `${IN_MEMORY}
      SELECT g.k, g.n FROM (SELECT ${KEY(width)} AS k, COUNT(*) AS n FROM \`${ALARM_TABLES[type]}\` GROUP BY 1) g
      JOIN ${MEMBER_KEYS(width)} m ON m.k = g.k`)
  }

  type NameLists = Record<'pokemon' | 'items', Record<string, string>>
  /**
   * The most tracked of one table: its rows grouped once by member and species (or reward), then the
   * members' groups counted per species. Counting distinct members per species in one grouping instead
   * sorts every row once per species and took minutes at 2,500,000 rows (bench:insights).
   */
  async function topTracked (type: 'pokemon' | 'raid' | 'quest', width: number): Promise<Row[]> {
    const [key, where] = type === 'pokemon'
      ? ['pokemon_id', 'pokemon_id > 0']
      // 9000 is "any boss" (alarm-engine.md): a level alarm, not a tracked boss.
      : type === 'raid' ? ['pokemon_id', 'pokemon_id > 0 AND pokemon_id <> 9000'] : ['reward_type, reward', 'reward > 0']
    return await rows(engineDb.pool, `${IN_MEMORY}
      SELECT ${key.split(', ').map((c) => `g.${c}`).join(', ')}, COUNT(*) AS m, SUM(g.n) AS n FROM (
        SELECT ${KEY(width)} AS k, ${key}, COUNT(*) AS n FROM \`${ALARM_TABLES[type]}\` WHERE ${where} GROUP BY 1, ${key}
      ) g JOIN ${MEMBER_KEYS(width)} m ON m.k = g.k
      GROUP BY ${key} ORDER BY m DESC, n DESC, ${key} LIMIT ${TOP_TRACKED}`)
  }
  const named = (type: 'pokemon' | 'raid' | 'quest', found: Row[], { pokemon, items }: NameLists): Figures<AlarmsInsight>['topTracked'] =>
    found.map((r) => {
      if (type !== 'quest') {
        const id = num(r[0])
        return { type, id, name: pokemon[id] ?? `#${id}`, members: num(r[1]), alarms: num(r[2]) }
      }
      const [rewardType, id] = [num(r[0]), num(r[1])]
      const name = (rewardType === 2 ? items[id] : pokemon[id]) ?? `#${id}`
      return { type, id, rewardType, name, members: num(r[2]), alarms: num(r[3]) }
    })

  /**
   * One statement per table and question, all sent at once: the pool runs them side by side, each a single
   * pass over its table, and the per-member counts are added up here (at most one row per member and table).
   */
  async function alarms (): Promise<Figures<AlarmsInsight>> {
    const width = await keyWidth()
    const tracked = ['pokemon', 'raid', 'quest'] as const
    // The largest tables first, so the two lanes end together.
    const passes = await inTurn([
      ...tracked.map((type) => async () => await topTracked(type, width)),
      ...ALARM_TYPES.map((type) => async () => await perMember(type, width)),
      async () => await rows(engineDb.pool, `${IN_MEMORY}
        SELECT n, COUNT(*) FROM (SELECT h.id, COUNT(p.uid) AS n FROM humans h LEFT JOIN profiles p ON p.id = h.id WHERE h.${MEMBER} GROUP BY h.id) c
        GROUP BY n ORDER BY n`),
      async () => await rows(engineDb.pool, `SELECT COUNT(*) FROM humans WHERE ${MEMBER}`)
    ], ALARM_PARALLEL)
    const tops = passes.slice(0, tracked.length)
    const counts = passes.slice(tracked.length, tracked.length + ALARM_TYPES.length)
    const [profiles = [], [[memberCount] = []] = []] = passes.slice(tracked.length + ALARM_TYPES.length)
    const [pokemon, items] = await Promise.all([bestEffort(async () => await masterNames.pokemon('en')), bestEffort(masterNames.items)])
    const totals = new Map<string, number>()
    const byType = Object.fromEntries(ALARM_TYPES.map((type, i) => {
      let sum = 0
      for (const [key, n] of counts[i] ?? []) {
        const id = (key as Buffer).toString('latin1')
        totals.set(id, (totals.get(id) ?? 0) + num(n))
        sum += num(n)
      }
      return [type, sum]
    }))
    const perBucket = new Map<number, number>()
    for (const total of totals.values()) {
      const from = ALARM_BUCKETS.filter((b) => total >= b).pop() ?? 0
      perBucket.set(from, (perBucket.get(from) ?? 0) + 1)
    }
    // Members without any alarm are in no table's counts: they are the rest of the members.
    perBucket.set(0, num(memberCount) - totals.size)
    return {
      byType: byType as AlarmsInsight['byType'],
      topTracked: tracked.flatMap((type, i) => named(type, tops[i] ?? [], { pokemon, items })),
      membersByAlarmCount: ALARM_BUCKETS.map((from, i) => {
        const next = ALARM_BUCKETS[i + 1]
        return { from, to: next === undefined ? null : next - 1, members: perBucket.get(from) ?? 0 }
      }),
      membersByProfileCount: profiles.map((r) => ({ profiles: num(r[0]), members: num(r[1]) }))
    }
  }

  async function areas (): Promise<Figures<AreasInsight>> {
    // JSON_VALID first: a hand-edited row with broken JSON counts for nothing instead of failing the panel.
    const selected = new Map((await rows(engineDb.pool, `${IN_MEMORY}
      SELECT LOWER(a.name), COUNT(DISTINCT h.id) FROM humans h
      JOIN JSON_TABLE(IF(JSON_VALID(h.area), h.area, '[]'), '$[*]' COLUMNS (name VARCHAR(255) PATH '$')) a
      WHERE h.${MEMBER} AND a.name IS NOT NULL AND a.name <> '' GROUP BY 1`)).map((r) => [String(r[0]), num(r[1])]))
    const fences = (await engineFences.current()).fences
    const known = new Set(fences.map((f) => f.name))
    const listed = [
      ...fences.filter((f, i) => fences.findIndex((o) => o.name === f.name) === i)
        .map((f) => ({ name: f.displayName, members: selected.get(f.name) ?? 0, known: true })),
      ...[...selected].filter(([name]) => !known.has(name)).map(([name, count]) => ({ name, members: count, known: false }))
    ].sort((a, b) => b.members - a.members || a.name.localeCompare(b.name))
    const [[pending, oldest]] = await rows(db.pool, 'SELECT COUNT(*), MIN(submitted_at) FROM user_geofences WHERE status = \'pending\'') as [Row]
    return { areas: listed, pendingFences: num(pending), oldestPendingSince: oldest === null ? null : iso(String(oldest)) }
  }

  /**
   * One area, as a click on the areas map asks for it: the members who have it selected and the species their
   * active profiles track most. Null for a name that is neither a fence of the engine nor anyone's area.
   * Read on the first click (one member-filtered pass over the pokémon alarms) and kept, like the panels,
   * 10 minutes for every admin; a name that is nobody's is kept as such too.
   */
  const keptAreas = new TtlCache<string, AreaInsight | null>(clock, AREAS_KEPT)
  async function area (name: string): Promise<AreaInsight | null> {
    const lower = name.toLowerCase()
    return keptAreas.getOrLoad(lower, async () => ({ value: await readArea(lower), ttlMs: INSIGHTS_FRESH_MS }))
  }

  async function readArea (lower: string): Promise<AreaInsight | null> {
    const fence = (await engineFences.current()).fences.find((f) => f.name === lower)
    const hasArea = `h.${MEMBER} AND JSON_VALID(h.area) AND JSON_CONTAINS(LOWER(h.area), JSON_QUOTE(?))`
    const [[members]] = await rows(engineDb.pool, `SELECT COUNT(*) FROM humans h WHERE ${hasArea}`, [lower]) as [Row]
    if (fence === undefined && num(members) === 0) return null
    const [top, pokemon] = await Promise.all([
      rows(engineDb.pool, `SELECT m.pokemon_id, COUNT(DISTINCT h.id), COUNT(*) FROM humans h
        JOIN monsters m ON m.id = h.id AND m.profile_no = h.current_profile_no
        WHERE ${hasArea} AND m.pokemon_id > 0 GROUP BY 1 ORDER BY 2 DESC, 3 DESC, 1 LIMIT ${AREA_TOP_TRACKED}`, [lower]),
      bestEffort(async () => await masterNames.pokemon('en'))
    ])
    return {
      name: fence?.displayName ?? lower,
      known: fence !== undefined,
      members: num(members),
      topTracked: top.map((r) => ({ id: num(r[0]), name: pokemon[num(r[0])] ?? `#${num(r[0])}`, members: num(r[1]), alarms: num(r[2]) }))
    }
  }

  async function noise (): Promise<Figures<NoiseInsight>> {
    const perHour = (config.INSIGHTS_ALERT_LIMIT * 3600) / config.INSIGHTS_ALERT_LIMIT_SECONDS
    const limit = { alerts: config.INSIGHTS_ALERT_LIMIT, seconds: config.INSIGHTS_ALERT_LIMIT_SECONDS, perHour }
    const windowHours = alarmEstimates.windowHours
    const unavailable = { basis: 'unavailable' as const, windowHours, limit, measured: 0, failed: 0, members: [] }
    if (fastify.scannerDb === null) return unavailable
    // The likeliest to be loud: members who receive alerts, by alarms of the estimated types in their active profile.
    const width = await keyWidth()
    const loudest = await rows(engineDb.pool, `${IN_MEMORY}
      SELECT c.k, SUM(c.n) AS n FROM (
        ${[...ESTIMATE_TYPES].map((type) => `SELECT ${KEY(width)} AS k, profile_no AS p, COUNT(*) AS n FROM \`${ALARM_TABLES[type]}\` GROUP BY 1, 2`).join(' UNION ALL ')}
      ) c WHERE (c.k, c.p) IN (SELECT ${KEY(width)}, current_profile_no FROM humans WHERE ${MEMBER} AND enabled = 1 AND admin_disable = 0)
      GROUP BY c.k ORDER BY n DESC, c.k LIMIT ?`, [config.INSIGHTS_NOISE_MEMBERS])
    const names = new Map(loudest.length === 0
      ? []
      : (await rows(engineDb.pool, `SELECT ${KEY(width)}, id, name FROM humans WHERE ${MEMBER} AND ${KEY(width)} IN (${loudest.map(() => '?').join(', ')})`,
          loudest.map((r) => r[0]))).map((r) => [String(r[0]), [String(r[1]), String(r[2])]]))
    const candidates = loudest.flatMap((r) => {
      const found = names.get(String(r[0]))
      return found === undefined ? [] : [found]
    })
    const measured: NoiseInsight['members'] = []
    let failed = 0
    await inTurn(candidates.map(([userId, name]) => async () => {
      try {
        const { recent } = await alarmEstimates.memberRecent(String(userId))
        if (recent === null) { failed++; return }
        const recentPerHour = Math.round((recent / windowHours) * 100) / 100
        measured.push({ userId: String(userId), name: String(name), recentPerHour, overLimit: recentPerHour > perHour })
      } catch (err) {
        failed++
        log.warn({ reason: (err as { code?: string }).code ?? (err as Error).message }, 'insights: a member could not be estimated')
      }
    }), NOISE_PARALLEL)
    if (measured.length === 0 && failed > 0) return { ...unavailable, failed }
    measured.sort((a, b) => b.recentPerHour - a.recentPerHour || a.userId.localeCompare(b.userId))
    return { basis: 'scanner', windowHours, limit, measured: measured.length, failed, members: measured }
  }

  async function signIns (): Promise<Figures<SignInsInsight>> {
    const [found, [[memberCount]], [[withPush]], browsers] = await Promise.all([
      rows(db.pool, 'SELECT method, COUNT(*), COUNT(DISTINCT user_id) FROM sign_ins WHERE at >= ? GROUP BY method ORDER BY 2 DESC, 1',
        [toSqlTime(clock.now() - METHOD_DAYS * DAY_MS)]),
      rows(engineDb.pool, `SELECT COUNT(*) FROM humans WHERE ${MEMBER}`) as Promise<[Row]>,
      rows(db.pool, 'SELECT COUNT(DISTINCT user_id) FROM push_subscriptions') as Promise<[Row]>,
      // The stored device label is "<browser> on <system>" (lib/devices.ts): its family is the part before " on ".
      rows(db.pool, "SELECT SUBSTRING_INDEX(device, ' on ', 1), user_id FROM push_subscriptions GROUP BY 1, 2")
    ])
    // Several unrecognised labels of one member are one member of "other".
    const families = new Map<BrowserFamily | 'other', Set<string>>()
    for (const [label, userId] of browsers) {
      const family = BROWSER_FAMILIES.find((b) => b === label) ?? 'other'
      families.set(family, (families.get(family) ?? new Set()).add(String(userId)))
    }
    const pushed = Math.min(num(withPush), num(memberCount))
    return {
      days: METHOD_DAYS,
      byMethod: found.map((r) => ({ method: String(r[0]) as SignInsInsight['byMethod'][number]['method'], signIns: num(r[1]), members: num(r[2]) })),
      devices: {
        members: num(memberCount),
        withPush: pushed,
        withoutPush: num(memberCount) - pushed,
        byBrowser: [...families].map(([browser, users]) => ({ browser, members: users.size }))
          .sort((a, b) => b.members - a.members || a.browser.localeCompare(b.browser))
      }
    }
  }

  /** Each panel kept once for the whole site; `computedAt` tells the admin how fresh it is. */
  const kept = <V>(name: string, compute: () => Promise<V>) => {
    const answer = new KeptAnswer(clock, INSIGHTS_FRESH_MS, compute, (err) => {
      log.warn({ panel: name, reason: (err as { code?: string }).code ?? (err as Error).message }, 'insights: background refresh failed; the last answer stays')
    })
    return async () => {
      const { value, computedAt } = await answer.get()
      return { computedAt: new Date(computedAt).toISOString(), ...value }
    }
  }

  return {
    members: kept('members', members),
    alarms: kept('alarms', alarms),
    areas: kept('areas', areas),
    area,
    noise: kept('noise', noise),
    signIns: kept('sign-ins', signIns)
  }
}

/** No pin: the engine stores 0, 0 for a member who never set one. */
const NO_PIN = '(latitude = 0 AND longitude = 0)'
const NO_AREAS = "COALESCE(JSON_LENGTH(IF(JSON_VALID(area), area, '[]')), 0) = 0"

export type Insights = ReturnType<typeof createInsights>

declare module 'fastify' {
  interface FastifyInstance {
    insights: Insights
  }
}

/** Community figures for admins: members, alarms, areas, noise and sign-ins, in aggregate. */
export default decoratorPlugin('insights', createInsights, ['clock', 'config', 'db', 'engine-db', 'engine-fences', 'alarm-estimates', 'master-names'])
