import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Pool } from 'mariadb'
import { Ajv, type ValidateFunction } from 'ajv'
import { TtlCache } from '../../lib/ttl-cache.js'
import { boxContains, pointInPolygon, type BoundingBox, type LatLon } from '../../lib/polygon.js'
import { uniformIvShare } from '../../lib/iv-share.js'
import {
  alarmAreas, distanceMetres, eggMatches, fullAlarm, invasionMatches, lureMatches, pokemonFilter,
  questMatches, raidMatches, type FullAlarm, type Grunt, type Place, type QuestEvent, type RaidEvent, type Spawn
} from '../../lib/alarm-match.js'
import { OVERLAP_TYPES, covers } from '../../lib/alarm-overlap.js'
import { ALARM_KINDS, type AlarmType } from '../../schemas/alarm-types.js'
import { alarmCreateSchema } from '../../schemas/alarms.js'
import { parseAreaText } from './area-selection.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'

/** How long one member's figures for one alarm body (or one profile) are kept. */
const CACHE_MS = 60_000
/** Scanner-wide reads (stats fences, spawning-now lists, grunt names) are shared by everyone this long. */
const SHARED_MS = 60_000
const GRUNTS_MS = 60 * 60_000
/**
 * A fence's week of daily statistics is shared by every member this long: its days are over, so only a
 * late write of yesterday's counts can change it (and a new day starts a new week at once: it is keyed by
 * its first day).
 */
const WEEK_MS = 60 * 60_000
/** Days of daily statistics a "typical day" averages (yesterday and the six before). */
const STATS_DAYS = 7
/**
 * A distance alarm is measured with at least this radius, so moving one's pin and shrinking the radius
 * cannot locate a single spawn.
 */
export const MIN_RADIUS_M = 250
/** Beyond this many boxes the SQL prefilter uses one box around all of them. */
const MAX_BOXES = 40

export const ESTIMATE_TYPES: ReadonlySet<AlarmType> = new Set(['pokemon', 'raid', 'egg', 'quest', 'invasion', 'lure'])

export type PerDayBasis = 'species-stats' | 'hundo-stats' | 'iv-stats' | 'uniform' | 'today'

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

/** A fence by its engine name: one polygon, or several for a multipath fence. */
interface Fence { name: string, parts: Array<{ path: LatLon[], box: BoundingBox }> }

/** One alarm to count: where it listens (fence indexes or a radius) and, for pokemon, its core twin. */
interface Target {
  alarm: FullAlarm
  fences: number[] | null
  radius: number
  /** Index of the target with the same species, form, IV and place but no other filters (pokemon perDay). */
  core?: number
}

interface Member {
  place: Place
  areas: string[]
  alarms: Record<AlarmType, Array<Record<string, unknown>>>
}

const canonical = (value: unknown): string => JSON.stringify(value, (_key, v: unknown) =>
  (v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b))) : v))

const numberOf = (v: unknown, fallback = 0): number => (typeof v === 'number' ? v : typeof v === 'string' && v !== '' && Number.isFinite(Number(v)) ? Number(v) : fallback)
const n = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))

/** Fields of a pokemon alarm that the daily statistics know nothing about (their share comes from the live rows). */
const OTHER_FILTERS: Array<[string, number]> = [
  ['min_cp', 0], ['max_cp', 9000], ['min_level', 0], ['max_level', 55], ['atk', 0], ['def', 0], ['sta', 0], ['max_atk', 15], ['max_def', 15], ['max_sta', 15],
  ['gender', 0], ['min_weight', 0], ['max_weight', 9_000_000], ['size', -1], ['max_size', 5], ['min_time', 0], ['pvp_ranking_league', 0]
]

function circleBox (place: Place, radius: number): BoundingBox {
  const dLat = radius / 111_320
  const dLon = radius / (111_320 * Math.max(0.01, Math.cos((place.latitude * Math.PI) / 180)))
  return { minLat: place.latitude - dLat, maxLat: place.latitude + dLat, minLon: place.longitude - dLon, maxLon: place.longitude + dLon }
}

const inBox = (outer: BoundingBox, inner: BoundingBox) =>
  outer.minLat <= inner.minLat && outer.maxLat >= inner.maxLat && outer.minLon <= inner.minLon && outer.maxLon >= inner.maxLon

