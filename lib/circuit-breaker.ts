import type { NowSource } from './ttl-cache.js'

/**
 * A small circuit breaker for one upstream: after a transport failure (no answer in time, no connection)
 * it is open for `openMs`, and callers fail at once instead of queueing more calls behind a dead peer.
 * Then one trial call is let through; its answer closes the breaker, its failure opens it again.
 * An answer of any kind (an error status included) counts as success: the peer is up.
 */
export class CircuitBreaker {
  private state: 'closed' | 'open' | 'trial' = 'closed'
  private openUntil = 0

  constructor (private readonly clock: NowSource, readonly openMs: number) {}

  /** Whether a call may go out now; false means "fail fast". */
  allow (): boolean {
    if (this.state === 'closed' || this.openMs <= 0) return true
    if (this.state === 'trial' || this.clock.now() < this.openUntil) return false
    this.state = 'trial'
    return true
  }

  /** The upstream answered. */
  succeeded (): void { this.state = 'closed' }

  /** The upstream did not answer: open (again). */
  failed (): void {
    this.state = 'open'
    this.openUntil = this.clock.now() + this.openMs
  }

  /**
   * A call gave up early on a budget of its own: that says nothing about the upstream, unless it was
   * the trial call, which must not leave the breaker waiting for an answer that will never come.
   */
  gaveUp (): void {
    if (this.state === 'trial') this.failed()
  }
}
