/**
 * Runs `work` once the browser is idle, or after `timeout` ms at the latest; returns what cancels it. For
 * work a page can do ahead, while it waits for the network, instead of inside the frame that needs it.
 */
export function whenIdle (work: () => void, timeout = 2000): () => void {
  if ('requestIdleCallback' in window) {
    const handle = requestIdleCallback(work, { timeout })
    return () => { cancelIdleCallback(handle) }
  }
  const timer = setTimeout(work, 200)
  return () => { clearTimeout(timer) }
}
