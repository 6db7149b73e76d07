import { Type, type Static } from '@sinclair/typebox'
import { AlarmTypeSchema, UINT_MAX } from './alarm-types.js'
import { BoundedInteger, FreeText, INT32_MAX, LOG_REDACTED } from './common.js'

/** How many alarms one shared set holds at most: a large profile, and one batch per type stays one engine call. */
export const MAX_SHARED_ALARMS = 500

/** How many sets one member keeps at once (revoke one to share another). */
export const MAX_OWN_SETS = 50

/** The link's secret: 128 random bits as 22 base64url characters. Never logged as sent. */
export const SharedSetTokenSchema = Type.String({ pattern: '^[A-Za-z0-9_-]{22}$', ...LOG_REDACTED, description: 'The link\'s secret (128 random bits, base64url)' })

export const SharedSetParamsSchema = Type.Object({ token: SharedSetTokenSchema })

const AlarmRefSchema = Type.Object({
  type: AlarmTypeSchema,
  uid: BoundedInteger({ minimum: 1, maximum: UINT_MAX })
}, { additionalProperties: false })

const ProfileNoSchema = BoundedInteger({ minimum: 1, maximum: INT32_MAX })

const ShareCommon = {
  title: Type.Optional(FreeText({ minLength: 1, maxLength: 100, pattern: '\\S' })),
  /** The name shown with the set; left out, the set says "a member". */
  displayName: Type.Optional(FreeText({ minLength: 1, maxLength: 40, pattern: '\\S' })),
  expiresInDays: Type.Optional(Type.Union([Type.Literal(1), Type.Literal(7), Type.Null()], { description: 'A day, a week, or never (null or left out)' })),
  inCatalogue: Type.Optional(Type.Boolean({ description: 'Offer the set in the community catalogue' }))
}

/** A selection of the member's alarms (any types, any profile), or one whole profile. */
export const ShareCreateSchema = Type.Union([
  Type.Object({ ...ShareCommon, alarms: Type.Array(AlarmRefSchema, { minItems: 1, maxItems: MAX_SHARED_ALARMS }) }, { additionalProperties: false }),
  Type.Object({ ...ShareCommon, profileNo: ProfileNoSchema }, { additionalProperties: false })
])
export type ShareCreate = Static<typeof ShareCreateSchema>

export const ShareCreatedSchema = Type.Object({
  token: Type.String(),
  url: Type.String({ description: 'The link to hand on: /s/<token> on this site' }),
  alarms: Type.Integer({ description: 'How many alarms the set holds' })
})

/** One of the caller's sets, as "My shared sets" lists it. */
export const OwnSharedSetSchema = Type.Object({
  token: Type.String(),
  url: Type.String(),
  title: Type.String(),
  displayName: Type.Union([Type.String(), Type.Null()]),
  alarms: Type.Integer(),
  copies: Type.Integer(),
  expiresAt: Type.Union([Type.String(), Type.Null()]),
  expired: Type.Boolean(),
  hidden: Type.Boolean({ description: 'An administrator took the set down' }),
  inCatalogue: Type.Boolean(),
  createdAt: Type.String()
})

/** An alarm of a set: its type and its filters in the alarm API's own names. */
export const SharedAlarmSchema = Type.Object({ type: AlarmTypeSchema }, { additionalProperties: true })
export type SharedAlarm = Static<typeof SharedAlarmSchema> & Record<string, unknown>

export const UNAVAILABLE_REASONS = ['type-off', 'type-not-offered', 'unknown-area'] as const
export type UnavailableReason = typeof UNAVAILABLE_REASONS[number]

/** An alarm of the set this site or the viewer's engine does not offer: shown, and skipped on copy. */
export const UnavailableSchema = Type.Object({
  index: Type.Integer(),
  type: AlarmTypeSchema,
  reason: Type.Union(UNAVAILABLE_REASONS.map((r) => Type.Literal(r))),
  message: Type.String()
})
export type Unavailable = Static<typeof UnavailableSchema>

