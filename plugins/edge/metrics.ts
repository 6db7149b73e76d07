import { createHash, timingSafeEqual } from 'node:crypto'
import fp from 'fastify-plugin'
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { FastifyInstance } from 'fastify'
import type { Pool } from 'mariadb'
import { peerCallSeconds, type PeerOutcome } from '../../lib/peer-calls.js'
import { RefreshRefused } from '../../schemas/refusals.js'
import { ERRORS } from '../../schemas/errors.js'

/** What a refresh came to, as operators count them (the log keeps the precise reason). */
export type RefreshOutcome = 'rotated' | 'replay' | 'expired' | 'revoked' | 'unknown' | 'postponed' | 'error'

/** A refusal's reason (see REASON in refresh-sessions.ts) as one of the counted outcomes. */
export function refreshOutcomeOf (error: unknown): RefreshOutcome {
  if (error instanceof ERRORS.EngineUnavailable) return 'postponed'
  if (!(error instanceof RefreshRefused)) return 'error'
  switch (error.reason) {
    case 'replay_detected': return 'replay'
    case 'expired':
    case 'absolute_cap': return 'expired'
    case 'unknown_token':
    case 'feature_off': return 'unknown'
    default: return 'revoked'
  }
}

/** Compares two secrets in constant time whatever their lengths (both are hashed to 32 bytes first). */
export function sameToken (expected: string, given: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest()
  return timingSafeEqual(digest(expected), digest(given))
}

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

function createMetrics (fastify: FastifyInstance) {
  const token = fastify.config.METRICS_TOKEN
  const pools = new Map<string, Pool>()

  if (token === '') {
    // Off: nothing is measured, and every hook below is a no-op.
    return {
      enabled: false as boolean,
      registry: null as Registry | null,
      authorized: (_authorization: string | undefined): boolean => false,
      peerCall: (_peer: string, _outcome: PeerOutcome, _seconds: number): void => {},
      refreshOutcome: <T>(work: Promise<T>): Promise<T> => work,
      watchPool: (_name: string, _pool: Pool): void => {}
    }
  }

  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  registry.registerMetric(peerCallSeconds)
  const requests = new Histogram({
    name: 'alarm_web_http_request_duration_seconds',
    help: 'Answered requests by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: SECONDS_BUCKETS,
    registers: [registry]
  })
  const rateLimited = new Counter({
    name: 'alarm_web_rate_limit_refusals_total',
    help: 'Requests refused with 429 by a rate-limit policy, by route pattern',
    labelNames: ['route'] as const,
    registers: [registry]
  })
  const refreshes = new Counter({
    name: 'alarm_web_refresh_total',
    help: 'Refresh-session renewals by outcome (rotated, replay, expired, revoked, unknown, error)',
    labelNames: ['outcome'] as const,
    registers: [registry]
  })
  // Read when scraped: the pools keep these numbers themselves.
  const poolGauge = (name: string, help: string, read: (pool: Pool) => number) => new Gauge({
    name,
    help,
    labelNames: ['pool'] as const,
    registers: [registry],
    collect () {
      for (const [label, pool] of pools) this.set({ pool: label }, read(pool))
    }
  })
  poolGauge('alarm_web_db_pool_active_connections', 'MariaDB connections in use, by pool', (p) => p.activeConnections())
  poolGauge('alarm_web_db_pool_idle_connections', 'MariaDB connections open and idle, by pool', (p) => p.idleConnections())
  poolGauge('alarm_web_db_pool_waiting_requests', 'Requests waiting for a MariaDB connection, by pool', (p) => p.taskQueueSize())

  fastify.addHook('onResponse', async (request, reply) => {
    // The route pattern (`/api/:type/:uid`), never the raw URL: one series per route, not per user or id.
    const route = request.routeOptions.url ?? 'unmatched'
    requests.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000)
    if (reply.statusCode === 429) rateLimited.inc({ route })
  })

  return {
    enabled: true as boolean,
    registry: registry as Registry | null,
    /** `Authorization: Bearer <METRICS_TOKEN>`, compared in constant time. */
    authorized: (authorization: string | undefined): boolean =>
      typeof authorization === 'string' && authorization.startsWith('Bearer ') && sameToken(token, authorization.slice(7)),
    /** A call to another service, for clients that do not go through lib/peer-calls.ts's timer. */
    peerCall: (peer: string, outcome: PeerOutcome, seconds: number): void => { peerCallSeconds.observe({ peer, outcome }, seconds) },
    /** Counts what a renewal came to and hands its result or error on unchanged. */
    refreshOutcome: async <T>(work: Promise<T>): Promise<T> => {
      try {
        const result = await work
        refreshes.inc({ outcome: 'rotated' })
        return result
      } catch (error) {
        refreshes.inc({ outcome: refreshOutcomeOf(error) })
        throw error
      }
    },
    /** Reports the pool's connections on every scrape (openPool calls this for every pool of the app). */
    watchPool: (name: string, pool: Pool): void => { pools.set(name, pool) }
  }
}

export type Metrics = ReturnType<typeof createMetrics>

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics
  }
}

/**
 * Prometheus metrics (prom-client), on when METRICS_TOKEN is set: requests by route pattern and status,
 * calls to other services, refresh outcomes, rate-limit refusals, pool use, memory and event-loop lag.
 * Served by routes/metrics/.
 */
export default fp(async (fastify) => {
  fastify.decorate('metrics', createMetrics(fastify))
}, { name: 'metrics', fastify: '5.x', dependencies: ['config'] })
