import { Histogram } from 'prom-client'

/**
 * Calls to the services this one depends on (the alarm engine, the identity provider, Koji, the
 * geocoder, ...), timed by the code that makes them. One histogram for the process, outside any
 * registry: the metrics plugin of an app that exports metrics registers it, and a call made while no app
 * does costs one bucket increment.
 */
export const peerCallSeconds = new Histogram({
  name: 'alarm_web_peer_call_duration_seconds',
  help: 'Calls to other services by peer and outcome (ok, http_4xx, http_5xx, timeout, unreachable, too_large)',
  labelNames: ['peer', 'outcome'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: []
})

export type PeerOutcome = 'ok' | 'http_4xx' | 'http_5xx' | 'timeout' | 'unreachable' | 'too_large'

/** An answered call's outcome by its HTTP status; 1xx/3xx count as answers like 2xx. */
export const outcomeOf = (status: number): PeerOutcome => status >= 500 ? 'http_5xx' : status >= 400 ? 'http_4xx' : 'ok'

/**
 * Starts timing one call to `peer`; the returned function ends it with the HTTP status of the answer,
 * or with `timeout` / `unreachable` when none came, `too_large` when it was cut off at the size limit.
 */
export function startPeerCall (name: string): (result: number | 'timeout' | 'unreachable' | 'too_large') => void {
  const started = performance.now()
  const peer = name.toLowerCase()
  return (result) => {
    peerCallSeconds.observe({ peer, outcome: typeof result === 'number' ? outcomeOf(result) : result }, (performance.now() - started) / 1000)
  }
}
