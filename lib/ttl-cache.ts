/**
 * A map whose entries end at a time and whose size is capped: every cache of the service is one of these,
 * so none can grow without bound however many users, tokens or keys pass through it.
 *
 * - Time: an entry is returned only before its end (read from the given clock, so tests move time);
 *   an ended entry is dropped when it is read.
 * - Size: when full, the oldest entry is dropped (insertion order), whatever its end. A full cache
 *   therefore costs a re-computation, never memory.
 * - Loads: `getOrLoad` shares one load between concurrent callers of the same key, so an expiry under
 *   load costs one upstream call, not one per request.
 */
export interface NowSource { now(): number }

interface Entry<V> { value: V, until: number }

/** What a load returns: the value and how long to keep it; 0 answers the value without keeping it. */
export interface Loaded<V> { value: V, ttlMs: number }

export class TtlCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>()
  private readonly loading = new Map<K, Promise<V>>()

  constructor (private readonly clock: NowSource, readonly maxEntries: number) {
    if (!(maxEntries >= 1)) throw new Error('a cache needs room for at least one entry')
  }

  get size (): number { return this.entries.size }

  /** The live value of `key`, or undefined when there is none (or it has ended). */
  get (key: K): V | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    if (entry.until > this.clock.now()) return entry.value
    this.entries.delete(key)
    return undefined
  }

  /** Keeps `value` for `ttlMs` from now; a ttl of 0 or less forgets the key instead. */
  set (key: K, value: V, ttlMs: number): void {
    this.setUntil(key, value, this.clock.now() + ttlMs)
  }

  /** Keeps `value` until the absolute time `until` (milliseconds, the clock's scale). */
  setUntil (key: K, value: V, until: number): void {
    this.entries.delete(key)
    if (until <= this.clock.now()) return
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next()
      if (oldest.done !== true) this.entries.delete(oldest.value)
    }
    this.entries.set(key, { value, until })
  }

  /** The live value, or the result of `load` (one load per key at a time), kept as `load` says. */
  async getOrLoad (key: K, load: () => Promise<Loaded<V>>): Promise<V> {
    const entry = this.entries.get(key)
    if (entry !== undefined && entry.until > this.clock.now()) return entry.value
    let pending = this.loading.get(key)
    if (pending === undefined) {
      pending = load().then(({ value, ttlMs }) => {
        this.set(key, value, ttlMs)
        return value
      }).finally(() => this.loading.delete(key))
      this.loading.set(key, pending)
    }
    return pending
  }

  delete (key: K): void { this.entries.delete(key) }

  clear (): void { this.entries.clear() }
}
