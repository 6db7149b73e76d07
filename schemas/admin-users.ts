import { Type, type Static } from '@sinclair/typebox'
import { FreeText, LOG_REDACTED } from './common.js'

/** An engine user id: chat-platform ids are numbers, webhook ids are their URL (up to the column's 255). */
export const UserIdSchema = Type.String({ minLength: 1, maxLength: 255, ...LOG_REDACTED })
export const UserIdQuerySchema = Type.Object({ id: UserIdSchema }, { additionalProperties: false })

/** One row of the admin user list and of "my webhooks" (engine `humans`, camelCase). */
export const AdminUserSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.String(),
  enabled: Type.Boolean(),
  adminDisable: Type.Boolean(),
  lastChecked: Type.Union([Type.String(), Type.Null()]),
  disabledDate: Type.Union([Type.String(), Type.Null()]),
  currentProfileNo: Type.Integer(),
  language: Type.Union([Type.String(), Type.Null()]),
  notes: Type.String(),
  avatarUrl: Type.Union([Type.String(), Type.Null()])
}, { $id: 'AdminUser' })
export type AdminUser = Static<typeof AdminUserSchema>

/** A user by id: the list row plus the fields the edit form shows. */
export const AdminUserDetailSchema = Type.Object({
  ...AdminUserSchema.properties,
  area: Type.Array(Type.String()),
  latitude: Type.Number(),
  longitude: Type.Number(),
  communityMembership: Type.Array(Type.String()),
  areaRestriction: Type.Union([Type.Array(Type.String()), Type.Null()])
})
export type AdminUserDetail = Static<typeof AdminUserDetailSchema>

export const USER_STATUSES = ['active', 'paused', 'blocked'] as const

export const UserListQuerySchema = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 100_000, default: 1 }),
  pageSize: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  /** Matches the id exactly or by prefix, or the name anywhere (case-insensitive). */
  search: Type.Optional(Type.String({ minLength: 1, maxLength: 100, ...LOG_REDACTED })),
  type: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
  /** active: enabled and not blocked; paused: alerts stopped; blocked: admin-disabled. */
  status: Type.Optional(Type.Union(USER_STATUSES.map((s) => Type.Literal(s))))
}, { additionalProperties: false })
export type UserListQuery = Static<typeof UserListQuerySchema>

export const UserPageSchema = Type.Object({
  users: Type.Array(AdminUserSchema),
  total: Type.Integer(),
  page: Type.Integer(),
  pageSize: Type.Integer()
})

const AreaName = Type.String({ minLength: 1, maxLength: 100 })

/** The fields "update a user" writes; omitted fields stay as they are. */
export const UserUpdateSchema = Type.Object({
  name: Type.Optional(FreeText({ minLength: 1, maxLength: 255 })),
  notes: Type.Optional(FreeText({ maxLength: 255, multiline: true })),
  language: Type.Optional(Type.Union([Type.String({ pattern: '^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})?$' }), Type.Null()])),
  areaRestriction: Type.Optional(Type.Union([Type.Array(AreaName, { maxItems: 500 }), Type.Null()])),
  communityMembership: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 })),
  /** The areas of the user's active profile, written as the user's own area change is (the engine drops names it does not know). */
  area: Type.Optional(Type.Array(AreaName, { maxItems: 500 })),
  /** The location of the user's active profile. */
  location: Type.Optional(Type.Object({
    latitude: Type.Number({ minimum: -90, maximum: 90 }),
    longitude: Type.Number({ minimum: -180, maximum: 180 })
  }, { additionalProperties: false }))
}, { additionalProperties: false, minProperties: 1 })
export type UserUpdate = Static<typeof UserUpdateSchema>

export const DeletedAlarmsSchema = Type.Object({ deleted: Type.Integer() })

/** Both are typed by an admin: control and bidi characters are refused like in every other name. */
export const WebhookCreateSchema = Type.Object({
  name: FreeText({ minLength: 1, maxLength: 255, pattern: '\\S' }),
  url: FreeText({ minLength: 1, maxLength: 255, pattern: '^https?://[^\\s/?#]+[^\\s]*$' })
}, { additionalProperties: false })

/** A user's profiles with their alarm counts per type, and the areas the user may choose (admin edit screen). */
export const UserOverviewSchema = Type.Object({
  profiles: Type.Array(Type.Object({
    profileNo: Type.Integer(),
    name: Type.String(),
    active: Type.Boolean(),
    counts: Type.Record(Type.String(), Type.Integer())
  })),
  areas: Type.Array(Type.Object({ name: Type.String(), group: Type.String() }))
})
export type UserOverview = Static<typeof UserOverviewSchema>
