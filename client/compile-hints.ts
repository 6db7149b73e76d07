import type { Plugin } from 'vite'

/** V8's file-wide compile hint (Chrome 136+); other engines read it as a comment. */
const HINT = '//# allFunctionsCalledOnLoad\n'

/** The alarm pages and their editor: the chunks a member opening the alarm pages runs at once. */
export const EDITOR_MODULES = ['/src/features/alarms/', '/src/alarm-kit/', '/src/pickers/grid/']

/**
 * Marks the chunks holding any of `modules` (path parts, e.g. `/pickers/grid/`) for eager compilation.
 * V8 otherwise compiles a function on its first call, on the main thread: opening the alarm editor
 * compiled some 200 functions (the grid, the virtualiser, the icons) inside the tap, about half of its
 * script time. A marked chunk is compiled while it downloads, off the main thread. Only chunks whose code
 * runs soon after they load are marked: the chunk of a lazy page that holds the page's own code.
 * The hint must be the file's first line, so it is added after minification (which drops comments).
 */
export function compileHints (modules: string[]): Plugin {
  return {
    name: 'compile-hints',
    enforce: 'post',
    generateBundle (_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk' || !chunk.moduleIds.some((id) => modules.some((part) => id.includes(part)))) continue
        chunk.code = HINT + chunk.code
      }
    }
  }
}
