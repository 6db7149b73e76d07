/** Shapes of the API answers the client reads (the server's TypeBox schemas are the source of truth). */

export interface Providers {
  oidc: { configured: boolean, enabledByAdmin: boolean, providerName: string, endSession: boolean, refresh: boolean }
  discord: { configured: boolean, enabledByAdmin: boolean }
  telegram: { configured: boolean, enabledByAdmin: boolean, botUsername: string }
}

export interface User {
  id: string
  username: string
  isAdmin: boolean
  avatarUrl: string | null
  profileName: string | null
  /** A re-issued JWT, present when the active profile changed outside this site. */
  token?: string
}
