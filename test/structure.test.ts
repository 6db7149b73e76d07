import { readdir, readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import path from 'node:path'
import tap from 'tap'
import ts from 'typescript'

/*
 * No factory a maintainer has to scroll through: every function under plugins/ (a concern's factory
 * above all, whose body holds all its methods) spans at most MAX_LINES lines, from its first line to its
 * closing brace, as the TypeScript compiler parses it. A longer one is split along its seams into
 * modules of the concern's folder (plugins/domain/alarm-estimates/ is one).
 */
const MAX_LINES = 300
const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..')
const PLUGINS = path.join(ROOT, 'plugins')

interface Span { where: string, name: string, lines: number }

/** A function's name as a reader finds it: its own, or the variable, property or method it is assigned to. */
function nameOf (node: ts.SignatureDeclaration, source: ts.SourceFile): string {
  if (node.name !== undefined) return node.name.getText(source)
  const parent = node.parent
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name !== undefined) return parent.name.getText(source)
  if (ts.isCallExpression(parent)) return `(argument of ${parent.expression.getText(source).slice(0, 40)})`
  return '(anonymous)'
}

/** Every function with a body in the text (declarations, expressions, arrows, methods, accessors), with its span in lines. */
function functionSpans (file: string, text: string): Span[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const spans: Span[] = []
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line
      spans.push({ where: `${file}:${first + 1}`, name: nameOf(node, source), lines: last - first + 1 })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return spans
}

tap.test('the counter measures a function from its first line to its closing brace', async (t) => {
  const body = Array.from({ length: MAX_LINES - 1 }, (_, i) => `  const a${i} = ${i}`).join('\n')
  const [long] = functionSpans('long.ts', `export function createLong () {\n${body}\n}\n`)
  t.same(long, { where: 'long.ts:1', name: 'createLong', lines: MAX_LINES + 1 })
  const spans = functionSpans('nested.ts', 'const outer = async () => {\n  return { method () { return 1 }, arrow: () => 2 }\n}\n')
  t.same(spans.map(({ name, lines }) => `${name} ${lines}`), ['outer 3', 'method 1', 'arrow 1'], 'arrows, methods and nested functions are all measured')
})

tap.test(`no function under plugins/ spans more than ${MAX_LINES} lines`, async (t) => {
  const entries = await readdir(PLUGINS, { recursive: true, withFileTypes: true })
  const files = entries.filter((entry) => entry.isFile()).map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)))
  // Every file under plugins/ is measured: one this test cannot read as TypeScript fails rather than being passed over.
  t.same(files.filter((file) => !file.endsWith('.ts')), [], 'plugins/ holds TypeScript only')
  t.ok(files.length > 60, `every plugin file is read (${files.length})`)
  const spans = (await Promise.all(files.map(async (file) => functionSpans(file, await readFile(path.join(ROOT, file), 'utf8'))))).flat()
  const longest = spans.reduce((a, b) => (b.lines > a.lines ? b : a))
  t.ok(longest.lines > 100, `the factories are seen: the longest is ${longest.name} at ${longest.where}, ${longest.lines} lines`)
  const offenders = spans.filter((span) => span.lines > MAX_LINES).map(({ where, name, lines }) => `${where} ${name}: ${lines} lines`)
  t.same(offenders, [], `no function longer than ${MAX_LINES} lines (split it along its seams into the concern's folder)`)
})

/**
 * The plugin layers in the order app.ts registers them (docs/architecture.md): a layer imports only from
 * itself and the layers before it, so no import runs back up and edge and data never import each other
 * both ways. `import type` counts too: a type shared downwards belongs to the lower layer.
 */
const LAYERS = ['base', 'edge', 'data', 'domain']

/** The relative imports of a file (static, dynamic and type-only), as written. */
function importsOf (file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const found: string[] = []
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined && ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text)
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] !== undefined && ts.isStringLiteral(node.arguments[0])) found.push(node.arguments[0].text)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found.filter((specifier) => specifier.startsWith('.'))
}

tap.test('the plugin layers import only downwards: base ← edge ← data ← domain', async (t) => {
  const entries = await readdir(PLUGINS, { recursive: true, withFileTypes: true })
  const files = entries.filter((entry) => entry.isFile() && entry.name.endsWith('.ts')).map((entry) => path.join(entry.parentPath, entry.name))
  t.same(files.map((file) => path.relative(PLUGINS, file).split(path.sep)[0]).filter((layer) => !LAYERS.includes(layer ?? '')), [], 'every plugin is in a layer')
  const wrong: string[] = []
  let crossing = 0
  for (const file of files) {
    const layer = LAYERS.indexOf(path.relative(PLUGINS, file).split(path.sep)[0] ?? '')
    for (const specifier of importsOf(file, await readFile(file, 'utf8'))) {
      const target = path.relative(PLUGINS, path.resolve(path.dirname(file), specifier))
      if (target.startsWith('..')) continue
      const targetLayer = LAYERS.indexOf(target.split(path.sep)[0] ?? '')
      if (targetLayer !== layer) crossing++
      if (targetLayer > layer) wrong.push(`${path.relative(ROOT, file)} imports ${specifier}`)
    }
  }
  t.ok(crossing > 50, `imports between layers are seen (${crossing})`)
  t.same(wrong, [], 'no import runs back up')
  t.same(importsOf('x.ts', "import a from '../edge/errors.js'\nimport type { B } from './b.js'\nconst c = await import('../domain/c.js')\nexport { d } from '../data/d.js'\nimport e from 'fastify'"),
    ['../edge/errors.js', './b.js', '../domain/c.js', '../data/d.js'], 'static, type-only, dynamic and re-exports are read; packages are not')
})

/*
 * app.ts reads as a table of contents: the route files are registered in the order of their URLs, so the
 * routes of one URL family sit together and a new one has exactly one place to go.
 */
tap.test('app.ts registers the route files in URL order', async (t) => {
  const app = await readFile(path.join(ROOT, 'app.ts'), 'utf8')
  const prefixes = [...app.matchAll(/await fastify\.register\(\w+, \{ prefix: '([^']+)' \}\)/g)].map((m) => m[1] as string)
  t.ok(prefixes.length > 50, `the route registrations are found (${prefixes.length})`)
  t.same(prefixes, [...prefixes].sort(), 'sorted by URL')
})
