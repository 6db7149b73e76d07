import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Pool } from 'mariadb'
import { TtlCache } from '../../lib/ttl-cache.js'
import { alarmAreas, eggMatches, fullAlarm, raidMatches, type FullAlarm, type Place } from '../../lib/alarm-match.js'
import { OVERLAP_TYPES, covers } from './alarm-estimates/overlap.js'
import { ALARM_KINDS, type AlarmType } from '../../schemas/alarm-types.js'
import { parseAreaText } from './area-selection.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { alarmCreateValidator } from '../edge/validation.js'
import { validationDetails } from '../edge/errors.js'
import { createRecentCounts, numberOf, type Fence, type Pass, type Target } from './alarm-estimates/recent-counts.js'
import { createTypicalDay, type Daily, type FenceWeek, type PerDayBasis } from './alarm-estimates/typical-day.js'

/** How long one member's figures for one alarm body (or one profile) are kept. */
const CACHE_MS = 60_000
/** Scanner-wide reads (stats fences, now lists, grunt names) are shared by everyone this long. */
const SHARED_MS = 60_000
/**
 * A distance alarm is measured with at least this radius, so moving one's pin and shrinking the radius
 * cannot locate a single spawn.
 */
export const MIN_RADIUS_M = 250

export const ESTIMATE_TYPES: ReadonlySet<AlarmType> = new Set(['pokemon', 'raid', 'egg', 'quest', 'invasion', 'lure'])

export type { PerDayBasis }

export interface Figures {
  basis: 'scanner' | 'unavailable'
  windowHours: number
  /** Alerts the alarm would have sent in the last `windowHours`; null when unavailable. */
  recent: number | null
  /** A typical day from the daily statistics; null where there are none. */
  perDay: number | null
  perDayBasis: PerDayBasis | null
  /** The areas the alarm is measured in ([] for a distance alarm). */
  areas: string[]
  /** The areas it names that the engine has no fence for: they never match. */
  unknownAreas: string[]
}

export interface Estimate extends Figures {
  /** The member's alarms (this profile, this type) that already match every event this one matches. */
  coveredBy: number[]
  /** The member's alarms this one makes redundant. */
  covers: number[]
}

export interface ProfileEstimate {
  basis: 'scanner' | 'unavailable'
  windowHours: number
  alarms: Record<string, Estimate>
  total: { recent: number | null, perDay: number | null }
}

interface Member {
  place: Place
  areas: string[]
  alarms: Record<AlarmType, Array<Record<string, unknown>>>
}

const canonical = (value: unknown): string => JSON.stringify(value, (_key, v: unknown) =>
  (v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b))) : v))

/** Fields of a pokemon alarm that the daily statistics know nothing about (their share comes from the live rows). */
const OTHER_FILTERS: Array<[string, number]> = [
  ['min_cp', 0], ['max_cp', 9000], ['min_level', 0], ['max_level', 55], ['atk', 0], ['def', 0], ['sta', 0], ['max_atk', 15], ['max_def', 15], ['max_sta', 15],
  ['gender', 0], ['min_weight', 0], ['max_weight', 9_000_000], ['size', -1], ['max_size', 5], ['min_time', 0], ['pvp_ranking_league', 0]
]

class ScannerTimeout extends Error {}