/** The boxes without repeats and without those inside another (a distance alarm's circle among the fences'). */
export function distinctBoxes (boxes: BoundingBox[]): BoundingBox[] {
  return boxes.filter((b, i) => !boxes.some((o, j) => j !== i && inBox(o, b) && (j < i || !inBox(b, o))))
}

/**
 * `lat BETWEEN … AND lon BETWEEN … AND ((box) OR (box) …)` over the scanner's (lat, lon) index. The
 * envelope of all boxes comes first: when the server scans the whole table (it does when the boxes span
 * much of the city), a row outside it costs two comparisons instead of one per box, which made a
 * ten-fence read three times slower. Too many boxes become the envelope alone.
 */
function boxSql (boxes: BoundingBox[], prefix = ''): { sql: string, params: number[] } {
  const list = distinctBoxes(boxes)
  const envelope: BoundingBox = {
    minLat: Math.min(...list.map((b) => b.minLat)),
    maxLat: Math.max(...list.map((b) => b.maxLat)),
    minLon: Math.min(...list.map((b) => b.minLon)),
    maxLon: Math.max(...list.map((b) => b.maxLon))
  }
  const one = (b: BoundingBox) => [b.minLat, b.maxLat, b.minLon, b.maxLon]
  const box = `${prefix}lat BETWEEN ? AND ? AND ${prefix}lon BETWEEN ? AND ?`
  if (list.length === 1 || list.length > MAX_BOXES) return { sql: `(${box})`, params: one(envelope) }
  return {
    sql: `(${box} AND (${list.map(() => `(${box})`).join(' OR ')}))`,
    params: [...one(envelope), ...list.flatMap(one)]
  }
}

class ScannerTimeout extends Error {}

