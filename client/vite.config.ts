import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'
import { compileHints, EDITOR_MODULES } from './compile-hints.ts'
import { jsonPick } from './json-pick.ts'
import { precompress } from './precompress.ts'

const outDir = fileURLToPath(new URL('dist', import.meta.url))

export default defineConfig({
  resolve: {
    // The client is an npm workspace: libraries hoisted to the root would otherwise find the root's
    // React 18 (kept there for the test runner's reporter) instead of the client's React 19.
    dedupe: ['react', 'react-dom']
  },
  plugins: [jsonPick(), compileHints(EDITOR_MODULES), precompress(outDir)],
  build: {
    outDir,
    emptyOutDir: true,
    rolldownOptions: {
      onwarn (warning, warn) {
        // react-router marks modules "use client" for server-component bundlers; a browser-only bundle
        // has nothing to preserve, so the warning is noise in every build.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return
        warn(warning)
      }
    }
  },
  // In development the API runs separately (`npm run dev` at the root listens on 8082 by default).
  server: { proxy: { '/api': 'http://127.0.0.1:8082' } }
})
