import { Type, type Static } from '@sinclair/typebox'
import { BoundedInteger, FreeText } from './common.js'

export const AuditQuerySchema = Type.Object({
  actor: Type.Optional(FreeText({ minLength: 1, maxLength: 255, description: 'Only entries by this admin (user id)' })),
  target: Type.Optional(FreeText({ minLength: 1, maxLength: 500, description: 'Only entries about this target (user id, webhook, fence id)' })),
  action: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9._-]+$', description: 'Only this action (user.block, impersonation.start, ...)' })),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Entries at or after this time' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Entries at or before this time' })),
  before: Type.Optional(BoundedInteger({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'The previous page\'s nextCursor' })),
  limit: Type.Optional(BoundedInteger({ minimum: 1, maximum: 200, default: 50 }))
}, { additionalProperties: false })
export type AuditQueryInput = Static<typeof AuditQuerySchema>

export const AuditEntrySchema = Type.Object({
  id: Type.Integer(),
  at: Type.String({ format: 'date-time' }),
  actorId: Type.String(),
  action: Type.String(),
  target: Type.Union([Type.String(), Type.Null()]),
  details: Type.Unknown({ description: 'What changed: the request\'s query and body with secrets redacted, and notes of the handler' }),
  requestId: Type.String(),
  status: Type.Integer()
})

export const AuditPageSchema = Type.Object({
  entries: Type.Array(AuditEntrySchema),
  nextCursor: Type.Union([Type.Integer(), Type.Null()], { description: 'Pass as `before` for the next (older) page; null on the last page' })
})
