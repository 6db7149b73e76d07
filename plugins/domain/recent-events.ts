import type { FastifyInstance } from 'fastify'
import { ivOf } from '../../lib/alarm-match.js'
import type { BoundingBox } from '../../lib/polygon.js'
import type { PlaceTest, SeenList } from '../../lib/recent-list.js'
import type { SpawnSnapshot } from '../../lib/spawn-snapshot.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { unavailable } from '../edge/errors.js'
import type { RecentEventType } from '../../schemas/alarm-explanations.js'

/**
 * What the scanner (Golbat) saw lately, as the webhook events the engine received for it: the pokemon
 * of the kept read of its live table (plugins/domain/live-spawns.ts, the estimates' own copy), and the
 * raids, quests, invasions and lures of its fort tables. Each event comes with the message as PoracleJS
 * and PoracleNG read it, so the explanation of a listed event is the explanation of that message.
 *
 * "Lately": pokemon first seen in the window; raids, invasions and lures still up at some moment of it;
 * quests still up (they are scanned once a day).
 */

/** Walks of one kept read remembered (by places and species): the pages after the first cost no walk. */
const WALKS_KEPT = 200

/** The most fort rows one list reads: a member's areas hold far fewer raids, stops or invasions. */
const FORT_ROWS = 20_000
/** The scanner keeps a lure's end only; a lure lasts 30 minutes. */
const LURE_SECONDS = 1800

/** A fort's event: where and when, and how to describe it (built only for the events of a page). */
interface FortEvent { at: number, latitude: number, longitude: number, rank: number, describe: () => Described }

/** The events in the member's places, by index, and each one's description (asked only for a page). */
export interface Seen extends SeenList { describe: (i: number) => Described }

export interface Described {
  until: number | null
  place: string | null
  message: Record<string, unknown>
  summary: {
    pokemonId: number
    form: number
    iv?: number | null
    cp?: number | null
    level?: number | null
    raidLevel?: number
    rewards?: Array<{ type: number, itemId: number, pokemonId: number, form: number, amount: number }>
    gruntType?: number
    lureId?: number
  }
}

const n = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))
const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null)

class ScannerTimeout extends Error {}

