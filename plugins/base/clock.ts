import fp from 'fastify-plugin'

/**
 * The service's notion of "now". Every time-dependent rule (JWT expiry, caches, refresh rows,
 * Telegram auth_date, cleanup) reads it, and SQL takes "now" as a parameter, so tests can move time.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

/** A clock tests can set and advance. */
export class ManualClock implements Clock {
  constructor (private current = Date.now()) {}
  now (): number { return this.current }
  set (ms: number): void { this.current = ms }
  advance (ms: number): void { this.current += ms }
}

declare module 'fastify' {
  interface FastifyInstance {
    clock: Clock
  }
}

export default fp<{ clock?: Clock }>(async (fastify, opts) => {
  fastify.decorate('clock', opts.clock ?? systemClock)
}, { name: 'clock', fastify: '5.x' })