function createAlarmEstimates (fastify: FastifyInstance) {
  const { config, clock, scannerDb, liveSpawns, engineFences, engine, log } = fastify
  const windowHours = config.ESTIMATE_WINDOW_HOURS
  const figuresCache = new TtlCache<string, Figures[]>(clock, 2000)
  const shared = new TtlCache<string, unknown>(clock, 64)
  const fenceWeeks = new TtlCache<string, FenceWeek>(clock, 250)

  const nowSeconds = () => Math.floor(clock.now() / 1000)
  // The create schemas as a create checks them; strings are never stored here, so the free-text keyword is not needed.
  const ajv = new Ajv({ allErrors: true, strict: false })
  const validators = new Map<AlarmType, ValidateFunction>()

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

  /* The one pass: events from the scanner, each tested against every target. */

  interface Pass { targets: Target[], fences: Fence[], place: Place }

  function boxesOf (pass: Pass): BoundingBox[] {
    const boxes: BoundingBox[] = []
    const seen = new Set<number>()
    for (const t of pass.targets) {
      if (t.fences === null) boxes.push(circleBox(pass.place, t.radius))
      else for (const i of t.fences) if (!seen.has(i)) { seen.add(i); for (const part of (pass.fences[i] as Fence).parts) boxes.push(part.box) }
    }
    return boxes
  }

  /** For each event position, the targets whose place includes it. */
  function placeTest (pass: Pass): (lat: number, lon: number) => (t: Target) => boolean {
    const { fences, place } = pass
    return (lat, lon) => {
      let inside: Set<number> | null = null
      let distance = -1
      return (t) => {
        if (t.fences === null) {
          if (distance < 0) distance = distanceMetres(place, lat, lon)
          return distance <= t.radius
        }
        if (inside === null) {
          inside = new Set()
          for (let i = 0; i < fences.length; i++) {
            const f = fences[i] as Fence
            if (f.parts.some((p) => boxContains(p.box, lat, lon) && pointInPolygon(lat, lon, p.path))) inside.add(i)
          }
        }
        const set = inside
        return t.fences.some((i) => set.has(i))
      }
    }
  }

  /** Counts from the kept read of the live table (plugins/domain/live-spawns.ts), not a read per answer. */
  async function countPokemon (pass: Pass): Promise<number[]> {
    const counts = new Array<number>(pass.targets.length).fill(0)
    const boxes = distinctBoxes(boxesOf(pass))
    if (boxes.length === 0) return counts
    const snapshot = await liveSpawns.current()
    const pvp = pass.targets.some((t) => numberOf(t.alarm.pvp_ranking_league) !== 0)
    // Each row is tested only against the targets of its species and those of every species.
    const bySpecies = new Map<number, number[]>()
    const anySpecies: number[] = []
    pass.targets.forEach((t, i) => {
      const id = numberOf(t.alarm.pokemon_id)
      if (id === 0) anySpecies.push(i)
      else bySpecies.set(id, [...(bySpecies.get(id) ?? []), i])
    })
    const filters = pass.targets.map((t) => pokemonFilter(t.alarm))
    const at = placeTest(pass)
    snapshot.forEachIn(boxes, nowSeconds() - windowHours * 3600, (row) => {
      const candidates = bySpecies.get(snapshot.pokemonId(row))
      if (candidates === undefined && anySpecies.length === 0) return
      const spawn = snapshot.spawn(row, pvp)
      const inPlace = at(snapshot.lat(row), snapshot.lon(row))
      const test = (i: number) => {
        if ((filters[i] as (s: Spawn) => boolean)(spawn) && inPlace(pass.targets[i] as Target)) counts[i] = (counts[i] ?? 0) + 1
      }
      if (candidates !== undefined) for (const i of candidates) test(i)
      for (const i of anySpecies) test(i)
    })
    return counts
  }

  /**
   * Counts, per target, the scanner's events inside the pass's boxes that its alarm matches in its place.
   * `read` selects the rows inside the boxes, each starting with lat and lon; `eventsOf` turns a row into
   * its events (a stop can hold two quests).
   */
  async function countEvents<E> (pass: Pass, read: (boxes: BoundingBox[]) => Promise<unknown[][]>, eventsOf: (r: unknown[]) => E[], matches: (a: FullAlarm, e: E) => boolean): Promise<number[]> {
    const counts = new Array<number>(pass.targets.length).fill(0)
    const boxes = boxesOf(pass)
    if (boxes.length === 0) return counts
    const rows = await read(boxes)
    const at = placeTest(pass)
    for (const r of rows) {
      const events = eventsOf(r)
      if (events.length === 0) continue
      const inPlace = at(Number(r[0]), Number(r[1]))
      for (const e of events) pass.targets.forEach((t, i) => { if (matches(t.alarm, e) && inPlace(t)) counts[i] = (counts[i] ?? 0) + 1 })
    }
    return counts
  }

  async function countRaids (pool: Pool, pass: Pass, matches: (a: FullAlarm, e: RaidEvent) => boolean): Promise<number[]> {
    return await countEvents(pass, async (boxes) => {
      const box = boxSql(boxes)
      return await query(pool, `SELECT lat, lon, id, raid_level, raid_pokemon_id, raid_pokemon_form, team_id, raid_is_exclusive, raid_pokemon_move_1, raid_pokemon_move_2, raid_pokemon_evolution
        FROM gym WHERE raid_end_timestamp >= ? AND raid_level > 0 AND deleted = 0 AND ${box.sql}`, [nowSeconds() - windowHours * 3600, ...box.params])
    }, (r): RaidEvent[] => [{
      gymId: String(r[2]),
      level: Number(r[3]),
      pokemonId: n(r[4]) ?? 0,
      form: n(r[5]) ?? 0,
      team: n(r[6]) ?? 0,
      exclusive: n(r[7]) === 1,
      move1: n(r[8]) ?? 0,
      move2: n(r[9]) ?? 0,
      evolution: n(r[10]) ?? 0
    }], matches)
  }

  async function countQuests (pool: Pool, pass: Pass): Promise<number[]> {
    const now = nowSeconds()
    const slot = (p: string) => `${p}quest_reward_type, ${p}quest_item_id, ${p}quest_reward_amount, ${p}quest_pokemon_id, ${p}quest_pokemon_form_id, ${p}quest_expiry`
    return await countEvents(pass, async (boxes) => {
      const box = boxSql(boxes)
      return await query(pool, `SELECT lat, lon, ${slot('')}, ${slot('alternative_')} FROM pokestop
        WHERE deleted = 0 AND (quest_reward_type IS NOT NULL OR alternative_quest_reward_type IS NOT NULL) AND ${box.sql}`, box.params)
    }, (r) => {
      const quests: QuestEvent[] = []
      for (const offset of [2, 8]) {
        const type = n(r[offset])
        const expiry = n(r[offset + 5])
        if (type === null || (expiry !== null && expiry <= now)) continue
        quests.push({ rewardType: type, itemId: n(r[offset + 1]) ?? 0, amount: n(r[offset + 2]) ?? 0, pokemonId: n(r[offset + 3]) ?? 0, form: n(r[offset + 4]) ?? 0 })
      }
      return quests
    }, questMatches)
  }

  async function grunts (): Promise<Map<number, Grunt>> {
    return await shared.getOrLoad('grunts', async () => {
      const raw = await engine.masterdata.grunts()
      const map = new Map<number, Grunt>()
      for (const [id, g] of Object.entries(raw as Record<string, Partial<Grunt>>)) {
        if (typeof g?.type === 'string') map.set(Number(id), { type: g.type, gender: numberOf(g.gender), grunt: typeof g.grunt === 'string' ? g.grunt : 'Grunt' })
      }
      return { value: map, ttlMs: GRUNTS_MS }
    }) as Map<number, Grunt>
  }

  async function countInvasions (pool: Pool, pass: Pass): Promise<number[]> {
    const names = await grunts()
    return await countEvents(pass, async (boxes) => {
      const box = boxSql(boxes, 'p.')
      return await query(pool, `SELECT p.lat, p.lon, i.\`character\` FROM incident i JOIN pokestop p ON p.id = i.pokestop_id
        WHERE i.expiration > ? AND ${box.sql}`, [nowSeconds(), ...box.params])
    }, (r) => [names.get(Number(r[2]))], invasionMatches)
  }

  async function countLures (pool: Pool, pass: Pass): Promise<number[]> {
    return await countEvents(pass, async (boxes) => {
      const box = boxSql(boxes)
      return await query(pool, `SELECT lat, lon, lure_id FROM pokestop WHERE lure_expire_timestamp > ? AND lure_id > 0 AND deleted = 0 AND ${box.sql}`, [nowSeconds(), ...box.params])
    }, (r) => [Number(r[2])], lureMatches)
  }

  /* A typical day of a pokemon alarm from Golbat's daily counts per fence. */

  const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

  /** The first and last day a typical day averages: yesterday and the six days before. */
  function statsDays (): { from: string, to: string } {
    const today = Date.parse(isoDay(clock.now()))
    return { from: isoDay(today - STATS_DAYS * 86_400_000), to: isoDay(today - 86_400_000) }
  }

  /**
   * The (date, area, fence) keys of the last seven days, read when a fence's week is not kept, at most
   * once in `WEEK_MS`. The hint asks for a loose scan of the primary key (one step per key); where the
   * server still reads the index range, that is one read of the week's keys (0.45 s on the bench), shared
   * by every member.
   */
  async function statsKeys (pool: Pool): Promise<Array<[string, string, string]>> {
    const { from, to } = statsDays()
    return await shared.getOrLoad(`stats-keys:${from}`, async () => {
      const rows = await query(pool, 'SELECT date, area, fence FROM pokemon_stats FORCE INDEX FOR GROUP BY (PRIMARY) WHERE date BETWEEN ? AND ? GROUP BY date, area, fence', [from, to])
      return { value: rows.map((r) => [String(r[0]).slice(0, 10), String(r[1]), String(r[2]).toLowerCase()] as [string, string, string]), ttlMs: WEEK_MS }
    }) as Array<[string, string, string]>
  }

  /** Summed daily counts of a group of spawns: all of them, those with IV statistics, the hundos. */
  type Sums = [all: number, iv: number, hundo: number]
  const add = (into: Sums, from: Sums) => { into[0] += from[0]; into[1] += from[1]; into[2] += from[2] }

  /**
   * One fence's week: its days with statistics, the sums per fence, per species and per species and form,
   * and whether the scanner keeps IV counts there.
   */
  interface FenceWeek { days: number, total: Sums, species: Map<number, { total: Sums, forms: Map<number, Sums> }>, ivRows: boolean }

  interface Daily { fences: Map<string, FenceWeek>, ivKnown: boolean }

  /**
   * The week's counts of the named fences, every species, summed per fence and species so that each
   * alarm's figure is a few look-ups (not a walk over every species of every fence per alarm). A fence's
   * week is shared by every member for `WEEK_MS` (the days it sums are over); the fences not kept yet
   * are read together, with one grouped query per statistics table.
   */
  async function dailyCounts (pool: Pool, fenceNames: Set<string>): Promise<Daily> {
    const { from } = statsDays()
    const daily: Daily = { fences: new Map(), ivKnown: false }
    const missing = new Set<string>()
    for (const name of fenceNames) {
      const kept = fenceWeeks.get(`${from}\n${name}`)
      if (kept === undefined) missing.add(name)
      else daily.fences.set(name, kept)
    }
    if (missing.size > 0) {
      const keys = (await statsKeys(pool)).filter(([, , fence]) => missing.has(fence))
      for (const [name, week] of await readWeeks(pool, keys, missing)) {
        fenceWeeks.set(`${from}\n${name}`, week, WEEK_MS)
        daily.fences.set(name, week)
      }
    }
    daily.ivKnown = [...daily.fences.values()].some((week) => week.ivRows)
    return daily
  }

  async function readWeeks (pool: Pool, keys: Array<[string, string, string]>, fenceNames: Set<string>): Promise<Map<string, FenceWeek>> {
    const weeks = new Map<string, FenceWeek>()
    const daysOf = new Map<string, Set<string>>()
    for (const [date, , fence] of keys) daysOf.set(fence, (daysOf.get(fence) ?? new Set()).add(date))
    for (const name of fenceNames) weeks.set(name, { days: daysOf.get(name)?.size ?? 0, total: [0, 0, 0], species: new Map(), ivRows: false })
    if (keys.length === 0) return weeks
    const dates = [...new Set(keys.map(([d]) => d))]
    const areas = [...new Set(keys.map(([, a]) => a))]
    const fences = [...new Set(keys.map(([, , f]) => f))]
    const list = (values: unknown[]) => values.map(() => '?').join(',')
    const sql = `date IN (${list(dates)}) AND area IN (${list(areas)}) AND fence IN (${list(fences)})`
    const params: unknown[] = [...dates, ...areas, ...fences]
    const read = async (table: string) => await query(pool, `SELECT fence, pokemon_id, form_id, SUM(count) FROM ${table} WHERE ${sql} GROUP BY fence, pokemon_id, form_id`, params)
    const [all, iv, hundo] = await Promise.all([read('pokemon_stats'), read('pokemon_iv_stats'), read('pokemon_hundo_stats')])
    const keyOf = (r: unknown[]) => `${String(r[0]).toLowerCase()}:${Number(r[1])}:${Number(r[2])}`
    const ivCounts = new Map(iv.map((r) => [keyOf(r), Number(r[3])]))
    const hundoCounts = new Map(hundo.map((r) => [keyOf(r), Number(r[3])]))
    for (const r of iv) { const week = weeks.get(String(r[0]).toLowerCase()); if (week !== undefined) week.ivRows = true }
    // Only the species and forms the species table counts: an IV or hundo row without one is left out.
    for (const r of all) {
      const week = weeks.get(String(r[0]).toLowerCase())
      if (week === undefined) continue
      const key = keyOf(r)
      const sums: Sums = [Number(r[3]), ivCounts.get(key) ?? 0, hundoCounts.get(key) ?? 0]
      const pokemonId = Number(r[1])
      let one = week.species.get(pokemonId)
      if (one === undefined) { one = { total: [0, 0, 0], forms: new Map() }; week.species.set(pokemonId, one) }
      const form = Number(r[2])
      const before = one.forms.get(form)
      if (before === undefined) one.forms.set(form, [...sums])
      else add(before, sums)
      add(one.total, sums)
      add(week.total, sums)
    }
    return weeks
  }

  function perDayOf (t: Target, fences: Fence[], daily: Daily): { perDay: number | null, basis: PerDayBasis | null } {
    if (t.fences === null || t.fences.length === 0) return { perDay: null, basis: null }
    const a = t.alarm
    const id = numberOf(a.pokemon_id)
    const form = numberOf(a.form)
    const minIv = numberOf(a.min_iv, -1)
    const maxIv = numberOf(a.max_iv, 100)
    const noIvFilter = minIv <= -1 && maxIv >= 100
    const hundo = minIv > 97.8 && maxIv >= 100
    const { ivKnown } = daily
    const basis: PerDayBasis = noIvFilter ? 'species-stats' : !ivKnown ? 'uniform' : hundo ? 'hundo-stats' : 'iv-stats'
    // Every figure below is linear in the counts, so it is taken of the sums rather than summed per species.
    const share = uniformIvShare(Math.max(0, minIv), maxIv)
    const figure = ([all, iv, hundos]: Sums): number => noIvFilter
      ? all
      : !ivKnown
          ? all * (minIv <= -1 ? 1 : uniformIvShare(minIv, maxIv))
          : hundo ? hundos : (minIv <= -1 ? all - iv : 0) + iv * share
    const matching = (week: FenceWeek): Sums => {
      const sums: Sums = [0, 0, 0]
      if (id !== 0) {
        const one = week.species.get(id)
        if (one !== undefined) add(sums, form === 0 ? one.total : one.forms.get(form) ?? [0, 0, 0])
      } else if (form === 0) {
        add(sums, week.total)
      } else {
        for (const one of week.species.values()) { const f = one.forms.get(form); if (f !== undefined) add(sums, f) }
      }
      return sums
    }
    let total = 0
    let anyDays = false
    for (const i of t.fences) {
      const week = daily.fences.get((fences[i] as Fence).name)
      if (week === undefined || week.days === 0) continue
      anyDays = true
      total += figure(matching(week)) / week.days
    }
    return anyDays ? { perDay: total, basis } : { perDay: null, basis: null }
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

  const spawningNowRead = async <T>(key: string, read: (pool: Pool) => Promise<T>, empty: T): Promise<{ enabled: boolean, value: T }> => {
    if (scannerDb === null) return { enabled: false, value: empty }
    try {
      return { enabled: true, value: await shared.getOrLoad(key, async () => ({ value: await read(scannerDb.pool), ttlMs: SHARED_MS })) as T }
    } catch (err) {
      log.warn({ what: key, reason: (err as { code?: string }).code ?? (err as Error).message }, 'spawning-now read failed')
      return { enabled: true, value: empty }
    }
  }

  return {
    windowHours,

    /** The engine's grunt names by id (its master data, kept an hour). */
    grunts,

    /** Per member: `ESTIMATE_RATE_MAX` estimate requests per minute. */
    rateLimit: { max: config.ESTIMATE_RATE_MAX, timeWindow: 60_000, keyGenerator: (request: FastifyRequest) => `estimates:user:${request.user.userId}` },

    /** Why a body is not one a create of the type takes ([] when it is). */
    problems (type: AlarmType, body: unknown): Array<{ field: string, message: string }> {
      let validate = validators.get(type)
      if (validate === undefined) {
        validate = ajv.compile(alarmCreateSchema(type))
        validators.set(type, validate)
      }
      if (validate(body)) return []
      return (validate.errors ?? []).slice(0, 10).map((e) => ({
        field: `alarm${e.instancePath.replace(/\//g, '.')}`,
        message: `${e.message ?? 'is invalid'}${'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`
      }))
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
      return await spawningNowRead('now:pokemon', async (pool) => (await query(pool,
        'SELECT pokemon_id, COALESCE(form, 0), COUNT(*) FROM pokemon WHERE expire_timestamp_verified IN (0, 1) AND expire_timestamp > ? GROUP BY pokemon_id, COALESCE(form, 0) ORDER BY pokemon_id',
        [nowSeconds()])).map((r) => ({ pokemonId: Number(r[0]), form: Number(r[1]), count: Number(r[2]) })), [])
    },

    /** Raid bosses of raids running now, by level. */
    async raidBossesNow () {
      return await spawningNowRead('now:raids', async (pool) => (await query(pool,
        `SELECT raid_level, raid_pokemon_id, COALESCE(raid_pokemon_form, 0), COALESCE(raid_pokemon_evolution, 0), COUNT(*) FROM gym
         WHERE raid_end_timestamp > ? AND raid_pokemon_id > 0 AND deleted = 0 GROUP BY 1, 2, 3, 4 ORDER BY 1, 2`,
        [nowSeconds()])).map((r) => ({ level: Number(r[0]), pokemonId: Number(r[1]), form: Number(r[2]), evolution: Number(r[3]), count: Number(r[4]) })), [])
    },

    /** Rewards of today's quests (both the normal and the AR quest of a stop). */
    async questRewardsNow () {
      const slot = (p: string) => `SELECT ${p}quest_reward_type AS t, COALESCE(${p}quest_item_id, 0) AS i, COALESCE(${p}quest_pokemon_id, 0) AS p, COALESCE(${p}quest_pokemon_form_id, 0) AS f, COALESCE(${p}quest_reward_amount, 0) AS a
        FROM pokestop WHERE ${p}quest_reward_type IS NOT NULL AND deleted = 0 AND (${p}quest_expiry IS NULL OR ${p}quest_expiry > ?)`
      return await spawningNowRead('now:quests', async (pool) => (await query(pool,
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
