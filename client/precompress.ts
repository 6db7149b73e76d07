import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { brotliCompress, constants, gzip } from 'node:zlib'
import type { Plugin } from 'vite'

const brotli = promisify(brotliCompress)
const gz = promisify(gzip)

/** Text files worth compressing; images and fonts are compressed already. */
const COMPRESSIBLE = /\.(js|mjs|css|html|json|svg|txt|map)$/
/** Below this a compressed copy saves less than the extra request headers cost. */
const MIN_BYTES = 1024

async function * files (dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield * files(path)
    else if (COMPRESSIBLE.test(entry.name)) yield path
  }
}

/**
 * Writes `<file>.br` and `<file>.gz` beside every text file of the build, at the highest levels (the
 * cost is paid once per build, not per request). The server sends them with the right
 * Content-Encoding (@fastify/static `preCompressed`), so no request compresses a static file.
 */
export function precompress (outDir: string): Plugin {
  return {
    name: 'precompress',
    apply: 'build',
    async closeBundle () {
      for await (const path of files(outDir)) {
        const body = await readFile(path)
        if (body.length < MIN_BYTES) continue
        await writeFile(`${path}.br`, await brotli(body, {
          params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: body.length }
        }))
        await writeFile(`${path}.gz`, await gz(body, { level: constants.Z_BEST_COMPRESSION }))
      }
    }
  }
}