export const SharedSetViewSchema = Type.Object({
  token: Type.String(),
  title: Type.String(),
  sharer: Type.String({ description: 'The name the sharer chose, or "a member"' }),
  summary: Type.String({ description: 'One line in words: "12 raid alarms: level 5, Mega, …"' }),
  alarms: Type.Array(SharedAlarmSchema),
  unavailable: Type.Array(UnavailableSchema),
  copies: Type.Integer(),
  expiresAt: Type.Union([Type.String(), Type.Null()]),
  mine: Type.Boolean({ description: 'The caller shared this set' })
})
export type SharedSetView = Static<typeof SharedSetViewSchema>

export const CopySchema = Type.Object({
  profileNo: ProfileNoSchema,
  indexes: Type.Optional(Type.Array(BoundedInteger({ minimum: 0, maximum: MAX_SHARED_ALARMS - 1 }), { minItems: 1, maxItems: MAX_SHARED_ALARMS, uniqueItems: true }))
}, { additionalProperties: false })
export type Copy = Static<typeof CopySchema>

export const COPY_SKIP_REASONS = ['already-have', 'would-change-yours', 'same-key', 'repeated', 'refused', ...UNAVAILABLE_REASONS] as const

const CopiedAlarmSchema = Type.Object({ index: Type.Integer(), type: AlarmTypeSchema, uid: Type.Integer() })

export const CopyResultSchema = Type.Object({
  profileNo: Type.Integer(),
  requested: Type.Integer(),
  added: Type.Array(CopiedAlarmSchema),
  skipped: Type.Array(Type.Object({
    index: Type.Integer(),
    type: AlarmTypeSchema,
    reason: Type.Union(COPY_SKIP_REASONS.map((r) => Type.Literal(r))),
    message: Type.Union([Type.String(), Type.Null()])
  })),
  undo: Type.Object({
    profileNo: Type.Integer(),
    alarms: Type.Array(Type.Object({ type: AlarmTypeSchema, uid: Type.Integer() }))
  }, { description: 'The body of POST /api/shared-sets/undo-copy that takes the copy back' })
})
export type CopyResult = Static<typeof CopyResultSchema>

/** Takes a copy back: deletes those of the alarms the copy added that are still in the profile. */
export const UndoCopySchema = Type.Object({
  profileNo: ProfileNoSchema,
  alarms: Type.Array(AlarmRefSchema, { minItems: 1, maxItems: MAX_SHARED_ALARMS })
}, { additionalProperties: false })
export type UndoCopy = Static<typeof UndoCopySchema>

export const UndoneSchema = Type.Object({ removed: Type.Integer() })

/** The community catalogue's search: by alarm type and by species (a pokemon id), most copied first. */
export const CatalogueQuerySchema = Type.Object({
  type: Type.Optional(AlarmTypeSchema),
  species: Type.Optional(BoundedInteger({ minimum: 1, maximum: 100_000, description: 'A pokemon id the set names' })),
  limit: Type.Optional(BoundedInteger({ minimum: 1, maximum: 100, default: 50 }))
}, { additionalProperties: false })
export type CatalogueQuery = Static<typeof CatalogueQuerySchema>

export const CatalogueEntrySchema = Type.Object({
  token: Type.String(),
  url: Type.String(),
  title: Type.String(),
  sharer: Type.String(),
  summary: Type.String(),
  types: Type.Array(AlarmTypeSchema),
  alarms: Type.Integer(),
  copies: Type.Integer()
})

/** A set as administrators moderate it: the catalogue's fields and its state. */
export const AdminSharedSetSchema = Type.Intersect([CatalogueEntrySchema, Type.Object({
  hidden: Type.Boolean(),
  inCatalogue: Type.Boolean(),
  expired: Type.Boolean(),
  createdAt: Type.String()
})])

export const HideSchema = Type.Object({ hidden: Type.Boolean() }, { additionalProperties: false })

export const PromotedSchema = Type.Object({ quickPicks: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), alarmType: Type.String() })) })
