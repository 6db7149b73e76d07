import { Type, type Static } from '@sinclair/typebox'

export const DeviceSessionSchema = Type.Object({
  id: Type.String({ description: 'What DELETE /api/auth/sessions/{id} takes' }),
  kind: Type.Union([Type.Literal('refresh'), Type.Literal('token')], { description: 'refresh: a renewable SSO session; token: a sign-in that ends when its token expires' }),
  device: Type.Union([Type.String(), Type.Null()], { description: 'Browser and system, from the user agent' }),
  firstUsedAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.String({ format: 'date-time' }),
  expiresAt: Type.String({ format: 'date-time' }),
  network: Type.Union([Type.String(), Type.Null()], { description: 'The /24 or /48 last used from, when the operator shows it (SESSIONS_SHOW_NETWORK)' }),
  current: Type.Boolean({ description: 'The session of this request' })
})
export type DeviceSession = Static<typeof DeviceSessionSchema>

export const DeviceSessionsSchema = Type.Object({ sessions: Type.Array(DeviceSessionSchema) })

export const SessionIdParamsSchema = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9.-]+$' }) })

export const EndOthersQuerySchema = Type.Object({ others: Type.Literal('true', { description: 'Required: ends every session but this one' }) })

export const EndedSessionsSchema = Type.Object({ ended: Type.Integer({ minimum: 0 }) })
