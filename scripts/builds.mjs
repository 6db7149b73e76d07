/**
 * The two builds and when each is due: the server (`dist/`, from the TypeScript tsconfig.build.json
 * compiles) and the client (`client/dist/`, from client/src and its build configuration). A build is
 * due when its output is missing or older than any of its sources. A deployed copy (the container
 * image) ships the outputs without sources: nothing to compare, nothing is built.
 *
 * `node scripts/builds.mjs server client` builds whichever of the named parts is due.
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { constants } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = dirname(dirname(fileURLToPath(import.meta.url)))

/** Newest modification time under `paths` (files or folders) of the files `keep` accepts; 0 for none. */
function newest (paths, keep) {
  let time = 0
  const visit = (path) => {
    if (!existsSync(path)) return
    const stat = statSync(path)
    if (stat.isDirectory()) {
      for (const name of readdirSync(path)) if (name !== 'node_modules') visit(join(path, name))
    } else if (keep(path)) {
      time = Math.max(time, stat.mtimeMs)
    }
  }
  for (const path of paths) visit(path)
  return time
}

const serverConfig = join(root, 'tsconfig.build.json')
const client = join(root, 'client')

export const PARTS = {
  server: {
    output: join(root, 'dist', 'server.js'),
    script: 'build:server',
    sources: () => {
      if (!existsSync(serverConfig)) return 0
      const { include = [] } = JSON.parse(readFileSync(serverConfig, 'utf8'))
      const paths = [...include.map((p) => join(root, p)), serverConfig, join(root, 'tsconfig.json')]
      return newest(paths, (p) => p.endsWith('.ts') || p.endsWith('.json'))
    }
  },
  client: {
    output: join(client, 'dist', 'index.html'),
    script: 'build:client',
    sources: () => {
      if (!existsSync(join(client, 'src'))) return 0
      // The build's own configuration and plugins (every .ts beside vite.config.ts) count as sources too.
      const config = readdirSync(client).filter((name) => name.endsWith('.ts'))
      const paths = ['src', 'public', 'index.html', 'tsconfig.json', 'package.json', ...config].map((p) => join(client, p))
      return newest(paths, () => true)
    }
  }
}

/** True when the part's output is missing or older than its newest source. */
export function isDue (part) {
  const { output, sources } = PARTS[part]
  if (!existsSync(output)) return true
  return sources() > statSync(output).mtimeMs
}

/** Runs a command to the end; resolves with the exit code, or 128 + signal number when killed. */
export function run (command, args) {
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

/** Builds each named part that is due; resolves with the first failing exit code, else 0. */
export async function buildDue (parts) {
  for (const part of parts) {
    if (!isDue(part)) continue
    const { output, script } = PARTS[part]
    console.log(`${part}: ${existsSync(output) ? 'sources changed' : 'not built yet'}, building (npm run ${script})`)
    const code = await run('npm', ['run', script])
    if (code !== 0) return code
  }
  return 0
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const parts = process.argv.slice(2)
  const unknown = parts.filter((p) => !(p in PARTS))
  if (parts.length === 0 || unknown.length > 0) {
    console.error(`usage: node scripts/builds.mjs ${Object.keys(PARTS).join('|')} ...`)
    process.exit(2)
  }
  process.exitCode = await buildDue(parts)
}
