import type { Virtualizer, VirtualizerOptions } from '@tanstack/react-virtual'

type ScrollFn<S extends Element | Window> = VirtualizerOptions<S, Element>['scrollToFn']

/**
 * A virtualiser's scroll writer without its first write. On mounting, the virtualiser writes the offset it
 * has just read back to its scroller (the top of a new grid, the window where it already is): a write that
 * moves nothing, but forces a layout of the whole page in the middle of the commit that draws the first
 * rows. Every later write (a scroll to a row, a correction) goes through.
 */
export function withoutFirstWrite<S extends Element | Window> (scroll: ScrollFn<S>): ScrollFn<S> {
  const placed = new WeakSet<Virtualizer<S, Element>>()
  return (offset, options, instance) => {
    if (!placed.has(instance)) {
      placed.add(instance)
      if (offset + (options.adjustments ?? 0) === instance.scrollOffset) return
    }
    scroll(offset, options, instance)
  }
}
