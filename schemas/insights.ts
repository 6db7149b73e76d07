import { Type, type Static } from '@sinclair/typebox'
import { ALARM_TYPES } from './alarm-types.js'
import { BROWSER_FAMILIES } from '../lib/devices.js'

/**
 * The admin insights (`/api/admin/insights/*`): counts over the whole community, never a member's
 * location. Every answer says when it was computed: answers are kept 10 minutes for the whole site.
 */
const ComputedAt = Type.String({ format: 'date-time', description: 'When these figures were computed; they are kept 10 minutes and then recomputed in the background' })
const Count = (description: string) => Type.Integer({ minimum: 0, description })

export const MembersInsightSchema = Type.Object({
  computedAt: ComputedAt,
  total: Count('Members: the engine\'s humans of a user type (`…:user`), not channels, groups or webhooks'),
  signedIn7d: Count('Distinct members who completed a sign-in in the last 7 days'),
  signedIn30d: Count('Distinct members who completed a sign-in in the last 30 days'),
  paused: Count('Members who stopped their own alerts (not blocked)'),
  blocked: Count('Members blocked by an administrator'),
  withoutLocation: Count('Members without a location (no pin set)'),
  withoutAreas: Count('Members without any area selected'),
  withoutLocationOrAreas: Count('Members with neither a pin nor an area: only alarms with their own areas can reach them'),
  newPerWeek: Type.Array(Type.Object({
    weekStart: Type.String({ format: 'date', description: 'First UTC day of the week (the weeks end today)' }),
    members: Count('Members whose first recorded sign-in fell in this week')
  }), { description: 'The last 12 weeks, oldest first' }),
  signInsPerDay: Type.Array(Type.Object({
    day: Type.String({ format: 'date', description: 'UTC day' }),
    signIns: Count('Completed sign-ins that day'),
    members: Count('Distinct members who signed in that day')
  }), { description: 'The last 90 days, oldest first, today included' })
})
export type MembersInsight = Static<typeof MembersInsightSchema>

export const TrackedSchema = Type.Object({
  type: Type.Union([Type.Literal('pokemon'), Type.Literal('raid'), Type.Literal('quest')], { description: 'Alarm type as GET /api/alarm-types names it' }),
  id: Type.Integer({ description: 'Pokemon id (pokemon, raid boss), or the reward id of a quest (pokemon or item id, by rewardType)' }),
  rewardType: Type.Optional(Type.Integer({ description: 'Quests: the engine\'s reward type (2 item, 4 candy, 7 pokemon, 12 mega energy)' })),
  name: Type.String(),
  members: Count('Members with at least one alarm for it'),
  alarms: Count('Alarms for it, all profiles')
})

const Bucket = Type.Object({
  from: Type.Integer({ minimum: 0 }),
  to: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description: 'Inclusive; null for "and more"' }),
  members: Count('Members in this range')
})

export const AlarmsInsightSchema = Type.Object({
  computedAt: ComputedAt,
  byType: Type.Object(Object.fromEntries(ALARM_TYPES.map((type) => [type, Count(`Members' ${type} alarms, all profiles`)])), { additionalProperties: false }),
  topTracked: Type.Array(TrackedSchema, { description: 'Up to 25 each of species (pokemon), raid bosses and quest rewards, most members first' }),
  membersByAlarmCount: Type.Array(Bucket, { description: 'Members by their number of alarms (all types, all profiles)' }),
  membersByProfileCount: Type.Array(Type.Object({ profiles: Type.Integer({ minimum: 0 }), members: Count('Members with this many profiles') }))
})
export type AlarmsInsight = Static<typeof AlarmsInsightSchema>

export const AreasInsightSchema = Type.Object({
  computedAt: ComputedAt,
  areas: Type.Array(Type.Object({
    name: Type.String({ description: 'The fence as the engine lists it' }),
    members: Count('Members who have this area selected (their active profile)'),
    known: Type.Boolean({ description: 'False for an area members selected that the engine has no fence for (it never matches)' })
  }), { description: 'Most members first; every fence of the engine, selected or not' }),
  pendingFences: Count('Member-drawn fences waiting for review'),
  oldestPendingSince: Type.Union([Type.String({ format: 'date-time' }), Type.Null()])
})
export type AreasInsight = Static<typeof AreasInsightSchema>

export const AreaInsightSchema = Type.Object({
  name: Type.String({ description: 'The fence as the engine lists it (or as members selected it)' }),
  known: Type.Boolean({ description: 'False for an area members selected that the engine has no fence for' }),
  members: Count('Members who have this area selected (their active profile)'),
  topTracked: Type.Array(Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    members: Count('Members of this area tracking the species'),
    alarms: Count('Their alarms for it')
  }), { description: 'The pokémon these members track most, most members first (at most 3)' })
}, { description: 'One area of the map, read when asked' })
export type AreaInsight = Static<typeof AreaInsightSchema>

export const AreaInsightParamsSchema = Type.Object({ name: Type.String({ minLength: 1, maxLength: 255 }) })

export const NoiseInsightSchema = Type.Object({
  computedAt: ComputedAt,
  basis: Type.Union([Type.Literal('scanner'), Type.Literal('unavailable')], { description: 'unavailable: no scanner database, so no estimates' }),
  windowHours: Type.Integer({ description: 'The scanner\'s recent window the estimates count' }),
  limit: Type.Object({
    alerts: Type.Integer(),
    seconds: Type.Integer(),
    perHour: Type.Number({ description: 'The engine\'s limit as a steady rate' })
  }),
  measured: Count('Members estimated (those with the most alarms in their active profile first, up to INSIGHTS_NOISE_MEMBERS)'),
  failed: Count('Members who could not be estimated this time (the engine did not answer for them)'),
  members: Type.Array(Type.Object({
    userId: Type.String(),
    name: Type.String(),
    recentPerHour: Type.Number({ description: 'Alerts their active profile would have sent in the recent window, per hour' }),
    overLimit: Type.Boolean({ description: 'Above the engine\'s limit: likely to be stopped' })
  }), { description: 'Loudest first' })
})
export type NoiseInsight = Static<typeof NoiseInsightSchema>

export const SignInsInsightSchema = Type.Object({
  computedAt: ComputedAt,
  days: Type.Integer({ description: 'The span counted, in days' }),
  byMethod: Type.Array(Type.Object({
    method: Type.Union([Type.Literal('oidc'), Type.Literal('discord'), Type.Literal('telegram')]),
    signIns: Count('Completed sign-ins with this method'),
    members: Count('Distinct members who used it')
  })),
  devices: Type.Object({
    members: Count('Members (as in the members panel)'),
    withPush: Count('Members with at least one device subscribed to Web Push alerts (a browser or the installed app: the two look alike)'),
    withoutPush: Count('Members with no such device: their alerts come by chat only'),
    byBrowser: Type.Array(Type.Object({
      browser: Type.Union([...BROWSER_FAMILIES.map((b) => Type.Literal(b)), Type.Literal('other')], { description: 'The browser family the device was subscribed from; other: not recognised' }),
      members: Count('Members with a push device of this family (a member with several families counts in each)')
    }), { description: 'Most members first' })
  }, { description: 'Web Push devices, as stored now' })
})
export type SignInsInsight = Static<typeof SignInsInsightSchema>
