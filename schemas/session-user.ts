import { Type, type Static } from '@sinclair/typebox'
import { FreeText } from './common.js'

/** The signed-in user as the client shows it (`/api/auth/me`, Telegram sign-in): reference §2.1 UserInfo. */
export const UserInfoSchema = Type.Object({
  id: Type.String(),
  username: Type.String(),
  type: Type.String(),
  isAdmin: Type.Boolean(),
  adminDisable: Type.Boolean(),
  enabled: Type.Boolean(),
  profileNo: Type.Integer(),
  avatarUrl: Type.Union([Type.String(), Type.Null()]),
  /** Webhooks the user may manage; null for admins, who manage all of them. */
  managedWebhooks: Type.Union([Type.Array(Type.String()), Type.Null()]),
  /** Name of the active profile; null when the engine could not say. */
  profileName: Type.Union([Type.String(), Type.Null()]),
  /** A re-issued token, present only when a claim (the active profile) changed since sign-in. */
  token: Type.Optional(Type.String())
})
export type UserInfo = Static<typeof UserInfoSchema>

export const TelegramSignInSchema = Type.Object({
  token: Type.String(),
  user: UserInfoSchema
})

export const TelegramConfigSchema = Type.Object({
  enabled: Type.Boolean(),
  botUsername: Type.String()
})

export const MessageSchema = Type.Object({ message: Type.String() })

export const AlertsToggleSchema = Type.Object({ enabled: Type.Boolean() })

export const ImpersonateBodySchema = Type.Object({
  userId: FreeText({ minLength: 1, maxLength: 500 })
}, { additionalProperties: false })

export const ImpersonationTokenSchema = Type.Object({ token: Type.String() })
