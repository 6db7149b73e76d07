import type { FastifyInstance } from 'fastify'
import type { Static } from '@sinclair/typebox'
import { and, asc, eq, gt, inArray, isNotNull, sql } from 'drizzle-orm'
import { gym, pokestop, station, weather } from '../../db/schema/scanner.js'
import { GYM_SEARCH_CAP, type Gym, type QuestSchema, type RaidSchema, type WeatherSchema } from '../../schemas/scanner.js'
import { s2CellIdSigned } from '../../lib/s2.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'

/** The reference's cap on the raid and quest lists. */
const LIST_CAP = 5000
/** Quest reward type 2 is an item; every other reward is identified by its pokemon. */
const ITEM_REWARD = 2
/** The scanner keys weather by S2 level-10 cells. */
const WEATHER_LEVEL = 10

/** The game's pokemon types by id (1 Normal … 18 Fairy), as the game data numbers them. */
const TYPE_IDS: Record<string, number> = Object.fromEntries(['Normal', 'Fighting', 'Flying', 'Poison', 'Ground', 'Rock', 'Bug', 'Ghost', 'Steel', 'Fire', 'Water', 'Grass', 'Electric', 'Psychic', 'Ice', 'Dragon', 'Dark', 'Fairy'].map((name, i) => [name, i + 1]))

/** The game's weather conditions 1-7 and the pokemon types each boosts. */
const CONDITIONS: Record<number, { name: string, icon: string, boosted: string[] }> = {
  1: { name: 'Clear', icon: 'clear', boosted: ['Grass', 'Ground', 'Fire'] },
  2: { name: 'Rainy', icon: 'rainy', boosted: ['Water', 'Electric', 'Bug'] },
  3: { name: 'Partly Cloudy', icon: 'partly-cloudy', boosted: ['Normal', 'Rock'] },
  4: { name: 'Cloudy', icon: 'cloudy', boosted: ['Fairy', 'Fighting', 'Poison'] },
  5: { name: 'Windy', icon: 'windy', boosted: ['Dragon', 'Flying', 'Psychic'] },
  6: { name: 'Snow', icon: 'snow', boosted: ['Ice', 'Steel'] },
  7: { name: 'Fog', icon: 'fog', boosted: ['Dark', 'Ghost'] }
}

type Raid = Static<typeof RaidSchema>
type Quest = Static<typeof QuestSchema>
type Weather = Static<typeof WeatherSchema>

/** LIKE treats % and _ as wildcards; with `!` as the escape character they (and `!` itself) match literally. */
const likeSubstring = (input: string) => `%${input.replace(/[!%_]/g, '!$&')}%`

const reason = (err: unknown) => (err as { code?: string }).code ?? (err as Error).message

