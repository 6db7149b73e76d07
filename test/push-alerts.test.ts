import { runTrustingPushService } from './fakes/push-service.js'

/**
 * Alerts to push: the scanner feed and PoracleNG's validation hook. The cases live in
 * test/children/push-alerts.ts, run in a process that trusts the local push service's certificate.
 */
runTrustingPushService(new URL('./children/push-alerts.ts', import.meta.url))
