import t, { type Test } from 'tap'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { compileHints } from '../client/compile-hints.js'
import { jsonPick } from '../client/json-pick.js'

/**
 * The client build's own Vite plugins, through a real (minified) build of a small project with the
 * client's Vite: `compile-hints` marks the chunks holding the named modules, on their first line after
 * minification, and no other; `json-pick` cuts a JSON file to the named parts and refuses a missing one.
 */
const CLIENT = fileURLToPath(new URL('../client/', import.meta.url))
interface Chunk { type: 'chunk' | 'asset', fileName: string, code?: string }
type Build = (config: Record<string, unknown>) => Promise<{ output: Chunk[] } | Array<{ output: Chunk[] }>>
const { build } = await import(join(CLIENT, 'node_modules/vite/dist/node/index.js')) as { build: Build }

async function project (t: Test, files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'aw-build-plugins-'))
  t.teardown(async () => { await rm(root, { recursive: true, force: true }) })
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(root, name, '..'), { recursive: true })
    await writeFile(join(root, name), text)
  }
  return root
}

async function chunks (root: string, plugins: unknown[]): Promise<Chunk[]> {
  const result = await build({ configFile: false, root, logLevel: 'silent', plugins, build: { write: false, rolldownOptions: { input: join(root, 'main.js') } } })
  return (Array.isArray(result) ? result : [result]).flatMap((r) => r.output).filter((c) => c.type === 'chunk')
}

t.test('compile hints: the chunk holding a named module starts with the hint, after minification; the others do not', async (t) => {
  const root = await project(t, {
    'main.js': '/* a comment the minifier drops */\nexport function start () { return import(\'./src/pickers/grid/grid.js\').then((m) => m.grid() + other()) }\nfunction other () { return 2 }\nstart()\n',
    'src/pickers/grid/grid.js': 'export function grid () { return [1, 2, 3].map((n) => n * 2).length }\n'
  })
  const built = await chunks(root, [compileHints(['/src/pickers/grid/'])])
  const picker = built.find((c) => c.code?.includes('*2') === true || c.code?.includes('* 2') === true)
  const entry = built.find((c) => c !== picker)
  t.ok(picker, 'the lazy chunk is built')
  t.ok(picker?.code?.startsWith('//# allFunctionsCalledOnLoad\n'), 'the picker\'s chunk opens with the hint')
  t.equal(picker?.code?.split('allFunctionsCalledOnLoad').length, 2, 'once')
  t.notOk(entry?.code?.includes('allFunctionsCalledOnLoad'), 'the entry chunk is left lazily compiled')
  t.notOk(entry?.code?.includes('a comment the minifier drops'), 'the build was minified (comments dropped)')
})

t.test('json-pick: the named parts of a JSON file, and a clear error for a part it lacks', async (t) => {
  const words = JSON.stringify({ login: { title: 'Sign in' }, status: { loading: 'Loading…' }, alarms: { big: 'x'.repeat(500) } })
  const picked = await project(t, {
    'main.js': 'import words from \'./en.json?keys=login,status&pick\'\nconsole.log(JSON.stringify(words))\n',
    'en.json': words
  })
  const [entry] = await chunks(picked, [jsonPick()])
  t.match(entry?.code, /Sign in/)
  t.match(entry?.code, /Loading…/)
  t.notMatch(entry?.code, /x{500}/, 'the parts not named are left out')

  const missing = await project(t, {
    'main.js': 'import words from \'./en.json?keys=login,nowhere&pick\'\nconsole.log(words)\n',
    'en.json': words
  })
  await t.rejects(chunks(missing, [jsonPick()]), /en\.json has no nowhere/)
})
