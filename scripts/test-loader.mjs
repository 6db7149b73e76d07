/**
 * How the test processes load TypeScript (`.taprc` passes `--import=./scripts/test-loader.mjs` to each):
 * the hooks in test-loader-hooks.mjs transpile each source file once, with esbuild, into a disk cache
 * that every later process of the run reads. tsx does the same, but its start (its own resolver, CommonJS
 * hooks, tsconfig handling) cost each of the suite's 130-odd processes about half a second of CPU more
 * than these hooks: the project needs only type stripping of ESM files under its own `.js` import names.
 */
import { register } from 'node:module'

register('./test-loader-hooks.mjs', import.meta.url)
