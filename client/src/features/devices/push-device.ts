import type { Static } from '@sinclair/typebox'
import type { PushSubscribeSchema } from '../../../../schemas/push'
import { push } from '../../api'

/**
 * This browser's side of push alerts: what it supports, and its subscription at its push service,
 * stored with the site (docs/push.md).
 */
export type Support = 'ready' | 'unsupported' | 'ios-not-installed'

const isIos = (): boolean => /iPad|iPhone|iPod/.test(navigator.userAgent) || (navigator.platform === 'MacIntel' && navigator.maxTouchPoints > 1)
const standalone = (): boolean => window.matchMedia('(display-mode: standalone)').matches

export function support (): Support {
  if ('serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window) return 'ready'
  // Safari on iOS offers push only to a site opened from the Home Screen (iOS 16.4 and later).
  return isIos() && !standalone() ? 'ios-not-installed' : 'unsupported'
}

/** The VAPID key as the bytes PushManager.subscribe takes. */
function keyBytes (base64url: string): Uint8Array<ArrayBuffer> {
  const text = atob(base64url.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (base64url.length % 4)) % 4))
  return Uint8Array.from(text, (c) => c.charCodeAt(0))
}

/**
 * Subscribes this browser with the site's key and stores the subscription with the site, in this
 * device's time zone. Only after the member's tap: the permission question comes from here.
 * 'denied' and 'dismissed' say why nothing was subscribed.
 */
export async function subscribeThisDevice (): Promise<'subscribed' | 'denied' | 'dismissed'> {
  const permission = await Notification.requestPermission()
  if (permission === 'denied') return 'denied'
  if (permission !== 'granted') return 'dismissed'
  const [{ publicKey }, registration] = await Promise.all([push.key(), navigator.serviceWorker.ready])
  const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) })
  const { endpoint, keys } = subscription.toJSON()
  await push.subscribe({ endpoint, keys } as Static<typeof PushSubscribeSchema>)
  return 'subscribed'
}

/** Ends push on this device: with the site, and at the push service. */
export async function unsubscribeThisDevice (id: number): Promise<void> {
  await push.remove(id)
  const registration = await navigator.serviceWorker.getRegistration()
  await (await registration?.pushManager.getSubscription())?.unsubscribe()
}

/** The device's own IANA time zone, for its quiet hours. */
export const timeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone
