/** Shapes of the API answers the client reads (the server's TypeBox schemas are the source of truth). */
import type { Static } from '@sinclair/typebox'
import type { SiteSettingSchema } from '../../schemas/settings'

export interface Providers {
  oidc: { configured: boolean, enabledByAdmin: boolean, providerName: string, endSession: boolean, refresh: boolean }
  discord: { configured: boolean, enabledByAdmin: boolean }
  telegram: { configured: boolean, enabledByAdmin: boolean, botUsername: string }
}

export interface User {
  id: string
  username: string
  type: string
  isAdmin: boolean
  /** Blocked by an administrator (seen only while impersonating). */
  adminDisable: boolean
  /** Alerts are delivered (false: paused). */
  enabled: boolean
  profileNo: number
  avatarUrl: string | null
  managedWebhooks: string[] | null
  profileName: string | null
  /** A re-issued JWT, present when the active profile changed outside this site. */
  token?: string
}

export interface Profile {
  id: string
  profileNo: number
  name: string
  area: string
  latitude: number
  longitude: number
  active: boolean
  activeHours: string
}

/** A site setting as GET /api/settings lists it: the server's schema, read as a type only. */
export type SiteSetting = Static<typeof SiteSettingSchema>
