import { Type } from '@sinclair/typebox'
import { UserIdSchema } from './admin-users.js'

/** A webhook id is its URL, up to the delegates table's 500 characters. */
export const WebhookIdSchema = Type.String({ minLength: 1, maxLength: 500 })

export const DelegateGrantSchema = Type.Object({
  webhookId: WebhookIdSchema,
  userId: Type.String({ minLength: 1, maxLength: 100 })
}, { additionalProperties: false })

export const DelegateListSchema = Type.Array(UserIdSchema)
export const DelegateMapSchema = Type.Record(Type.String(), Type.Array(Type.String()))
