import type { Static } from '@sinclair/typebox'
import type {
  AdminUserDetailSchema, AdminUserSchema, DeletedAlarmsSchema, UserListQuerySchema, UserOverviewSchema, UserPageSchema, UserUpdateSchema, WebhookCreateSchema
} from '../../../schemas/admin-users'
import type { AuditPageSchema, AuditQuerySchema } from '../../../schemas/audit'
import type { DelegateListSchema, WebhookWithDelegatesSchema } from '../../../schemas/delegates'
import type { IconSetCheckSchema } from '../../../schemas/icon-sets'
import type { AlarmsInsightSchema, AreaInsightSchema, AreasInsightSchema, MembersInsightSchema, NoiseInsightSchema, SignInsInsightSchema } from '../../../schemas/insights'
import type { RevokedSessionsSchema } from '../../../schemas/refresh-sessions'
import type { ServerProfileSchema } from '../../../schemas/server-profile'
import type { ImpersonationTokenSchema } from '../../../schemas/session-user'
import { api, segment, withQuery, type Query } from './transport'

type UserDetail = Static<typeof AdminUserDetailSchema>

/* Engine users, read and changed by administrators. */

export const users = async (query: Static<typeof UserListQuerySchema>, signal?: AbortSignal): Promise<Static<typeof UserPageSchema>> =>
  await api(withQuery('/api/admin/users', query), { signal })

export const user = async (id: string, signal?: AbortSignal): Promise<UserDetail> => await api(withQuery('/api/admin/users/by-id', { id }), { signal })

/** What the user has set up: alarms per type and profile. */
export const userOverview = async (id: string, signal?: AbortSignal): Promise<Static<typeof UserOverviewSchema>> =>
  await api(withQuery('/api/admin/users/overview', { id }), { signal })

export const updateUser = async (id: string, patch: Static<typeof UserUpdateSchema>): Promise<UserDetail> =>
  await api(withQuery('/api/admin/users', { id }), { method: 'PATCH', json: patch })

/** `disable`/`enable` block the account; `pause`/`resume` its alerts. */
export const setUserState = async (id: string, action: 'disable' | 'enable' | 'pause' | 'resume'): Promise<UserDetail> =>
  await api(withQuery(`/api/admin/users/${action}`, { id }), { method: 'PUT' })

export const deleteUserAlarms = async (id: string): Promise<Static<typeof DeletedAlarmsSchema>> =>
  await api(withQuery('/api/admin/users/alarms', { id }), { method: 'DELETE' })

/** The user and everything of theirs. */
export const deleteUser = async (id: string): Promise<void> => { await api(withQuery('/api/admin/users', { id }), { method: 'DELETE' }) }

/** Ends every sign-in of the user. */
export const revokeSessions = async (id: string): Promise<Static<typeof RevokedSessionsSchema>> =>
  await api(withQuery('/api/admin/users/sessions', { id }), { method: 'DELETE' })

/** A token to view the site as the user. */
export const impersonate = async (userId: string): Promise<Static<typeof ImpersonationTokenSchema>> =>
  await api('/api/admin/impersonate', { method: 'POST', json: { userId } })

/* Webhooks and the people allowed to manage them. */

export const webhooks = async (signal?: AbortSignal): Promise<Array<Static<typeof WebhookWithDelegatesSchema>>> => await api('/api/admin/webhooks', { signal })

export const createWebhook = async (body: Static<typeof WebhookCreateSchema>): Promise<UserDetail> =>
  await api('/api/admin/webhooks', { method: 'POST', json: body })

/** Lets `userId` manage the webhook; answers the webhook's delegates. */
export const grantDelegate = async (webhookId: string, userId: string): Promise<Static<typeof DelegateListSchema>> =>
  await api('/api/admin/webhook-delegates', { method: 'POST', json: { webhookId, userId } })

export const revokeDelegate = async (webhookId: string, userId: string): Promise<Static<typeof DelegateListSchema>> =>
  await api('/api/admin/webhook-delegates', { method: 'DELETE', json: { webhookId, userId } })

/** The webhooks the caller may manage. */
export const myWebhooks = async (signal?: AbortSignal): Promise<Array<Static<typeof AdminUserSchema>>> => await api('/api/admin/my-webhooks', { signal })

/* The site. */

export const audit = async (query: Query<Static<typeof AuditQuerySchema>>, signal?: AbortSignal): Promise<Static<typeof AuditPageSchema>> =>
  await api(withQuery('/api/admin/audit', query), { signal })

/** `refresh` reads the engine again instead of the cached profile. */
export const serverProfile = async (refresh: boolean, signal?: AbortSignal): Promise<Static<typeof ServerProfileSchema>> =>
  await api(refresh ? '/api/admin/server-profile?refresh=true' : '/api/admin/server-profile', { signal })

/** Does an icon set answer with an index, and which categories it has. */
export const checkIconSet = async (url: string): Promise<Static<typeof IconSetCheckSchema>> =>
  await api('/api/admin/icon-sets/check', { method: 'POST', json: { url } })

/* Community insight: one site-wide copy per panel, at most 10 minutes old. */

export interface InsightPanels {
  members: Static<typeof MembersInsightSchema>
  alarms: Static<typeof AlarmsInsightSchema>
  areas: Static<typeof AreasInsightSchema>
  noise: Static<typeof NoiseInsightSchema>
  'sign-ins': Static<typeof SignInsInsightSchema>
}

export const insight = async <P extends keyof InsightPanels>(panel: P, signal?: AbortSignal): Promise<InsightPanels[P]> =>
  await api(`/api/admin/insights/${panel}`, { signal })

/** One area of the insights map: its members and the pokémon they track most. */
export const areaInsight = async (name: string, signal?: AbortSignal): Promise<Static<typeof AreaInsightSchema>> =>
  await api(`/api/admin/insights/areas/${segment(name)}`, { signal })
