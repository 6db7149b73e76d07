import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { and, asc, eq, gt, isNotNull, sql } from 'drizzle-orm'
import { gym, pokestop, station } from '../../db/schema/scanner.js'
import { notFound } from '../../plugins/errors.js'
import { errors } from '../../schemas/common.js'
import { GYM_SEARCH_CAP, GymIdParamsSchema, GymSchema, GymSearchQuerySchema, QuestSchema, RaidSchema, type Gym } from '../../schemas/scanner.js'

/** The reference's cap on the raid and quest lists. */
const LIST_CAP = 5000
/** Quest reward type 2 is an item; every other reward is identified by its pokemon. */
const ITEM_REWARD = 2

/** LIKE treats % and _ as wildcards; with `!` as the escape character they (and `!` itself) match literally. */
export const likeSubstring = (input: string) => `%${input.replace(/[!%_]/g, '!$&')}%`

const noScanner = () => notFound('No scanner database is configured.')

/**
 * Reads of the optional scanner database (`/api/scanner`): gym search and lookup with the admin area each
 * gym lies in, active raids, quests and max-battle pokemon. A failing scanner database is logged and
 * answered with the spec's fallbacks (no gyms, 404 for one gym, empty lists); no scanner at all answers
 * the reference's 404 for the raid and quest lists.
 */
const scannerRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, scannerDb, koji, clock } = fastify

  fastify.addHook('onRequest', auth.authenticate)

  const gymColumns = { id: gym.id, name: gym.name, url: gym.url, lat: gym.lat, lon: gym.lon, teamId: gym.teamId }
  async function withArea (rows: Array<Omit<Gym, 'area'>>): Promise<Gym[]> {
    return Promise.all(rows.map(async (row) => ({ ...row, area: await koji.areaAt(row.lat, row.lon) })))
  }

  /** Runs a scanner read; a failure is logged and answered with `fallback`. */
  async function read<T> (what: string, fallback: T, query: () => Promise<T>): Promise<T> {
    try {
      return await query()
    } catch (err) {
      fastify.log.warn({ what, reason: (err as { code?: string }).code ?? (err as Error).message }, 'scanner database read failed; answering the fallback')
      return fallback
    }
  }

  fastify.get('/gyms', {
    schema: { tags: ['scanner'], querystring: GymSearchQuerySchema, response: { 200: Type.Array(GymSchema), ...errors(400, 401) } }
  }, async (request) => {
    if (scannerDb === null) return []
    const { search, limit } = request.query
    const rows = await read('gym search', [], () => scannerDb.db.select(gymColumns).from(gym)
      .where(sql`${gym.name} LIKE ${likeSubstring(search.trim())} ESCAPE '!'`)
      .orderBy(asc(gym.name)).limit(Math.min(limit, GYM_SEARCH_CAP)))
    return withArea(rows)
  })

  fastify.get('/gyms/:id', {
    schema: { tags: ['scanner'], params: GymIdParamsSchema, response: { 200: GymSchema, ...errors(401, 404) } }
  }, async (request) => {
    if (scannerDb === null) throw noScanner()
    const rows = await read('gym lookup', [], () => scannerDb.db.select(gymColumns).from(gym).where(eq(gym.id, request.params.id)).limit(1))
    const [found] = await withArea(rows)
    if (found === undefined) throw notFound('Gym not found.')
    return found
  })

  fastify.get('/raids', {
    schema: { tags: ['scanner'], response: { 200: Type.Array(RaidSchema), ...errors(401, 404) } }
  }, async () => {
    if (scannerDb === null) throw noScanner()
    const now = Math.floor(clock.now() / 1000)
    const rows = await read('active raids', [], () => scannerDb.db.select({
      gymId: gym.id, name: gym.name, lat: gym.lat, lon: gym.lon, level: gym.raidLevel, pokemonId: gym.raidPokemonId, form: gym.raidPokemonForm, endTime: gym.raidEndTimestamp
    }).from(gym).where(gt(gym.raidEndTimestamp, now)).orderBy(asc(gym.raidEndTimestamp)).limit(LIST_CAP))
    return rows.map((r) => ({ ...r, endTime: Number(r.endTime) }))
  })

  fastify.get('/quests', {
    schema: { tags: ['scanner'], response: { 200: Type.Array(QuestSchema), ...errors(401, 404) } }
  }, async () => {
    if (scannerDb === null) throw noScanner()
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
  })

  fastify.get('/max-battle-pokemon', {
    schema: { tags: ['scanner'], response: { 200: Type.Array(Type.Integer()), ...errors(401) } }
  }, async () => {
    if (scannerDb === null) return []
    const rows = await read('max-battle pokemon', [], () => scannerDb.db.selectDistinct({ id: station.battlePokemonId }).from(station)
      .where(and(isNotNull(station.battlePokemonId), gt(station.battlePokemonId, 0))).orderBy(asc(station.battlePokemonId)))
    return rows.map((r) => Number(r.id))
  })
}

export default scannerRoutes
