import { runTrustingPushService } from './fakes/push-service.js'

/**
 * Push alerts on two instances behind a real nginx. The cases live in test/children/push-scale-out.ts,
 * run in a process that trusts the local push service's certificate.
 */
runTrustingPushService(new URL('./children/push-scale-out.ts', import.meta.url))
