import { Type, type Static } from '@sinclair/typebox'

/** What an alarm will do to a member's phone (docs/estimates.md): the wire shapes of /api/alarm-estimates. */

const TypeName = Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z/-]+$', description: 'The alarm type, by name (`pokemon`) or by path as GET /api/alarm-types lists it (`/api/monsters`).' })

export const EstimateRequestSchema = Type.Object({
  type: TypeName,
  alarm: Type.Record(Type.String(), Type.Unknown(), { description: 'The same body a create of that type takes; checked against it.' }),
  uid: Type.Optional(Type.Integer({ minimum: 1, maximum: 4_294_967_295, description: 'The alarm being edited: left out of its own overlap.' }))
}, { additionalProperties: false })

export const EstimateQuerySchema = Type.Object({ type: TypeName }, { additionalProperties: false })

export const FiguresSchema = Type.Object({
  basis: Type.Union([Type.Literal('scanner'), Type.Literal('unavailable')], { description: 'unavailable: no scanner, scanner down or slow, or a type the scanner does not show.' }),
  windowHours: Type.Integer({ description: 'How many hours `recent` looks back.' }),
  recent: Type.Union([Type.Integer(), Type.Null()], { description: 'Alerts this alarm would have sent in the last `windowHours`.' }),
  perDay: Type.Union([Type.Number(), Type.Null()], { description: 'A typical day from the scanner\'s daily statistics; null where there are none.' }),
  perDayBasis: Type.Union([...['species-stats', 'hundo-stats', 'iv-stats', 'uniform', 'today'].map((b) => Type.Literal(b)), Type.Null()], {
    description: 'species-stats: species counts; hundo-stats: the 100 % counts; iv-stats: IV counts shared out evenly over IVs; uniform: species counts shared out by the uniform IV distribution (no IV statistics); today: today\'s quests.'
  }),
  areas: Type.Array(Type.String(), { description: 'The areas the alarm is measured in; empty for a distance alarm.' }),
  unknownAreas: Type.Array(Type.String(), { description: 'Areas the alarm names that no fence of the engine has: they can never match (so a zero is not a quiet area).' })
})

export const EstimateSchema = Type.Intersect([FiguresSchema, Type.Object({
  coveredBy: Type.Array(Type.Integer(), { description: 'The member\'s alarms (this profile, this type) that already match every event this alarm matches.' }),
  covers: Type.Array(Type.Integer(), { description: 'The member\'s alarms this alarm makes redundant.' })
})])
export type EstimateAnswer = Static<typeof EstimateSchema>

export const ProfileEstimateSchema = Type.Object({
  basis: Type.Union([Type.Literal('scanner'), Type.Literal('unavailable')]),
  windowHours: Type.Integer(),
  alarms: Type.Record(Type.String(), EstimateSchema, { description: 'Keyed by alarm uid.' }),
  total: Type.Object({ recent: Type.Union([Type.Integer(), Type.Null()]), perDay: Type.Union([Type.Number(), Type.Null()]) })
})
export type ProfileEstimateAnswer = Static<typeof ProfileEstimateSchema>

/* What is spawning now (no positions, counts only). */

const Enabled = Type.Boolean({ description: 'False when no scanner database is configured.' })

export const PokemonNowSchema = Type.Object({
  enabled: Enabled,
  pokemon: Type.Array(Type.Object({ pokemonId: Type.Integer(), form: Type.Integer(), count: Type.Integer() }))
})
export const RaidBossesNowSchema = Type.Object({
  enabled: Enabled,
  bosses: Type.Array(Type.Object({ level: Type.Integer(), pokemonId: Type.Integer(), form: Type.Integer(), evolution: Type.Integer(), count: Type.Integer() }))
})
export const QuestRewardsNowSchema = Type.Object({
  enabled: Enabled,
  rewards: Type.Array(Type.Object({
    rewardType: Type.Integer({ description: '2 item, 3 stardust, 4 candy, 7 pokemon, 12 mega energy (as quest alarms).' }),
    itemId: Type.Integer(),
    pokemonId: Type.Integer(),
    form: Type.Integer(),
    amount: Type.Integer(),
    count: Type.Integer({ description: 'Stops offering it.' })
  }))
})
