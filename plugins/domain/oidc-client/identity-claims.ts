import type { Config } from '../../../schemas/config.js'
import { SignInError } from '../../../schemas/refusals.js'

/**
 * Who a provider's userinfo says the user is, in the words `identity.signIn` takes (so the sign-in and
 * a renewal hand it over as it is), with the provider's subject beside them.
 */
export interface MappedIdentity {
  /** The engine user id: the OIDC_IDENTITY_CLAIM claim, else `sub`. */
  userId: string
  /** The provider's `sub`, or the user id when the provider sends none. */
  subject: string
  username?: string
  avatarUrl?: string
}

/** A claim usable as an id or a name: a non-blank string or a finite number, as text. */
function claimText (value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim()
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  return undefined
}

/**
 * OIDC_IDENTITY_CLAIM else `sub` (text or number), the display name from OIDC_USERNAME_CLAIM and an
 * http(s) avatar from OIDC_AVATAR_CLAIM. Throws SignInError('oidc_no_identity') when neither id claim is there.
 */
export function mapIdentity (config: Config, userinfo: Record<string, unknown>): MappedIdentity {
  const subject = claimText(userinfo.sub)
  const userId = claimText(userinfo[config.OIDC_IDENTITY_CLAIM]) ?? subject
  if (userId === undefined) throw new SignInError('oidc_no_identity')
  const username = claimText(userinfo[config.OIDC_USERNAME_CLAIM])
  const avatar = userinfo[config.OIDC_AVATAR_CLAIM]
  const avatarUrl = typeof avatar === 'string' && /^https?:\/\/\S+$/i.test(avatar) ? avatar : undefined
  return {
    userId,
    subject: subject ?? userId,
    ...(username !== undefined && { username }),
    ...(avatarUrl !== undefined && { avatarUrl })
  }
}
