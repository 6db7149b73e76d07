/** Shapes of the API answers the client reads (the server's TypeBox schemas are the source of truth). */
import type { Static } from '@sinclair/typebox'
import type { ProfileSchema } from '../../schemas/profiles'
import type { UserInfoSchema } from '../../schemas/session-user'
import type { SiteSettingSchema } from '../../schemas/settings'
import type { ProvidersSchema } from '../../schemas/sign-in'

/** GET /api/auth/providers: the sign-in methods the site offers. */
export type Providers = Static<typeof ProvidersSchema>

/** GET /api/auth/me: the signed-in user, with a re-issued token when the active profile changed. */
export type User = Static<typeof UserInfoSchema>

/** A profile as GET /api/profiles lists it. */
export type Profile = Static<typeof ProfileSchema>

/** A site setting as GET /api/settings lists it: the server's schema, read as a type only. */
export type SiteSetting = Static<typeof SiteSettingSchema>
