import type { Page } from 'playwright-core'

/**
 * Page-side helpers for timing one step in a browser benchmark, as script text to put at the head of a
 * `page.evaluate` body:
 * - `changed(test)` resolves in the microtask after the DOM change that makes `test()` true: a mutation
 *   observer, so the page's own tasks (icons arriving, say) cannot starve it as a polling timer is;
 * - `rendered()` resolves once the next frame has been laid out and painted: a task posted from that
 *   frame's animation callback runs after its rendering, and at user-blocking priority it runs before the
 *   tasks already queued (icons arriving, idle work).
 */
export const PAGE_TIMING = `
  const changed = (test) => new Promise((resolve) => {
    const observer = new MutationObserver(() => { if (test()) { observer.disconnect(); resolve() } })
    observer.observe(document.body, { childList: true, subtree: true, characterData: true, attributes: true })
  })
  const rendered = () => new Promise((resolve) => requestAnimationFrame(() => {
    scheduler.postTask(resolve, { priority: 'user-blocking' })
  }))`

/** Resolves once the page has been idle: the work it queued for idle time (preparing the catalogue, say) is done. */
export async function untilIdle (page: Page): Promise<void> {
  await page.evaluate(async () => { await new Promise((resolve) => requestIdleCallback(resolve, { timeout: 5000 })) })
}
