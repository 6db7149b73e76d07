#!/usr/bin/env node
/**
 * `npm start`: builds the server when dist/ is missing or older than the sources that
 * tsconfig.build.json compiles, then runs `node dist/server.js` in the project folder (where `.env`
 * is read from), passing signals on so the server can close gracefully, and exiting with its code.
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { constants } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const entry = join(root, 'dist', 'server.js')
const buildConfig = join(root, 'tsconfig.build.json')

/** Newest modification time of the TypeScript the build compiles and of the build configs. */
function newestSource () {
  const { include = [] } = JSON.parse(readFileSync(buildConfig, 'utf8'))
  let newest = 0
  const visit = (path) => {
    if (!existsSync(path)) return
    const stat = statSync(path)
    if (stat.isDirectory()) {
      for (const name of readdirSync(path)) visit(join(path, name))
    } else if (path.endsWith('.ts') || path.endsWith('.json')) {
      newest = Math.max(newest, stat.mtimeMs)
    }
  }
  for (const path of [...include.map((p) => join(root, p)), buildConfig, join(root, 'tsconfig.json')]) visit(path)
  return newest
}

/** Runs a command to the end; resolves with the exit code, or 128 + signal number when killed. */
function run (command, args) {
  const child = spawn(command, args, { cwd: root, stdio: 'inherit' })
  const forward = (signal) => { child.kill(signal) }
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP']
  for (const signal of signals) process.on(signal, forward)
  return new Promise((resolve) => {
    child.on('error', (err) => {
      console.error(`could not run ${command}: ${err.message}`)
      resolve(1)
    })
    child.on('exit', (code, signal) => {
      for (const s of signals) process.off(s, forward)
      resolve(signal !== null ? 128 + (constants.signals[signal] ?? 0) : (code ?? 1))
    })
  })
}

// A deployed copy (the container image) ships dist/ without sources: nothing to compare, no build.
const stale = !existsSync(entry) || (existsSync(buildConfig) && newestSource() > statSync(entry).mtimeMs)
if (stale) {
  console.log('dist/ is missing or older than the sources: building first (npm run build)')
  const built = await run('npm', ['run', 'build'])
  if (built !== 0) process.exit(built)
}
process.exitCode = await run(process.execPath, [entry, ...process.argv.slice(2)])
