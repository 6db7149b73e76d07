import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'
import { VitePWA } from 'vite-plugin-pwa'
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
  plugins: [
    jsonPick(),
    compileHints(EDITOR_MODULES),
    // The service worker is the client's own (sw/sw.ts: push and notification taps); Workbox writes the
    // app shell's file list into it. The manifest is the server's (/api/app-manifest, from the branding).
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'sw',
      filename: 'sw.ts',
      registerType: 'prompt',
      injectRegister: false,
      manifest: false,
      injectManifest: {
        // Every script, style and icon of the build: each page opens offline. The .br/.gz twins are the
        // same files, and the server picks those itself.
        globPatterns: ['index.html', 'assets/*.{js,css,svg,png,woff2}', 'icons/*.png', 'favicon.svg'],
        maximumFileSizeToCacheInBytes: 3 * 1024 * 1024
      }
    }),
    precompress(outDir)
  ],
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
