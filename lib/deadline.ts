/** A signal that aborts when `ms` have passed, and `clear` to drop its timer once the work is done. */
export interface Deadline {
  signal: AbortSignal
  clear: () => void
}

/**
 * A time limit for one call. `AbortSignal.timeout` keeps its timer until it fires, however soon the call
 * ends, so a busy process carries one pending timer per call of the last timeout period; this one is
 * cleared by the caller (in a `finally`). It aborts with the same TimeoutError as `AbortSignal.timeout`.
 */
export function deadline (ms: number): Deadline {
  const controller = new AbortController()
  const timer = setTimeout(() => { controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')) }, ms)
  return { signal: controller.signal, clear: () => { clearTimeout(timer) } }
}
