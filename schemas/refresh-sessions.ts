import { Type, type Static } from '@sinclair/typebox'

/**
 * The opaque refresh token as the browser holds it. Anything within these bounds is "well formed" and
 * answered 401 when unusable; the upper bound only keeps hashing and logging of junk cheap.
 */
export const OpaqueTokenSchema = Type.String({ minLength: 1, maxLength: 512 })

export const RefreshRequestSchema = Type.Object({ refreshToken: OpaqueTokenSchema }, { additionalProperties: false })
export type RefreshRequest = Static<typeof RefreshRequestSchema>

export const RefreshResponseSchema = Type.Object({
  token: Type.String({ description: 'The new service JWT' }),
  refreshToken: Type.String({ description: 'The successor opaque token; the one presented is now spent' }),
  expiresIn: Type.Integer({ description: 'Lifetime of `token` in seconds' })
})
export type RefreshResponse = Static<typeof RefreshResponseSchema>

export const RevokedSessionsSchema = Type.Object({
  revoked: Type.Integer({ description: 'Usable refresh tokens that were revoked' })
})
