import { Redis, type RedisOptions } from 'ioredis'

export interface LinkLog {
  warn: (details: Record<string, unknown>, message: string) => void
}

/** The longest pause between two reconnection attempts while Redis is away. */
const RECONNECT_MAX_MS = 2_000

/**
 * Options that make every command fail at once while Redis is away, so its caller falls back without
 * waiting: no offline queue (a command while disconnected is refused immediately), no retries per
 * command, a short connect timeout, and a command timeout for a Redis that holds the connection but
 * does not answer. Reconnection never gives up (ioredis' default stops after its retries per request).
 */
export const FAIL_FAST: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  connectTimeout: 2_000,
  commandTimeout: 100,
  retryStrategy: (attempt: number) => Math.min(50 * 2 ** Math.min(attempt, 6), RECONNECT_MAX_MS)
}

/**
 * The Redis connections of one feature (rate limits, cache eviction) and their health: one warning
 * when Redis is lost (or cannot be reached at start) and one when every connection is back, instead
 * of an error line per reconnection attempt. Connections reconnect by themselves.
 */
export class RedisLink {
  private readonly connections: Redis[] = []
  private state: 'starting' | 'up' | 'down' = 'starting'
  private closing = false

  constructor (private readonly url: string, private readonly feature: string, private readonly fallback: string, private readonly log: LinkLog) {}

  /** A new connection of this feature; `options` override FAIL_FAST (a subscriber keeps its queue). */
  open (options: RedisOptions = {}): Redis {
    const redis = new Redis(this.url, { ...FAIL_FAST, ...options })
    // Every failed attempt emits 'error'; without a listener ioredis prints each one to stderr.
    redis.on('error', () => { this.lost() })
    redis.on('close', () => { this.lost() })
    redis.on('ready', () => { this.ready() })
    this.connections.push(redis)
    return redis
  }

  /** Whether every connection of the feature can take commands now. */
  get up (): boolean {
    return this.connections.every((c) => c.status === 'ready')
  }

  private lost (): void {
    if (this.closing || this.state === 'down') return
    this.log.warn({ feature: this.feature }, `Redis ${this.state === 'starting' ? 'is unreachable' : 'connection lost'}: ${this.feature} ${this.fallback} until it is back`)
    this.state = 'down'
  }

  private ready (): void {
    if (this.closing || !this.up) return
    if (this.state === 'down') this.log.warn({ feature: this.feature }, `Redis is back: ${this.feature} shared between instances again`)
    this.state = 'up'
  }

  async close (): Promise<void> {
    this.closing = true
    // QUIT would wait in a subscriber's offline queue for a Redis that may never come back.
    await Promise.all(this.connections.map(async (c) => {
      if (c.status === 'ready') await c.quit().catch(() => { c.disconnect() })
      else c.disconnect()
    }))
  }
}
