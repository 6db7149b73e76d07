import { Type, type Static } from '@sinclair/typebox'
import { AdminUserSchema, UserIdSchema } from './admin-users.js'
import { LOG_REDACTED } from './common.js'

/** A webhook id is its URL, up to the delegates table's 500 characters. */
export const WebhookIdSchema = Type.String({ minLength: 1, maxLength: 500, ...LOG_REDACTED })

export const DelegateGrantSchema = Type.Object({
  webhookId: WebhookIdSchema,
  userId: Type.String({ minLength: 1, maxLength: 100 })
}, { additionalProperties: false })

export const DelegateListSchema = Type.Array(UserIdSchema)
export const DelegateMapSchema = Type.Record(Type.String(), Type.Array(Type.String()))

/** A delegate as the admin sees it: the engine user's name, or null when the account no longer exists. */
export const NamedDelegateSchema = Type.Object({
  id: Type.String(),
  name: Type.Union([Type.String(), Type.Null()])
})
export type NamedDelegate = Static<typeof NamedDelegateSchema>

/** One webhook of the admin's webhook list: the user row plus who may manage it. */
export const WebhookWithDelegatesSchema = Type.Object({
  ...AdminUserSchema.properties,
  delegates: Type.Array(NamedDelegateSchema)
})
