import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type, type Static } from '@sinclair/typebox'
import { inArray, sql } from 'drizzle-orm'
import { weather } from '../../db/schema/scanner.js'
import { errors } from '../../schemas/common.js'
import { AreaWeatherSchema, WeatherAreasBodySchema, WeatherSchema } from '../../schemas/scanner.js'
import { s2CellIdSigned } from '../../lib/s2.js'

/** The scanner keys weather by S2 level-10 cells. */
const WEATHER_LEVEL = 10

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

type Weather = Static<typeof WeatherSchema>

/**
 * In-game weather from the scanner database (`/api/location/weather`, gated like the rest of the location
 * page): at the user's pin (204 when there is no scanner, no pin or no reading) and for a list of named
 * points such as the centres of the user's areas (none without a scanner).
 */
const weatherRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, featureGates, scannerDb, engine } = fastify

  fastify.addHook('onRequest', auth.authenticate)
  fastify.addHook('preHandler', featureGates.gate('disable_location'))

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
          hasWarning: Number(row.warn ?? 0) > 0,
          severity: Number(row.severity ?? 0),
          updatedAt: new Date(Number(row.updated) * 1000).toISOString()
        })
      }
    } catch (err) {
      fastify.log.warn({ reason: (err as { code?: string }).code ?? (err as Error).message }, 'scanner weather read failed; answering none')
    }
    return out
  }

  fastify.get('/', {
    schema: { tags: ['location', 'scanner'], response: { 200: WeatherSchema, 204: Type.Null(), ...errors(401, 403, 404, 500) } }
  }, async (request, reply) => {
    if (scannerDb === null) return reply.code(204).send(null)
    const human = await engine.humans.one(request.user.userId)
    const lat = Number(human.latitude)
    const lon = Number(human.longitude)
    if (lat === 0 && lon === 0) return reply.code(204).send(null)
    const cell = s2CellIdSigned(lat, lon, WEATHER_LEVEL)
    const found = (await readings([cell])).get(cell.toString())
    return found === undefined ? reply.code(204).send(null) : found
  })

  fastify.post('/areas', {
    schema: { tags: ['location', 'scanner'], body: WeatherAreasBodySchema, response: { 200: Type.Array(AreaWeatherSchema), ...errors(400, 401, 403) } }
  }, async (request) => {
    const cells = request.body.locations.map((l) => ({ name: l.name, cell: s2CellIdSigned(l.lat, l.lon, WEATHER_LEVEL) }))
    const found = await readings([...new Map(cells.map((c) => [c.cell.toString(), c.cell])).values()])
    return cells.flatMap((c) => {
      const reading = found.get(c.cell.toString())
      return reading === undefined ? [] : [{ name: c.name, weather: reading }]
    })
  })
}

export default weatherRoutes
