import type { Static } from '@sinclair/typebox'
import type {
  DeliveryModeSchema, DeliveryModesSchema, PushDevicesSchema, PushKeySchema, PushSubscribeSchema, PushSubscriptionChangeSchema,
  PushSubscriptionCreatedSchema, PushTestResultSchema, PushTestSchema
} from '../../../schemas/push'
import { api, segment } from './transport'

/** Push alerts on this device (docs/push.md); every call is a 404 while the site offers no push. */

export const key = async (signal?: AbortSignal): Promise<Static<typeof PushKeySchema>> => await api('/api/push/key', { signal })

export const devices = async (signal?: AbortSignal): Promise<Static<typeof PushDevicesSchema>> => await api('/api/push/subscriptions', { signal })

export const subscribe = async (subscription: Static<typeof PushSubscribeSchema>): Promise<Static<typeof PushSubscriptionCreatedSchema>> =>
  await api('/api/push/subscriptions', { method: 'POST', json: subscription })

export const change = async (id: number, patch: Static<typeof PushSubscriptionChangeSchema>): Promise<void> => {
  await api(`/api/push/subscriptions/${segment(id)}`, { method: 'PATCH', json: patch })
}

export const remove = async (id: number): Promise<void> => { await api(`/api/push/subscriptions/${segment(id)}`, { method: 'DELETE' }) }

export const test = async (id: number, text: Static<typeof PushTestSchema>): Promise<Static<typeof PushTestResultSchema>> =>
  await api(`/api/push/subscriptions/${segment(id)}/test`, { method: 'POST', json: text })

export const delivery = async (signal?: AbortSignal): Promise<Static<typeof DeliveryModesSchema>> => await api('/api/push/delivery', { signal })

export const setDelivery = async (profileNo: number, mode: Static<typeof DeliveryModeSchema>): Promise<void> => {
  await api('/api/push/delivery', { method: 'PUT', json: { profileNo, mode } })
}
