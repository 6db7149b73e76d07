#!/usr/bin/env node
/**
 * Runs tap (extra arguments are passed through), shows its output as it comes, and closes with the ten
 * slowest test files and one plain `N passed, N failed[, N skipped]` line taken from tap's own last
 * `# { total: … }` summary, because CI tooling reads that line and not tap's. The exit code is tap's,
 * and non-zero when no test ran at all, so an empty run never counts as a green one.
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { constants } from 'node:os'
import { dirname, join } from 'node:path'
import { TapConfig } from '@tapjs/config'

const SUMMARY = /^# \{ total: .*\}\s*$/
// tap's own line for each finished file, at the top level: `ok 12 - test/x.test.ts # time=1234.5ms`
const FILE_DONE = /^(?:not )?ok \d+ - (\S+\.test\.ts)\b.*# time=([\d.]+)ms/
const SLOWEST_SHOWN = 10

/**
 * The plugin list tap's Test class was last built with (`export const signature` of its built module),
 * or '' when it cannot be read.
 */
function builtSignature () {
  try {
    const root = dirname(createRequire(import.meta.url).resolve('@tapjs/test/package.json'))
    const built = readFileSync(join(root, 'test-built', 'dist', 'esm', 'index.js'), 'utf8')
    return /^export const signature = `([^`]*)`/m.exec(built)?.[1].trim() ?? ''
  } catch {
    return ''
  }
}

/** Starts `npx tap <args>`, its standard output inherited or piped to this process. */
function runTap (args, stdout) {
  return spawn('npx', ['tap', ...args], { stdio: ['inherit', stdout, 'inherit'] })
}

// tap rebuilds its Test class when .taprc's plugins differ from the built ones (as after `npm ci`), but
// the run that rebuilds still starts every test process with the old set's loaders: the default set's
// TypeScript loader (ts-node) costs each test process about a second before its first line. Building
// first makes the run start them with the configured set.
if ((await TapConfig.load()).pluginSignature !== builtSignature()) {
  const code = await new Promise((resolve) => { runTap(['build'], 'inherit').on('close', resolve) })
  if (code !== 0) process.exit(code ?? 1)
}

const child = runTap(process.argv.slice(2), 'pipe')

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => { child.kill(signal) })
}

let summary
let partial = ''
const fileTimes = new Map()
const read = (line) => {
  if (SUMMARY.test(line)) summary = line
  const done = FILE_DONE.exec(line)
  if (done !== null) fileTimes.set(done[1], Number(done[2]))
}
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk)
  const lines = (partial + chunk.toString('utf8')).split('\n')
  partial = lines.pop() ?? ''
  for (const line of lines) read(line)
})

child.on('error', (err) => {
  console.error(`could not start tap: ${err.message}`)
  process.exit(1)
})

child.on('close', (code, signal) => {
  read(partial)
  const slowest = [...fileTimes].sort((a, b) => b[1] - a[1]).slice(0, SLOWEST_SHOWN)
  if (slowest.length > 0) {
    console.log(`\nslowest test files (${fileTimes.size} run):`)
    for (const [file, ms] of slowest) console.log(`${(ms / 1000).toFixed(1).padStart(7)} s  ${file}`)
  }
  const counts = {}
  for (const [, key, value] of (summary ?? '').matchAll(/(\w+): (\d+)/g)) counts[key] = Number(value)
  const passed = counts.pass ?? 0
  const failed = counts.fail ?? 0
  // todo tests are not run as assertions, so they count with the skipped ones
  const skipped = (counts.skip ?? 0) + (counts.todo ?? 0)
  console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`)
  if (passed + failed === 0) console.error('no test ran')
  if (signal !== null) process.exitCode = 128 + (constants.signals[signal] ?? 0)
  else process.exitCode = code !== 0 ? (code ?? 1) : passed + failed === 0 ? 1 : 0
})
