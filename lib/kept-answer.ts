import type { NowSource } from './ttl-cache.js'

export interface Kept<V> {
  value: V
  /** When the value was computed (milliseconds, the clock's scale). */
  computedAt: number
}

/**
 * One answer shared by every caller, computed at most once per `freshMs` (stale-while-revalidate):
 * - none yet: the first caller computes it and concurrent callers wait for that same computation;
 * - younger than `freshMs`: answered as kept;
 * - older: answered as kept at once, while one computation in the background replaces it. A failed
 *   background computation keeps the old answer (reported to `onError`) and the next call tries again.
 * No caller ever waits for a refresh, so an expensive answer costs its computation time only once.
 */
export class KeptAnswer<V> {
  private kept: Kept<V> | undefined
  private running: Promise<Kept<V>> | undefined

  constructor (
    private readonly clock: NowSource,
    private readonly freshMs: number,
    private readonly compute: () => Promise<V>,
    private readonly onError: (err: unknown) => void
  ) {}

  async get (): Promise<Kept<V>> {
    const kept = this.kept
    if (kept === undefined) return await this.refresh()
    if (this.clock.now() - kept.computedAt >= this.freshMs) this.refresh().catch(this.onError)
    return kept
  }

  /** Forgets the answer: the next call computes a new one (and waits for it). */
  clear (): void { this.kept = undefined }

  private async refresh (): Promise<Kept<V>> {
    this.running ??= (async () => {
      const computedAt = this.clock.now()
      const value = await this.compute()
      this.kept = { value, computedAt }
      return this.kept
    })().finally(() => { this.running = undefined })
    return await this.running
  }
}
