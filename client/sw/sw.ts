import { clientsClaim } from 'workbox-core'
import { cleanupOutdatedCaches, createHandlerBoundToURL, precacheAndRoute } from 'workbox-precaching'
import { NavigationRoute, registerRoute } from 'workbox-routing'

/**
 * The installed app's service worker (vite-plugin-pwa, injectManifest; docs/push.md):
 * - the app shell (index.html, scripts, styles, icons) precached by Workbox, so the app opens offline;
 * - navigations to the client's pages answered with that index.html, but never the server's own pages
 *   (`/api/*` with the sign-in redirects, `/metrics`, a shared set's `/s/<token>` with its link-preview
 *   head): those always go to the network. Nothing else is cached, API answers above all;
 * - a new version waits until the member taps "Reload" (the page posts SKIP_WAITING);
 * - a push shows the notification the server sent; a tap on it opens its link.
 */
declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: Array<string | { url: string, revision: string | null }> }

cleanupOutdatedCaches()
precacheAndRoute(self.__WB_MANIFEST)
registerRoute(new NavigationRoute(createHandlerBoundToURL('/index.html'), { denylist: [/^\/api(\/|$)/, /^\/metrics(\/|$)/, /^\/s\//] }))
clientsClaim()

self.addEventListener('message', (event) => {
  if ((event.data as { type?: unknown } | null)?.type === 'SKIP_WAITING') void self.skipWaiting()
})

/** What the server sends (plugins/domain/push-alerts.ts, routes/push): kind is alert, rate-limited or test. */
interface PushPayload { kind?: string, title?: string, body?: string, tag?: string, url?: string }

function payloadOf (data: PushMessageData | null): PushPayload {
  try {
    const value: unknown = data?.json()
    return typeof value === 'object' && value !== null ? value as PushPayload : {}
  } catch {
    return { body: data?.text() ?? '' }
  }
}

self.addEventListener('push', (event) => {
  const payload = payloadOf(event.data)
  const options: NotificationOptions = {
    body: payload.body ?? '',
    icon: '/icons/icon-192.png',
    badge: '/icons/icon-192.png',
    data: { url: payload.url ?? '/' }
  }
  if (payload.tag !== undefined) options.tag = payload.tag
  // A push must show a notification (userVisibleOnly): one without a title still gets the site's name.
  event.waitUntil(self.registration.showNotification(payload.title ?? self.location.hostname, options))
})

/**
 * A tap: the link in an open window of the app (the one tapped from, on a phone: brought to the front),
 * else in a new one. A map link leaves the app in its window; the app's back button returns.
 */
self.addEventListener('notificationclick', (event) => {
  event.notification.close()
  const url = new URL(String((event.notification.data as { url?: unknown } | null)?.url ?? '/'), self.location.origin).href
  event.waitUntil((async () => {
    // Only a window this worker controls can be sent elsewhere.
    const windows = await self.clients.matchAll({ type: 'window' })
    const open = windows.find((client) => client.focused) ?? windows[0]
    if (open === undefined) {
      await self.clients.openWindow(url)
      return
    }
    if (open.url !== url) await open.navigate(url)
    // Focusing needs the tap's permission, which a browser may have let lapse: the window has the link either way.
    await open.focus().catch(() => undefined)
  })())
})
