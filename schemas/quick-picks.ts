import { Type, type Static } from '@sinclair/typebox'

/** The reference's alarm type names for picks ("monster" is the engine's "pokemon"). */
export const QUICK_PICK_TYPES = ['monster', 'raid', 'egg', 'quest', 'invasion', 'lure', 'nest', 'gym', 'maxbattle'] as const
export type QuickPickType = typeof QUICK_PICK_TYPES[number]

/** Lower-case slugs; `user` and `seed` are path words of the API, never ids. */
export const QuickPickIdSchema = Type.String({ pattern: '^(?!(user|seed)$)[a-z0-9][a-z0-9-]{0,49}$', description: 'Slug; derived from the name when left out' })

/**
 * Alarm fields in the alarm API's own names (`min_iv`, `grunt_type`, …). A list where the field takes
 * one value fans the pick out into one alarm per value ("all invasions", "rocket leaders").
 */
export const FiltersSchema = Type.Record(Type.String({ pattern: '^[a-z_]{1,40}$' }), Type.Unknown(), { maxProperties: 40 })

export const QuickPickWriteSchema = Type.Object({
  id: Type.Optional(QuickPickIdSchema),
  name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
  icon: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
  category: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
  alarmType: Type.Union(QUICK_PICK_TYPES.map((t) => Type.Literal(t))),
  sortOrder: Type.Optional(Type.Integer({ minimum: -100_000, maximum: 100_000 })),
  enabled: Type.Optional(Type.Boolean()),
  filters: FiltersSchema
}, { additionalProperties: false })
export type QuickPickWrite = Static<typeof QuickPickWriteSchema>

/** An edit of an existing pick: its id is the path's. */
export const QuickPickEditSchema = Type.Omit(QuickPickWriteSchema, ['id'], { additionalProperties: false })

export const QuickPickSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  icon: Type.String(),
  category: Type.String(),
  alarmType: Type.String(),
  sortOrder: Type.Integer(),
  enabled: Type.Boolean(),
  scope: Type.Union([Type.Literal('global'), Type.Literal('user')]),
  ownerUserId: Type.Union([Type.String(), Type.Null()]),
  filters: Type.Record(Type.String(), Type.Unknown()),
  createdAt: Type.String(),
  updatedAt: Type.String()
})
export type QuickPick = Static<typeof QuickPickSchema>

export const AppliedStateSchema = Type.Object({
  quickPickId: Type.String(),
  profileNo: Type.Integer(),
  alarmType: Type.String(),
  appliedAt: Type.String(),
  trackedUids: Type.Array(Type.Integer()),
  excludePokemonIds: Type.Array(Type.Integer())
})
export type AppliedState = Static<typeof AppliedStateSchema>

/**
 * Why an apply left one of its alarms out. `already-have`: the member has this very alarm;
 * `would-change-yours`: the alarm engine would rewrite the member's alarm `uid` with it (they differ in
 * one field the engine updates in place, such as the distance); `same-key`: the engine keeps one alarm per
 * key (an invasion's grunt type and gender, a lure's type) and the member has it; `repeated`: the pick
 * names the same alarm twice; `refused`: the alarm is not valid, or the engine refused it (`message`).
 */
export const SKIP_REASONS = ['already-have', 'would-change-yours', 'same-key', 'repeated', 'refused'] as const
export const SkippedAlarmSchema = Type.Object({
  uid: Type.Union([Type.Integer(), Type.Null()], { description: 'The member\'s alarm in the way (null when none is)' }),
  reason: Type.Union(SKIP_REASONS.map((r) => Type.Literal(r))),
  message: Type.Union([Type.String(), Type.Null()], { description: 'The service\'s or the engine\'s own words, in English' })
})
export type SkippedAlarm = Static<typeof SkippedAlarmSchema>

/**
 * An apply's answer: the applied state, how many alarms the pick stands for, the uids it added (the
 * applied state's, which a remove deletes) and each alarm it left out, with why. The member's own alarms
 * are never changed by an apply.
 */
export const ApplyResultSchema = Type.Intersect([AppliedStateSchema, Type.Object({
  requested: Type.Integer({ minimum: 0 }),
  added: Type.Array(Type.Integer()),
  skipped: Type.Array(SkippedAlarmSchema)
})])
export type ApplyResult = Static<typeof ApplyResultSchema>

export const QuickPickEntrySchema = Type.Object({ definition: QuickPickSchema, appliedState: Type.Union([AppliedStateSchema, Type.Null()]) })

/** Options of one apply: delivery overrides and, for "every pokemon" picks and sets of species, species left out. */
export const ApplyOptionsSchema = Type.Object({
  excludePokemonIds: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 100_000 }), { maxItems: 2000, uniqueItems: true, description: 'Species left out: of every pokemon, or of the pick\'s own set ("all except…")' })),
  distance: Type.Optional(Type.Integer({ minimum: 0, maximum: 40_000_000 })),
  clean: Type.Optional(Type.Integer({ minimum: 0, maximum: 7 })),
  template: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  overrideLocationLabel: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  overrideAreas: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), { maxItems: 32 }))
}, { additionalProperties: false })
export type ApplyOptions = Static<typeof ApplyOptionsSchema>
