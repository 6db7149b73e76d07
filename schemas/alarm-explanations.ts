import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { FreeText } from './common.js'
import { ALARM_TYPES } from './alarm-types.js'

/**
 * "Why didn't I get that alert?" (docs/explanations.md): a scanner event as the engine receives it, and
 * for each of the member's alarms whether it matches and every filter that stopped it.
 */

export const EVENT_TYPES = ['pokemon', 'raid', 'quest', 'invasion', 'lure', 'nest', 'gym', 'fort_update', 'max_battle'] as const
export type EventType = typeof EVENT_TYPES[number]

const Lat = Type.Number({ minimum: -90, maximum: 90 })
const Lon = Type.Number({ minimum: -180, maximum: 180 })
const Int = (description?: string) => Type.Integer({ minimum: -1, maximum: 2_147_483_647, ...(description !== undefined ? { description } : {}) })
const OptInt = (description?: string) => Type.Optional(Type.Union([Int(description), Type.Null()]))
const Id = FreeText({ minLength: 1, maxLength: 200 })
const place = { latitude: Lat, longitude: Lon }

/**
 * The fields of each scanner webhook message (Golbat's, as PoracleJS and PoracleNG read them) that the
 * matcher needs; a message carries many more, which are allowed and ignored. Required: what the engine
 * cannot decide without.
 */
export const MESSAGE_SCHEMAS: Record<EventType, TSchema> = {
  pokemon: Type.Object({
    ...place,
    pokemon_id: Int(),
    form: OptInt(),
    disappear_time: Type.Integer({ minimum: 0, description: 'Unix seconds' }),
    individual_attack: OptInt('Absent or null: not encountered'),
    individual_defense: OptInt(),
    individual_stamina: OptInt(),
    cp: OptInt(),
    pokemon_level: OptInt(),
    gender: OptInt(),
    weight: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()])),
    size: OptInt(),
    pvp: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Array(Type.Object({ rank: Type.Optional(Type.Number()), cp: Type.Optional(Type.Number()) }))), Type.Null()])),
    rarity: OptInt('The engine\'s rarity group of the species, when known')
  }),
  raid: Type.Object({
    ...place,
    gym_id: Id,
    level: Int(),
    end: Type.Integer({ minimum: 0 }),
    pokemon_id: OptInt('0 or absent: an egg'),
    form: OptInt(),
    team_id: OptInt(),
    ex_raid_eligible: Type.Optional(Type.Union([Type.Boolean(), Type.Integer(), Type.Null()])),
    is_ex_raid_eligible: Type.Optional(Type.Union([Type.Boolean(), Type.Integer(), Type.Null()])),
    move_1: OptInt(),
    move_2: OptInt(),
    evolution: OptInt()
  }),
  quest: Type.Object({
    ...place,
    rewards: Type.Array(Type.Object({
      type: Int(),
      info: Type.Optional(Type.Object({
        pokemon_id: OptInt(),
        form_id: OptInt(),
        shiny: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
        item_id: OptInt(),
        amount: OptInt()
      }))
    }), { minItems: 1, maxItems: 10 })
  }),
  invasion: Type.Object({
    ...place,
    incident_grunt_type: OptInt(),
    grunt_type: OptInt(),
    character: OptInt('Golbat\'s name for the grunt type'),
    display_type: OptInt(),
    incident_display_type: OptInt()
  }),
  lure: Type.Object({ ...place, lure_id: Int() }),
  nest: Type.Object({ ...place, pokemon_id: Int(), form: OptInt(), pokemon_avg: Type.Number({ minimum: 0 }) }),
  gym: Type.Object({
    ...place,
    id: Type.Optional(Id),
    gym_id: Type.Optional(Id),
    team_id: OptInt(),
    old_team_id: OptInt('The engine\'s memory of the gym: absent = a team change'),
    slots_available: OptInt(),
    old_slots_available: OptInt(),
    is_in_battle: Type.Optional(Type.Union([Type.Boolean(), Type.Integer(), Type.Null()])),
    in_battle: Type.Optional(Type.Union([Type.Boolean(), Type.Integer(), Type.Null()]))
  }),
  fort_update: Type.Object({
    change_type: FreeText({ minLength: 1, maxLength: 40 }),
    edit_types: Type.Optional(Type.Array(FreeText({ maxLength: 40 }), { maxItems: 20 })),
    new: Type.Optional(FortSnapshot()),
    old: Type.Optional(FortSnapshot())
  }),
  max_battle: Type.Object({
    ...place,
    id: Id,
    battle_level: Int(),
    battle_pokemon_id: OptInt(),
    battle_pokemon_form: OptInt(),
    battle_pokemon_bread_mode: OptInt(),
    battle_pokemon_move_1: OptInt(),
    battle_pokemon_move_2: OptInt()
  })
}

function FortSnapshot () {
  return Type.Union([Type.Object({
    type: Type.Optional(FreeText({ maxLength: 40 })),
    name: Type.Optional(Type.Union([FreeText({ maxLength: 500 }), Type.Null()])),
    description: Type.Optional(Type.Union([FreeText({ maxLength: 2000, multiline: true }), Type.Null()])),
    // Golbat's fort webhook places a fort by `lat` and `lon`, unlike its other messages.
    location: Type.Optional(Type.Object({ lat: Lat, lon: Lon }))
  }), Type.Null()])
}

/** An event id of the recent list (plugins/domain/alarm-explanations/event-ids.ts): base64url, opaque to the client. */
export const EventIdSchema = Type.String({ minLength: 40, maxLength: 8192, pattern: '^[A-Za-z0-9_-]+$', description: 'An event of GET /api/alarm-explanations/recent, by its id' })

