/**
 * Module hooks for the test processes (registered by test-loader.mjs): a relative `./x.js` import from a
 * TypeScript file finds `./x.ts` (or `./x.tsx`), as TypeScript's NodeNext resolution does, and a project
 * TypeScript file is loaded as ESM with its types stripped by esbuild. The URL stays the source file's, so
 * `import.meta.url` and stack traces (through the inline source map) point at the `.ts` file.
 * The output is cached under node_modules/.cache by a hash of the path, the source and the esbuild
 * version: written once (atomically, by rename, so parallel test processes never read half a file), then
 * read by every other process.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const CACHE = fileURLToPath(new URL('../node_modules/.cache/test-loader/', import.meta.url))
const TYPESCRIPT = /\.(?:ts|tsx)$/
const require = createRequire(import.meta.url)
const ESBUILD_VERSION = require('esbuild/package.json').version
// As tsconfig.json compiles: imports kept as written (type-only ones say so), ES2022 class fields.
const TSCONFIG = { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true } }

let esbuild
mkdirSync(CACHE, { recursive: true })

export async function resolve (specifier, context, nextResolve) {
  const parent = context.parentURL
  if (parent !== undefined && TYPESCRIPT.test(parent) && !parent.includes('/node_modules/') &&
    (specifier.startsWith('./') || specifier.startsWith('../')) && specifier.endsWith('.js')) {
    for (const extension of ['.ts', '.tsx']) {
      const source = new URL(specifier.slice(0, -'.js'.length) + extension, parent)
      if (existsSync(source)) return { url: source.href, format: 'module', shortCircuit: true }
    }
  }
  return await nextResolve(specifier, context)
}

export async function load (url, context, nextLoad) {
  if (!url.startsWith('file:') || !TYPESCRIPT.test(url) || url.includes('/node_modules/')) return await nextLoad(url, context)
  const path = fileURLToPath(url)
  const source = readFileSync(path, 'utf8')
  const cached = `${CACHE}${createHash('sha256').update(`${ESBUILD_VERSION}\0${path}\0${source}`).digest('hex')}.js`
  let code
  try {
    code = readFileSync(cached, 'utf8')
  } catch {
    esbuild ??= require('esbuild')
    code = esbuild.transformSync(source, {
      loader: path.endsWith('.tsx') ? 'tsx' : 'ts',
      format: 'esm',
      target: 'node20',
      sourcemap: 'inline',
      sourcefile: path,
      tsconfigRaw: TSCONFIG
    }).code
    const partial = `${cached}.${process.pid}`
    writeFileSync(partial, code)
    renameSync(partial, cached)
  }
  return { format: 'module', source: code, shortCircuit: true }
}