function createRecentEvents (fastify: FastifyInstance) {
  const { config, clock, scannerDb, liveSpawns, log } = fastify

  const scannerDown = () => unavailable('The scanner\'s database cannot be read right now, so recent events cannot be listed. Please try again in a moment.', 30)

  /** One read of a fort table within the estimates' time limit; any failure is the scanner being down. */
  async function query (sql: string, params: unknown[]): Promise<unknown[][]> {
    if (scannerDb === null) return []
    const seconds = Math.max(0.1, config.ESTIMATE_TIMEOUT_MS / 1000)
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => { reject(new ScannerTimeout('timeout')) }, config.ESTIMATE_TIMEOUT_MS) })
    try {
      return await Promise.race([scannerDb.pool.query({ sql: `SET STATEMENT max_statement_time=${seconds} FOR ${sql} LIMIT ${FORT_ROWS}`, rowsAsArray: true }, params) as Promise<unknown[][]>, timeout])
    } catch (err) {
      log.warn({ reason: err instanceof ScannerTimeout ? 'timeout' : (err as { code?: string }).code ?? (err as Error).message }, 'recent events: scanner database unavailable')
      throw scannerDown()
    } finally {
      clearTimeout(timer)
    }
  }

  const envelopeSql = (prefix = '') => `${prefix}lat BETWEEN ? AND ? AND ${prefix}lon BETWEEN ? AND ?`
  const envelopeOf = (boxes: readonly BoundingBox[]) => [
    Math.min(...boxes.map((b) => b.minLat)), Math.max(...boxes.map((b) => b.maxLat)),
    Math.min(...boxes.map((b) => b.minLon)), Math.max(...boxes.map((b) => b.maxLon))
  ]

  const walks = new WeakMap<SpawnSnapshot, Map<string, number[]>>()

  /**
   * The kept read's rows in the places: indices into it, no object per row until a page describes one.
   * "The last hour" is the hour before the read was taken, so one walk of a read serves every page of
   * it (the next pages, the same list again) until the next read, at most a few minutes on.
   */
  async function pokemon (boxes: readonly BoundingBox[], where: PlaceTest, pokemonId: number | undefined): Promise<Seen> {
    let snapshot: SpawnSnapshot
    try {
      snapshot = await liveSpawns.current()
    } catch {
      throw scannerDown()
    }
    let kept = walks.get(snapshot)
    if (kept === undefined) { kept = new Map(); walks.set(snapshot, kept) }
    const key = `${pokemonId ?? 0}\n${where.key}`
    let rows = kept.get(key)
    if (rows === undefined) {
      const found: number[] = []
      snapshot.forEachIn(boxes, Math.floor(snapshot.takenAt / 1000) - 3600, (i) => {
        if ((pokemonId === undefined || snapshot.pokemonId(i) === pokemonId) && where.test(snapshot.lat(i), snapshot.lon(i))) found.push(i)
      })
      if (kept.size >= WALKS_KEPT) kept.clear()
      kept.set(key, found)
      rows = found
    }
    const list = rows
    const row = (i: number) => list[i] as number
    return {
      size: list.length,
      at: (i) => snapshot.firstSeen(row(i)),
      latitude: (i) => snapshot.lat(row(i)),
      longitude: (i) => snapshot.lon(row(i)),
      rank: () => 0,
      describe: (i) => {
        const r = row(i)
        const s = snapshot.spawn(r, true)
        const until = snapshot.expire(r)
        const encountered = s.atk !== null && s.def !== null && s.sta !== null
        const iv = ivOf(s)
        return {
          until,
          place: null,
          message: {
            pokemon_id: s.pokemonId,
            form: s.form,
            latitude: snapshot.lat(r),
            longitude: snapshot.lon(r),
            disappear_time: until ?? snapshot.firstSeen(r),
            gender: s.gender,
            ...(encountered ? { individual_attack: s.atk, individual_defense: s.def, individual_stamina: s.sta, cp: s.cp, pokemon_level: s.level, size: s.size, weight: s.weight, pvp: s.pvp } : {})
          },
          summary: { pokemonId: s.pokemonId, form: s.form, iv: iv < 0 ? null : Math.round(iv * 100) / 100, cp: encountered ? s.cp : null, level: encountered ? s.level : null }
        }
      }
    }
  }

  /** Fort events in the places, as a list by index. */
  const listOf = (events: FortEvent[], where: PlaceTest): Seen => {
    const inside = events.filter((e) => where.test(e.latitude, e.longitude))
    const one = (i: number) => inside[i] as FortEvent
    return { size: inside.length, at: (i) => one(i).at, latitude: (i) => one(i).latitude, longitude: (i) => one(i).longitude, rank: (i) => one(i).rank, describe: (i) => one(i).describe() }
  }

  async function raids (boxes: readonly BoundingBox[], since: number, pokemonId: number | undefined): Promise<FortEvent[]> {
    const rows = await query(`SELECT lat, lon, id, name, raid_level, raid_pokemon_id, raid_pokemon_form, team_id, raid_is_exclusive, raid_pokemon_move_1, raid_pokemon_move_2,
        raid_pokemon_evolution, raid_spawn_timestamp, raid_battle_timestamp, raid_end_timestamp
      FROM gym WHERE raid_end_timestamp >= ? AND raid_level > 0 AND deleted = 0 AND ${envelopeSql()}${pokemonId !== undefined ? ' AND raid_pokemon_id = ?' : ''}`,
    [since, ...envelopeOf(boxes), ...(pokemonId !== undefined ? [pokemonId] : [])])
    return rows.map((r) => {
      const boss = n(r[5]) ?? 0
      // The egg's message when it appeared, the raid's when it hatched: the last one the engine received.
      const at = (boss > 0 ? n(r[13]) : null) ?? n(r[12]) ?? (n(r[14]) ?? 0) - 2700
      return {
        at,
        latitude: Number(r[0]),
        longitude: Number(r[1]),
        rank: 0,
        describe: () => ({
          until: n(r[14]),
          place: text(r[3]),
          message: {
            gym_id: String(r[2]),
            gym_name: text(r[3]),
            latitude: Number(r[0]),
            longitude: Number(r[1]),
            level: n(r[4]) ?? 0,
            end: n(r[14]) ?? 0,
            pokemon_id: boss,
            form: n(r[6]) ?? 0,
            team_id: n(r[7]) ?? 0,
            ex_raid_eligible: n(r[8]) ?? 0,
            move_1: n(r[9]) ?? 0,
            move_2: n(r[10]) ?? 0,
            evolution: n(r[11]) ?? 0
          },
          summary: { pokemonId: boss, form: n(r[6]) ?? 0, raidLevel: n(r[4]) ?? 0 }
        })
      }
    })
  }

  async function quests (boxes: readonly BoundingBox[], now: number, pokemonId: number | undefined): Promise<FortEvent[]> {
    const slot = (p: string) => `${p}quest_reward_type, ${p}quest_item_id, ${p}quest_reward_amount, ${p}quest_pokemon_id, ${p}quest_pokemon_form_id, ${p}quest_expiry, ${p}quest_timestamp`
    const rows = await query(`SELECT lat, lon, id, name, ${slot('')}, ${slot('alternative_')} FROM pokestop
      WHERE deleted = 0 AND (quest_reward_type IS NOT NULL OR alternative_quest_reward_type IS NOT NULL) AND ${envelopeSql()}`, envelopeOf(boxes))
    const out: FortEvent[] = []
    for (const r of rows) {
      for (const [rank, offset] of [4, 11].entries()) {
        const type = n(r[offset])
        const expiry = n(r[offset + 5])
        if (type === null || (expiry !== null && expiry <= now)) continue
        const reward = { type, itemId: n(r[offset + 1]) ?? 0, amount: n(r[offset + 2]) ?? 0, pokemonId: n(r[offset + 3]) ?? 0, form: n(r[offset + 4]) ?? 0 }
        if (pokemonId !== undefined && reward.pokemonId !== pokemonId) continue
        out.push({
          at: n(r[offset + 6]) ?? 0,
          latitude: Number(r[0]),
          longitude: Number(r[1]),
          rank,
          describe: () => ({
            until: expiry,
            place: text(r[3]),
            message: {
              pokestop_id: String(r[2]),
              pokestop_name: text(r[3]),
              latitude: Number(r[0]),
              longitude: Number(r[1]),
              rewards: [{ type: reward.type, info: { item_id: reward.itemId, amount: reward.amount, pokemon_id: reward.pokemonId, form_id: reward.form } }]
            },
            summary: { pokemonId: reward.pokemonId, form: reward.form, rewards: [reward] }
          })
        })
      }
    }
    return out
  }

  async function invasions (boxes: readonly BoundingBox[], since: number): Promise<FortEvent[]> {
    const rows = await query(`SELECT p.lat, p.lon, p.id, p.name, i.\`character\`, i.display_type, i.start, i.expiration
      FROM incident i JOIN pokestop p ON p.id = i.pokestop_id WHERE i.expiration >= ? AND ${envelopeSql('p.')}`, [since, ...envelopeOf(boxes)])
    return rows.map((r) => ({
      at: n(r[6]) ?? 0,
      latitude: Number(r[0]),
      longitude: Number(r[1]),
      rank: 0,
      describe: () => ({
        until: n(r[7]),
        place: text(r[3]),
        message: { pokestop_id: String(r[2]), pokestop_name: text(r[3]), latitude: Number(r[0]), longitude: Number(r[1]), incident_grunt_type: n(r[4]) ?? 0, display_type: n(r[5]) ?? 0, incident_expire_timestamp: n(r[7]) ?? 0 },
        summary: { pokemonId: 0, form: 0, gruntType: n(r[4]) ?? 0 }
      })
    }))
  }

  async function lures (boxes: readonly BoundingBox[], since: number): Promise<FortEvent[]> {
    const rows = await query(`SELECT lat, lon, id, name, lure_id, lure_expire_timestamp FROM pokestop
      WHERE lure_expire_timestamp >= ? AND lure_id > 0 AND deleted = 0 AND ${envelopeSql()}`, [since, ...envelopeOf(boxes)])
    return rows.map((r) => ({
      at: (n(r[5]) ?? 0) - LURE_SECONDS,
      latitude: Number(r[0]),
      longitude: Number(r[1]),
      rank: 0,
      describe: () => ({
        until: n(r[5]),
        place: text(r[3]),
        message: { pokestop_id: String(r[2]), pokestop_name: text(r[3]), latitude: Number(r[0]), longitude: Number(r[1]), lure_id: n(r[4]) ?? 0, lure_expiration: n(r[5]) ?? 0 },
        summary: { pokemonId: 0, form: 0, lureId: n(r[4]) ?? 0 }
      })
    }))
  }

  return {
    /** Whether a scanner database is configured at all. */
    configured: scannerDb !== null,

    /** The hour the list covers. */
    windowSeconds: 3600,

    /**
     * The events of a type seen in the last hour in the member's places (`boxes` around them, `where`
     * the exact test and the places' key), optionally of one species (the pokemon, the raid boss, the quest's reward
     * pokemon). A scanner that cannot be read is a 503 saying so.
     */
    async seen (type: RecentEventType, boxes: readonly BoundingBox[], where: PlaceTest, pokemonId?: number): Promise<Seen> {
      if (scannerDb === null || boxes.length === 0) return listOf([], where)
      const now = Math.floor(clock.now() / 1000)
      const since = now - 3600
      switch (type) {
        case 'pokemon': return await pokemon(boxes, where, pokemonId)
        case 'raid': return listOf(await raids(boxes, since, pokemonId), where)
        case 'quest': return listOf(await quests(boxes, now, pokemonId), where)
        case 'invasion': return listOf(pokemonId !== undefined ? [] : await invasions(boxes, since), where)
        case 'lure': return listOf(pokemonId !== undefined ? [] : await lures(boxes, since), where)
      }
    }
  }
}

export type RecentEvents = ReturnType<typeof createRecentEvents>

declare module 'fastify' {
  interface FastifyInstance {
    recentEvents: RecentEvents
  }
}

export default decoratorPlugin('recent-events', createRecentEvents, ['config', 'clock', 'scanner-db', 'live-spawns'])
