import { Type, type Static } from '@sinclair/typebox'
import { BoundedInteger } from './common.js'

/** The spec's gym search result; `area` is resolved at request time against the admin geofences. */
export const GymSchema = Type.Object({
  id: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  url: Type.Union([Type.String(), Type.Null()]),
  lat: Type.Number(),
  lon: Type.Number(),
  teamId: Type.Union([Type.Integer(), Type.Null()], { description: '0 = neutral' }),
  area: Type.Union([Type.String(), Type.Null()])
})
export type Gym = Static<typeof GymSchema>

export const GYM_SEARCH_CAP = 50
export const GymSearchQuerySchema = Type.Object({
  search: Type.String({ minLength: 2, maxLength: 100, description: 'Matched as a substring of the gym name' }),
  limit: BoundedInteger({ minimum: 1, maximum: 1000, default: 20, description: `At most ${GYM_SEARCH_CAP} results are returned whatever the value` })
}, { additionalProperties: false })

export const GymIdParamsSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) })

export const RaidSchema = Type.Object({
  gymId: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  lat: Type.Number(),
  lon: Type.Number(),
  level: Type.Union([Type.Integer(), Type.Null()]),
  pokemonId: Type.Union([Type.Integer(), Type.Null()]),
  form: Type.Union([Type.Integer(), Type.Null()]),
  endTime: Type.Integer({ description: 'Unix seconds' })
})

export const QuestSchema = Type.Object({
  pokestopId: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  lat: Type.Number(),
  lon: Type.Number(),
  questType: Type.Union([Type.Integer(), Type.Null()]),
  rewardType: Type.Union([Type.Integer(), Type.Null()]),
  rewardId: Type.Union([Type.Integer(), Type.Null()], { description: 'The item id for item rewards (type 2), else the pokemon id' })
})

export const WeatherSchema = Type.Object({
  condition: Type.Integer(),
  conditionName: Type.String(),
  icon: Type.String(),
  boostedTypes: Type.Array(Type.String()),
  boostedTypeIds: Type.Array(Type.Integer(), { description: 'The boosted types by the game data\'s type id, for names in the reader\'s language.' }),
  hasWarning: Type.Boolean(),
  severity: Type.Integer(),
  updatedAt: Type.String({ description: 'ISO 8601' })
})

export const WeatherAreasBodySchema = Type.Object({
  locations: Type.Array(Type.Object({
    name: Type.String({ minLength: 1, maxLength: 255 }),
    lat: Type.Number({ minimum: -90, maximum: 90 }),
    lon: Type.Number({ minimum: -180, maximum: 180 })
  }, { additionalProperties: false }), { maxItems: 1000 })
}, { additionalProperties: false })

export const AreaWeatherSchema = Type.Object({ name: Type.String(), weather: WeatherSchema })

/** `GET /api/pokemon-availability`: the species spawning now, when the site has a scanner. */
export const PokemonAvailabilitySchema = Type.Object({ enabled: Type.Boolean(), available: Type.Array(Type.Integer()) })