function createScanner (fastify: FastifyInstance) {
  const { scannerDb, engineFences, clock, log } = fastify

  const gymColumns = { id: gym.id, name: gym.name, url: gym.url, lat: gym.lat, lon: gym.lon, teamId: gym.teamId }
  async function withArea (rows: Array<Omit<Gym, 'area'>>): Promise<Gym[]> {
    return Promise.all(rows.map(async (row) => ({ ...row, area: await engineFences.areaAt(row.lat, row.lon) })))
  }

  /** Runs a scanner read; a failure is logged and answered with `fallback`. */
  async function read<T> (what: string, fallback: T, query: () => Promise<T>): Promise<T> {
    try {
      return await query()
    } catch (err) {
      log.warn({ what, reason: reason(err) }, 'scanner database read failed; answering the fallback')
      return fallback
    }
  }

  /** Readings by cell id (as decimal text: the ids do not fit a double); an unreadable scanner gives none. */
  async function readings (cells: bigint[]): Promise<Map<string, Weather>> {
    const out = new Map<string, Weather>()
    if (scannerDb === null || cells.length === 0) return out
    try {
      const rows = await scannerDb.db.select({
        id: sql<string>`CAST(${weather.id} AS CHAR)`,
        condition: weather.gameplayCondition,
        severity: weather.severity,
        warn: weather.warnWeather,
        updated: weather.updated
      }).from(weather).where(inArray(weather.id, cells))
      for (const row of rows) {
        const condition = Number(row.condition ?? 0)
        const known = CONDITIONS[condition]
        out.set(String(row.id), {
          condition,
          conditionName: known?.name ?? 'Unknown',
          icon: known?.icon ?? 'unknown',
          boostedTypes: known?.boosted ?? [],
          boostedTypeIds: (known?.boosted ?? []).map((name) => TYPE_IDS[name] ?? 0),
          hasWarning: Number(row.warn ?? 0) > 0,
          severity: Number(row.severity ?? 0),
          updatedAt: new Date(Number(row.updated) * 1000).toISOString()
        })
      }
    } catch (err) {
      log.warn({ reason: reason(err) }, 'scanner weather read failed; answering none')
    }
    return out
  }

  return {
    /** Whether a scanner database is configured at all (not whether it answers). */
    configured: scannerDb !== null,

    /** Gyms whose name contains `search`, by name, at most GYM_SEARCH_CAP; none without a readable scanner. */
    async searchGyms (search: string, limit: number): Promise<Gym[]> {
      if (scannerDb === null) return []
      const rows = await read('gym search', [], () => scannerDb.db.select(gymColumns).from(gym)
        .where(sql`${gym.name} LIKE ${likeSubstring(search.trim())} ESCAPE '!'`)
        .orderBy(asc(gym.name)).limit(Math.min(limit, GYM_SEARCH_CAP)))
      return withArea(rows)
    },

    /** One gym with its admin area; undefined when unknown or the scanner cannot be read. */
    async gym (id: string): Promise<Gym | undefined> {
      if (scannerDb === null) return undefined
      const rows = await read('gym lookup', [], () => scannerDb.db.select(gymColumns).from(gym).where(eq(gym.id, id)).limit(1))
      const [found] = await withArea(rows)
      return found
    },

    /** Raids not yet ended, soonest end first. */
    async activeRaids (): Promise<Raid[]> {
      if (scannerDb === null) return []
      const now = Math.floor(clock.now() / 1000)
      const rows = await read('active raids', [], () => scannerDb.db.select({
        gymId: gym.id, name: gym.name, lat: gym.lat, lon: gym.lon, level: gym.raidLevel, pokemonId: gym.raidPokemonId, form: gym.raidPokemonForm, endTime: gym.raidEndTimestamp
      }).from(gym).where(gt(gym.raidEndTimestamp, now)).orderBy(asc(gym.raidEndTimestamp)).limit(LIST_CAP))
      return rows.map((r) => ({ ...r, endTime: Number(r.endTime) }))
    },

    /** Pokestops with a quest, with the reward's item or pokemon id. */
    async quests (): Promise<Quest[]> {
      if (scannerDb === null) return []
      const rows = await read('quests', [], () => scannerDb.db.select({
        pokestopId: pokestop.id,
        name: pokestop.name,
        lat: pokestop.lat,
        lon: pokestop.lon,
        questType: pokestop.questType,
        rewardType: pokestop.questRewardType,
        itemId: pokestop.questItemId,
        pokemonId: pokestop.questPokemonId
      }).from(pokestop).where(isNotNull(pokestop.questType)).limit(LIST_CAP))
      return rows.map(({ itemId, pokemonId, ...r }) => ({ ...r, rewardId: r.rewardType === ITEM_REWARD ? itemId : pokemonId }))
    },

    /** The pokemon ids stations' max battles offer, ascending. */
    async maxBattlePokemon (): Promise<number[]> {
      if (scannerDb === null) return []
      const rows = await read('max-battle pokemon', [], () => scannerDb.db.selectDistinct({ id: station.battlePokemonId }).from(station)
        .where(and(isNotNull(station.battlePokemonId), gt(station.battlePokemonId, 0))).orderBy(asc(station.battlePokemonId)))
      return rows.map((r) => Number(r.id))
    },

    /**
     * The in-game weather at each point (its S2 level-10 cell), in the points' order; undefined where the
     * scanner has no reading, cannot be read or is not configured. Points sharing a cell are read once.
     */
    async weatherAt (points: ReadonlyArray<{ lat: number, lon: number }>): Promise<Array<Weather | undefined>> {
      const cells = points.map((p) => s2CellIdSigned(p.lat, p.lon, WEATHER_LEVEL))
      const found = await readings([...new Map(cells.map((cell) => [cell.toString(), cell])).values()])
      return cells.map((cell) => found.get(cell.toString()))
    }
  }
}

export type Scanner = ReturnType<typeof createScanner>

declare module 'fastify' {
  interface FastifyInstance {
    scanner: Scanner
  }
}

/**
 * Reads of the optional scanner database (Golbat): gyms with the admin area each lies in, active raids,
 * quests, max-battle pokemon and weather. A failing scanner database is logged and answered with the
 * spec's fallbacks (nothing found, empty lists, no weather).
 */
export default decoratorPlugin('scanner', createScanner, ['scanner-db', 'engine-fences', 'clock'])
