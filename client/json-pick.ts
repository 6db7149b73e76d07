import { readFile } from 'node:fs/promises'
import type { Plugin } from 'vite'

/**
 * `import words from './en.json?keys=login,status&pick'`: a JSON file cut to some of its top-level
 * parts. The sign-in path's first script then carries the words of the sign-in pages, not the whole
 * app's (the full file stays one chunk, imported as usual). The module parses the cut text, as the
 * bundler's own JSON modules do with a large file (faster to start than an object literal).
 */
export function jsonPick (): Plugin {
  return {
    name: 'json-pick',
    enforce: 'pre',
    async load (id) {
      const [file = '', query = ''] = id.split('?')
      const params = new URLSearchParams(query)
      if (!file.endsWith('.json') || !params.has('pick')) return null
      this.addWatchFile(file)
      const whole = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>
      const keys = (params.get('keys') ?? '').split(',')
      const missing = keys.filter((key) => !(key in whole))
      if (missing.length > 0) this.error(`${file} has no ${missing.join(', ')}`)
      return `export default JSON.parse(${JSON.stringify(JSON.stringify(Object.fromEntries(keys.map((key) => [key, whole[key]]))))})`
    }
  }
}
