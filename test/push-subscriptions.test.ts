import { runTrustingPushService } from './fakes/push-service.js'

/**
 * Push devices and sending: the cases live in test/children/push-subscriptions.ts, run in a process that
 * trusts the local push service's certificate (NODE_EXTRA_CA_CERTS is read only when Node starts).
 */
runTrustingPushService(new URL('./children/push-subscriptions.ts', import.meta.url))