function createAlarmEstimates (fastify: FastifyInstance) {
  const { config, clock, scannerDb, liveSpawns, engineFences, engine, log } = fastify
  const windowHours = config.ESTIMATE_WINDOW_HOURS
  const figuresCache = new TtlCache<string, Figures[]>(clock, 2000)
  const shared = new TtlCache<string, unknown>(clock, 64)
  const fenceWeeks = new TtlCache<string, FenceWeek>(clock, 250)

  const nowSeconds = () => Math.floor(clock.now() / 1000)

  /** A scanner read with the estimate's time limit: the server stops the statement, the caller stops waiting. */
  async function query (pool: Pool, sql: string, params: unknown[]): Promise<unknown[][]> {
    const seconds = Math.max(0.1, config.ESTIMATE_TIMEOUT_MS / 1000)
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => reject(new ScannerTimeout('scanner read timed out')), config.ESTIMATE_TIMEOUT_MS) })
    try {
      return await Promise.race([pool.query({ sql: `SET STATEMENT max_statement_time=${seconds} FOR ${sql}`, rowsAsArray: true }, params) as Promise<unknown[][]>, timeout])
    } finally {
      clearTimeout(timer)
    }
  }

  const { countPokemon, countRaids, countQuests, countInvasions, countLures, grunts } = createRecentCounts({ query, nowSeconds, windowHours, liveSpawns, engine, shared })
  const { dailyCounts, perDayOf } = createTypicalDay({ query, clock, shared, fenceWeeks })

  async function member (userId: string): Promise<Member> {
    const { human, alarms } = await engine.tracking.all(userId)
    return {
      place: { latitude: Number(human.latitude), longitude: Number(human.longitude) },
      areas: parseAreaText(human.area).map((a) => a.toLowerCase()),
      alarms
    }
  }

  /** The polygons of the named fences, as the engine knows them (plugins/domain/engine-fences.ts). */
  async function fencesNamed (names: Set<string>): Promise<Fence[]> {
    if (names.size === 0) return []
    const known = (await engineFences.current()).byName
    return [...names].flatMap((name) => {
      const f = known.get(name)
      return f === undefined ? [] : [{ name, parts: f.parts }]
    })
  }

  /** The alarm with only species, form, IV and place: what the daily statistics can count. */
  function coreOf (a: FullAlarm): FullAlarm | null {
    if (OTHER_FILTERS.every(([field, value]) => numberOf(a[field], value) === value)) return null
    const core = { ...a }
    for (const [field, value] of OTHER_FILTERS) core[field] = value
    return core
  }

  /* Putting it together. */

  async function figuresFor (type: AlarmType, m: Member, alarms: FullAlarm[]): Promise<Figures[]> {
    const unavailable = (a: FullAlarm): Figures => ({ basis: 'unavailable', windowHours, recent: null, perDay: null, perDayBasis: null, areas: numberOf(a.distance) === 0 ? alarmAreas(a, m.areas) : [], unknownAreas: [] })
    if (scannerDb === null || !ESTIMATE_TYPES.has(type)) return alarms.map(unavailable)
    const names = new Set<string>()
    for (const a of alarms) if (numberOf(a.distance) === 0) for (const name of alarmAreas(a, m.areas)) names.add(name)
    const fences = await fencesNamed(names)
    const index = new Map(fences.map((f, i) => [f.name, i]))
    // An alarm measured from a saved place cannot be placed here (the place is the engine's): unavailable.
    const countable = alarms.map((a) => a.override_location_label === null || a.override_location_label === undefined)
    const targets: Target[] = []
    const slot: number[] = []
    alarms.forEach((a, i) => {
      if (countable[i] !== true) { slot.push(-1); return }
      const distance = numberOf(a.distance)
      slot.push(targets.length)
      targets.push(distance > 0
        ? { alarm: a, fences: null, radius: Math.max(distance, MIN_RADIUS_M) }
        : { alarm: a, fences: alarmAreas(a, m.areas).flatMap((name) => (index.has(name) ? [index.get(name) as number] : [])), radius: 0 })
    })
    if (type === 'pokemon') {
      // Alarms that differ only in filters the statistics do not know share one core (a profile's PvP alarms).
      const cores = new Map<string, number>()
      for (let i = 0, end = targets.length; i < end; i++) {
        const t = targets[i] as Target
        const core = t.fences !== null ? coreOf(t.alarm) : null
        if (core === null) continue
        // A core matches on species, form and IV alone (the other filters are reset), so those and the place decide it.
        const key = [numberOf(core.pokemon_id), numberOf(core.form), numberOf(core.min_iv, -1), numberOf(core.max_iv, 100), ...(t.fences ?? [])].join(',')
        const known = cores.get(key)
        if (known !== undefined) { t.core = known; continue }
        t.core = targets.length
        cores.set(key, t.core)
        targets.push({ ...t, alarm: core })
      }
    }
    const pass: Pass = { targets, fences, place: m.place }
    const pool = scannerDb.pool
    try {
      // The statistics are read while the live rows are counted.
      let daily: Promise<Daily> | null = null
      if (type === 'pokemon' && targets.some((t) => t.fences !== null && t.fences.length > 0)) {
        const used = new Set(targets.flatMap((t) => (t.fences ?? []).map((i) => (fences[i] as Fence).name)))
        daily = dailyCounts(pool, used)
        // Awaited below; should the live read fail first, this one's failure is not left unhandled.
        daily.catch(() => {})
      }
      const counts = type === 'pokemon'
        ? await countPokemon(pass)
        : type === 'raid'
          ? await countRaids(pool, pass, raidMatches)
          : type === 'egg'
            ? await countRaids(pool, pass, eggMatches)
            : type === 'quest'
              ? await countQuests(pool, pass)
              : type === 'invasion' ? await countInvasions(pool, pass) : await countLures(pool, pass)
      const week = daily === null ? null : await daily
      return alarms.map((a, i) => {
        const at = slot[i] as number
        if (at < 0) return unavailable(a)
        const t = targets[at] as Target
        const recent = counts[at] ?? 0
        const unknownAreas = t.fences === null ? [] : alarmAreas(a, m.areas).filter((name) => !index.has(name))
        const base: Figures = { basis: 'scanner', windowHours, recent, perDay: null, perDayBasis: null, areas: t.fences === null ? [] : t.fences.map((f) => (fences[f] as Fence).name), unknownAreas }
        if (type === 'quest') return { ...base, perDay: recent, perDayBasis: 'today' }
        if (week === null) return base
        const { perDay, basis } = perDayOf(t, fences, week)
        if (perDay === null) return base
        if (t.core === undefined) return { ...base, perDay, perDayBasis: basis }
        const coreRecent = counts[t.core] ?? 0
        return coreRecent > 0 ? { ...base, perDay: (perDay * recent) / coreRecent, perDayBasis: basis } : base
      })
    } catch (err) {
      log.warn({ type, reason: err instanceof ScannerTimeout ? 'timeout' : (err as { code?: string }).code ?? (err as Error).message }, 'alarm estimate: scanner database unavailable')
      return alarms.map(unavailable)
    }
  }

  /** Figures, kept a minute per member and exactly what decides them (alarm bodies, areas, place). */
  async function cachedFigures (userId: string, type: AlarmType, m: Member, alarms: FullAlarm[]): Promise<Figures[]> {
    const key = `${userId}\n${type}\n${canonical({ alarms, areas: m.areas, place: m.place })}`
    return await figuresCache.getOrLoad(key, async () => {
      const value = await figuresFor(type, m, alarms)
      // A scanner failure is not kept: the next keystroke may find it back.
      return { value, ttlMs: value.every((f) => f.basis === 'unavailable') && scannerDb !== null ? 0 : CACHE_MS }
    })
  }

  /**
   * The member's other alarms of the type that cover this one, and those it covers. `stored` is each stored
   * alarm read in full, in the order of `m.alarms[type]`: a profile's estimate reads them once for all its
   * alarms, not once per pair (a thousand alarms made two million reads, 48 s of blocked event loop).
   */
  function overlap (type: AlarmType, m: Member, alarm: FullAlarm, uid: number | null, stored: FullAlarm[]): { coveredBy: number[], covers: number[] } {
    if (!OVERLAP_TYPES.has(type)) return { coveredBy: [], covers: [] }
    const coveredBy: number[] = []
    const covered: number[] = []
    m.alarms[type].forEach((row, i) => {
      const other = numberOf(row.uid)
      if (other === uid) return
      const full = stored[i] as FullAlarm
      if (covers(type, full, alarm, m.areas)) coveredBy.push(other)
      if (covers(type, alarm, full, m.areas)) covered.push(other)
    })
    return { coveredBy, covers: covered }
  }

  const nowRead = async <T>(key: string, read: (pool: Pool) => Promise<T>, empty: T): Promise<{ enabled: boolean, value: T }> => {
    if (scannerDb === null) return { enabled: false, value: empty }
    try {
      return { enabled: true, value: await shared.getOrLoad(key, async () => ({ value: await read(scannerDb.pool), ttlMs: SHARED_MS })) as T }
    } catch (err) {
      log.warn({ what: key, reason: (err as { code?: string }).code ?? (err as Error).message }, 'estimates: a read of what the scanner sees now failed')
      return { enabled: true, value: empty }
    }
  }

  return {
    windowHours,

    /** The engine's grunt names by id (its master data, kept an hour). */
    grunts,

    /** Per member: `ESTIMATE_RATE_MAX` estimate requests per minute. */
    rateLimit: { max: config.ESTIMATE_RATE_MAX, timeWindow: 60_000, keyGenerator: (request: FastifyRequest) => `estimates:user:${request.user.userId}` },

    /** Why a body is not one a create of the type takes ([] when it is): checked by the create route's own validator. */
    problems (type: AlarmType, body: unknown): Array<{ field: string, message: string }> {
      const validate = alarmCreateValidator(type)
      if (validate(body)) return []
      return validationDetails((validate.errors ?? []).slice(0, 10), '/alarm')
    },

    /** One alarm body (not saved) against the member's active profile. */
    async estimate (userId: string, type: AlarmType, body: Record<string, unknown>, uid: number | null = null): Promise<Estimate> {
      const m = await member(userId)
      const alarm = fullAlarm(type, body)
      const [figures] = await cachedFigures(userId, type, m, [alarm])
      const stored = OVERLAP_TYPES.has(type) ? m.alarms[type].map((row) => fullAlarm(type, row)) : []
      return { ...(figures as Figures), ...overlap(type, m, alarm, uid, stored) }
    },

    /** Every alarm of the type in the active profile, in one pass over the scanner's rows. */
    async estimateProfile (userId: string, type: AlarmType): Promise<ProfileEstimate> {
      const m = await member(userId)
      const rows = m.alarms[type]
      const alarms = rows.map((row) => fullAlarm(type, row))
      const figures = await cachedFigures(userId, type, m, alarms)
      const out: Record<string, Estimate> = {}
      rows.forEach((row, i) => { out[String(row.uid)] = { ...(figures[i] as Figures), ...overlap(type, m, alarms[i] as FullAlarm, numberOf(row.uid), alarms) } })
      const available = figures.length === 0 ? scannerDb !== null && ESTIMATE_TYPES.has(type) : figures.some((f) => f.basis === 'scanner')
      const sum = (pick: (f: Figures) => number | null) => {
        const values = figures.map(pick).filter((v): v is number => v !== null)
        return available && (values.length > 0 || figures.length === 0) ? values.reduce((s, v) => s + v, 0) : null
      }
      return { basis: available ? 'scanner' : 'unavailable', windowHours, alarms: out, total: { recent: sum((f) => f.recent), perDay: sum((f) => f.perDay) } }
    },

    /**
     * What the member's active profile would have sent in the window, every estimated type together, from
     * one read of the member: the sum of `estimateProfile`'s totals over the types (the same kept figures).
     */
    async memberRecent (userId: string): Promise<{ basis: 'scanner' | 'unavailable', windowHours: number, recent: number | null }> {
      if (scannerDb === null) return { basis: 'unavailable', windowHours, recent: null }
      const m = await member(userId)
      let recent = 0
      for (const type of ESTIMATE_TYPES) {
        const rows = m.alarms[type] ?? []
        if (rows.length === 0) continue
        const figures = await cachedFigures(userId, type, m, rows.map((row) => fullAlarm(type, row)))
        // A type the scanner did not answer for leaves the sum unknown, not smaller.
        if (figures.some((f) => f.recent === null)) return { basis: 'unavailable', windowHours, recent: null }
        for (const f of figures) recent += f.recent as number
      }
      return { basis: 'scanner', windowHours, recent }
    },

    /** Species and forms alive now, with how many (no positions). */
    async pokemonNow () {
      return await nowRead('now:pokemon', async (pool) => (await query(pool,
        'SELECT pokemon_id, COALESCE(form, 0), COUNT(*) FROM pokemon WHERE expire_timestamp_verified IN (0, 1) AND expire_timestamp > ? GROUP BY pokemon_id, COALESCE(form, 0) ORDER BY pokemon_id',
        [nowSeconds()])).map((r) => ({ pokemonId: Number(r[0]), form: Number(r[1]), count: Number(r[2]) })), [])
    },

    /** Raid bosses of raids running now, by level. */
    async raidBossesNow () {
      return await nowRead('now:raids', async (pool) => (await query(pool,
        `SELECT raid_level, raid_pokemon_id, COALESCE(raid_pokemon_form, 0), COALESCE(raid_pokemon_evolution, 0), COUNT(*) FROM gym
         WHERE raid_end_timestamp > ? AND raid_pokemon_id > 0 AND deleted = 0 GROUP BY 1, 2, 3, 4 ORDER BY 1, 2`,
        [nowSeconds()])).map((r) => ({ level: Number(r[0]), pokemonId: Number(r[1]), form: Number(r[2]), evolution: Number(r[3]), count: Number(r[4]) })), [])
    },

    /** Rewards of today's quests (both the normal and the AR quest of a stop). */
    async questRewardsNow () {
      const slot = (p: string) => `SELECT ${p}quest_reward_type AS t, COALESCE(${p}quest_item_id, 0) AS i, COALESCE(${p}quest_pokemon_id, 0) AS p, COALESCE(${p}quest_pokemon_form_id, 0) AS f, COALESCE(${p}quest_reward_amount, 0) AS a
        FROM pokestop WHERE ${p}quest_reward_type IS NOT NULL AND deleted = 0 AND (${p}quest_expiry IS NULL OR ${p}quest_expiry > ?)`
      return await nowRead('now:quests', async (pool) => (await query(pool,
        `SELECT t, i, p, f, a, COUNT(*) FROM (${slot('')} UNION ALL ${slot('alternative_')}) q GROUP BY t, i, p, f, a ORDER BY t, i, p, f, a`,
        [nowSeconds(), nowSeconds()])).map((r) => ({ rewardType: Number(r[0]), itemId: Number(r[1]), pokemonId: Number(r[2]), form: Number(r[3]), amount: Number(r[4]), count: Number(r[5]) })), [])
    }
  }
}

export type AlarmEstimates = ReturnType<typeof createAlarmEstimates>

declare module 'fastify' {
  interface FastifyInstance {
    alarmEstimates: AlarmEstimates
  }
}

/** Alert estimates from the scanner's tables, overlap between a member's alarms, and what is spawning now. */
export default decoratorPlugin('alarm-estimates', createAlarmEstimates, ['config', 'clock', 'scanner-db', 'live-spawns', 'engine-fences', 'engine'])

/** The types an estimate is asked for, by name or by path as GET /api/alarm-types lists them. */
export const typeByNameOrPath = (value: string): AlarmType | undefined =>
  ALARM_KINDS.find((k) => k.type === value || `/api${k.path}` === value || k.path === value)?.type
