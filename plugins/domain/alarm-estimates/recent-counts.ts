import type { Pool } from 'mariadb'
import type { FastifyInstance } from 'fastify'
import type { TtlCache } from '../../../lib/ttl-cache.js'
import { boxContains, pointInPolygon, type BoundingBox, type LatLon } from '../../../lib/polygon.js'
import {
  distanceMetres, invasionMatches, lureMatches, pokemonFilter, questMatches,
  type FullAlarm, type Grunt, type Place, type QuestEvent, type RaidEvent, type Spawn
} from '../../../lib/alarm-match.js'

/**
 * The recent figure of the estimates: one pass over what the scanner saw in the window (the kept read of
 * the live pokemon, the gym, pokestop and incident tables), each event tested against every target of
 * the pass in its place. Only counting lives here; what to count and the answer are the estimates' own.
 */

/** Grunt names change with game updates only. */
const GRUNTS_MS = 60 * 60_000
/** Beyond this many boxes the SQL prefilter uses one box around all of them. */
const MAX_BOXES = 40

export const numberOf = (v: unknown, fallback = 0): number => (typeof v === 'number' ? v : typeof v === 'string' && v !== '' && Number.isFinite(Number(v)) ? Number(v) : fallback)
export const n = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))

/** A fence by its engine name: one polygon, or several for a multipath fence. */
export interface Fence { name: string, parts: Array<{ path: LatLon[], box: BoundingBox }> }

/** One alarm to count: where it listens (fence indexes or a radius) and, for pokemon, its core twin. */
export interface Target {
  alarm: FullAlarm
  fences: number[] | null
  radius: number
  /** Index of the target with the same species, form, IV and place but no other filters (pokemon perDay). */
  core?: number
}

export function circleBox (place: Place, radius: number): BoundingBox {
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

/** One counting pass: the targets, the fences they name (by index) and the member's pin. */
export interface Pass { targets: Target[], fences: Fence[], place: Place }

/** What a count needs of the estimates: the scanner read with its time limit, the clock, the window and the shared cache. */
export interface CountingDeps {
  query: (pool: Pool, sql: string, params: unknown[]) => Promise<unknown[][]>
  nowSeconds: () => number
  windowHours: number
  liveSpawns: FastifyInstance['liveSpawns']
  engine: FastifyInstance['engine']
  shared: TtlCache<string, unknown>
}

export function createRecentCounts ({ query, nowSeconds, windowHours, liveSpawns, engine, shared }: CountingDeps) {
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

  return { countPokemon, countRaids, countQuests, countInvasions, countLures, grunts }
}