export const ExplanationRequestSchema = Type.Object({
  event: Type.Optional(Type.Object({
    type: Type.Union(EVENT_TYPES.map((t) => Type.Literal(t))),
    message: Type.Object({}, { additionalProperties: true, description: 'The scanner\'s webhook message, as the engine receives it' })
  }, { additionalProperties: false, description: 'The event itself; or `eventId`' })),
  eventId: Type.Optional(EventIdSchema),
  at: Type.Optional(Type.Integer({ minimum: 0, maximum: 4_294_967_295, description: 'Unix seconds the engine received the event; default now (for an `eventId`, when the scanner saw it)' })),
  timeZone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_+\\-/]+$', description: 'The member\'s IANA time zone, for active hours; default UTC' }))
}, { additionalProperties: false })
export type ExplanationRequest = Static<typeof ExplanationRequestSchema>

export const FailureSchema = Type.Object({
  filter: Type.String({ description: 'The engine\'s field (or the member\'s setting) that stopped the alert' }),
  want: Type.String({ description: 'The alarm\'s range in words' }),
  got: Type.Unknown({ description: 'The event\'s value' })
})

export const ExplanationSchema = Type.Object({
  alerted: Type.Boolean({ description: 'Whether the engine would have sent at least one alert' }),
  activeProfileNo: Type.Integer({ description: 'The profile active at the event\'s time (its schedule, else the current one)' }),
  profiles: Type.Array(Type.Object({ profileNo: Type.Integer(), name: Type.String() }), { description: 'The member\'s profiles, to name them' }),
  member: Type.Array(FailureSchema, { description: 'Reasons that stop every alert of this kind' }),
  eventAreas: Type.Array(Type.String(), { description: 'The fences the event is in, by the engine\'s names' }),
  alarms: Type.Array(Type.Object({
    uid: Type.Integer(),
    type: Type.Union(ALARM_TYPES.map((t) => Type.Literal(t))),
    profileNo: Type.Integer(),
    active: Type.Boolean({ description: 'Whether the alarm\'s profile was active at the event\'s time' }),
    matches: Type.Boolean(),
    failed: Type.Array(FailureSchema),
    unknownAreas: Type.Array(Type.String(), { description: 'Areas the alarm names that no fence of the engine has' }),
    alarm: Type.Record(Type.String(), Type.Unknown(), { description: 'What names the alarm: its subject (species, level, reward…), its distance, and its other fields that differ from the engine\'s defaults' })
  }))
})
export type Explanation = Static<typeof ExplanationSchema>

export const AdminExplanationParamsSchema = Type.Object({ id: FreeText({ minLength: 1, maxLength: 512 }) })

/* The recent list: what the scanner saw in the member's places, newest first, without positions. */

export const RECENT_EVENT_TYPES = ['pokemon', 'raid', 'quest', 'invasion', 'lure'] as const
export type RecentEventType = typeof RECENT_EVENT_TYPES[number]

export const RECENT_PAGE_MAX = 100

export const RecentQuerySchema = Type.Object({
  type: Type.Union(RECENT_EVENT_TYPES.map((t) => Type.Literal(t)), { description: 'Which events: a raid is listed as its egg until it hatches' }),
  cursor: Type.Optional(Type.String({ maxLength: 24, pattern: '^[0-9]{1,10}\\.[0-9]{1,6}$', description: 'The `nextCursor` of the page before' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: RECENT_PAGE_MAX, default: 30 })),
  pokemonId: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: 'Only this species (the pokemon, the raid boss, the quest\'s reward pokemon)' }))
}, { additionalProperties: false })
export type RecentQuery = Static<typeof RecentQuerySchema>

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

export const RecentEventSchema = Type.Object({
  id: Type.String({ description: 'Opaque: send it as `eventId` to POST /api/alarm-explanations' }),
  type: Type.Union(RECENT_EVENT_TYPES.map((t) => Type.Literal(t))),
  seenAt: Type.Integer({ description: 'Unix seconds the scanner saw it (a pokemon first seen, a raid hatched or its egg appeared, an invasion began, a quest scanned)' }),
  endsAt: Nullable(Type.Integer({ description: 'Unix seconds it ends' })),
  area: Nullable(Type.String({ description: 'The first of the engine\'s fences it is in, as the engine names it' })),
  place: Nullable(Type.String({ description: 'The gym\'s or stop\'s name, as the map shows it' })),
  pokemonId: Type.Integer({ description: 'The pokemon, the raid boss (0: an egg), the quest\'s reward pokemon; 0 when none' }),
  form: Type.Integer(),
  iv: Type.Optional(Nullable(Type.Number({ description: 'Pokemon: IV % (two decimals); null when not encountered' }))),
  cp: Type.Optional(Nullable(Type.Integer())),
  level: Type.Optional(Nullable(Type.Integer())),
  raidLevel: Type.Optional(Type.Integer()),
  rewards: Type.Optional(Type.Array(Type.Object({ type: Type.Integer(), itemId: Type.Integer(), pokemonId: Type.Integer(), form: Type.Integer(), amount: Type.Integer() }))),
  gruntType: Type.Optional(Type.Integer({ description: 'Invasions: the grunt type (the scanner\'s character)' })),
  lureId: Type.Optional(Type.Integer())
})

export const RecentListSchema = Type.Object({
  windowSeconds: Type.Integer({ description: 'How far back the list goes (quests: every quest still up)' }),
  events: Type.Array(RecentEventSchema),
  nextCursor: Nullable(Type.String({ description: 'The next page\'s `cursor`; null on the last page' }))
})
export type RecentList = Static<typeof RecentListSchema>
