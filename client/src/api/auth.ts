import type { Static } from '@sinclair/typebox'
import type { DeviceSessionsSchema, EndedSessionsSchema } from '../../../schemas/devices'
import type { AlertsToggleSchema, TelegramSignInSchema, UserInfoSchema } from '../../../schemas/session-user'
import type { ProvidersSchema } from '../../../schemas/sign-in'
import { api, publicApi } from './transport'

/** Where the sign-in buttons lead: the server redirects to the provider. */
export const OIDC_LOGIN_URL = '/api/auth/oidc/login'
export const DISCORD_LOGIN_URL = '/api/auth/discord/login'

/** The sign-in methods the site offers (outside the session). */
export const providers = async (signal?: AbortSignal): Promise<Static<typeof ProvidersSchema>> =>
  await publicApi('/api/auth/providers', { signal })

/** The signed-in user, read live. */
export const me = async (signal?: AbortSignal): Promise<Static<typeof UserInfoSchema>> => await api('/api/auth/me', { signal })

/** Pauses or resumes the caller's own alerts. */
export const toggleAlerts = async (): Promise<Static<typeof AlertsToggleSchema>> => await api('/api/auth/alerts/toggle', { method: 'POST' })

/** Exchanges the Telegram widget's signed fields for a token (outside the session). */
export const telegramVerify = async (fields: Record<string, string>): Promise<Static<typeof TelegramSignInSchema>> =>
  await publicApi('/api/auth/telegram/verify', { method: 'POST', json: fields })

/** The caller's signed-in sessions, most recently used first. */
export const sessions = async (signal?: AbortSignal): Promise<Static<typeof DeviceSessionsSchema>> => await api('/api/auth/sessions', { signal })

export const endSession = async (id: string): Promise<Static<typeof EndedSessionsSchema>> =>
  await api(`/api/auth/sessions/${encodeURIComponent(id)}`, { method: 'DELETE' })

/** Ends every session of the caller but this one. */
export const endOtherSessions = async (): Promise<Static<typeof EndedSessionsSchema>> =>
  await api('/api/auth/sessions?others=true', { method: 'DELETE' })
