import { runTrustingPushService } from '../test/fakes/push-service.js'

/**
 * Push alerts under a scanner burst (bench/push-run.ts does the work): run in a process that trusts the
 * local push service's certificate, as the tests do.
 *
 *   npm run bench:push
 *   BENCH_MEMBERS=1000 BENCH_RATE=200 BENCH_SECONDS=10 npm run bench:push
 */
runTrustingPushService(new URL('./push-run.ts', import.meta.url))
