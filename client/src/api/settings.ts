import type { Static } from '@sinclair/typebox'
import type { SettingWriteSchema, SiteSettingSchema } from '../../../schemas/settings'
import type { OidcConfigSchema } from '../../../schemas/sign-in'
import { api, publicApi, segment } from './transport'

type SiteSetting = Static<typeof SiteSettingSchema>

export const list = async (signal?: AbortSignal): Promise<SiteSetting[]> => await api('/api/settings', { signal })

/** The settings anyone may read (branding), outside the session. */
export const listPublic = async (): Promise<SiteSetting[]> => await publicApi('/api/settings/public')

export const save = async (key: string, body: Static<typeof SettingWriteSchema>): Promise<SiteSetting> =>
  await api(`/api/settings/${segment(key)}`, { method: 'PUT', json: body })

/** The disable keys the alarm engine switches off, whatever the site says. */
export const upstreamDisabled = async (signal?: AbortSignal): Promise<string[]> => await api('/api/settings/upstream-disabled', { signal })

export const oidcConfig = async (signal?: AbortSignal): Promise<Static<typeof OidcConfigSchema>> => await api('/api/settings/oidc-config', { signal })
