import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const CLIENT = fileURLToPath(new URL('../client', import.meta.url))

/**
 * Client modules loaded into the test process, bundled by esbuild the way Vite resolves them (the
 * client's extensionless imports, its own node_modules); `i18n` is an i18next instance in English
 * with the client's own strings, as the pages get it.
 */
export async function loadClientModules<T> (...paths: string[]): Promise<T & { t: (key: string, options?: Record<string, unknown>) => string }> {
  const contents = [...paths.map((path) => `export * from './src/${path}'`), "export { default as i18next } from 'i18next'"].join('\n')
  const bundled = await build({ stdin: { contents, resolveDir: CLIENT, loader: 'ts' }, bundle: true, platform: 'node', format: 'esm', write: false, logLevel: 'silent' })
  const code = bundled.outputFiles[0]?.text ?? ''
  const loaded = await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`) as T & { i18next: { createInstance: () => I18n } }
  const i18n = loaded.i18next.createInstance()
  await i18n.init({ lng: 'en', resources: { en: { translation: JSON.parse(readFileSync(`${CLIENT}/src/i18n/locales/en.json`, 'utf8')) } } })
  return { ...loaded, t: i18n.t.bind(i18n) }
}

interface I18n {
  init: (options: Record<string, unknown>) => Promise<unknown>
  t: (key: string, options?: Record<string, unknown>) => string
}
