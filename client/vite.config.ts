import { defineConfig } from 'vite'

export default defineConfig({
  build: {
    outDir: 'dist',
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
