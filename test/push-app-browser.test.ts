import { runTrustingPushService } from './fakes/push-service.js'

/**
 * The installable app in Chromium: installability, the offline shell, the service worker's notifications,
 * and "Alerts on this device" delivering a real test push. The cases live in
 * test/children/push-app-browser.ts, run in a process that trusts the local push service's certificate.
 */
runTrustingPushService(new URL('./children/push-app-browser.ts', import.meta.url))
