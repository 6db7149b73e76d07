import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The service as operators run it: `node dist/server.js` in a process of its own, configured only by its
 * environment, in an empty working folder (no `.env` is read). Its JSON log lines are collected.
 */

export const ROOT_DIR = dirname(dirname(fileURLToPath(import.meta.url)))

/** Whoever ends what is started here: a tap test, or a benchmark's own list. */
export interface Owner {
  teardown: (fn: () => unknown) => void
}

/** Builds the server (and the client when asked) when missing or older than the sources, as `npm start` does. */
export async function buildIfDue (parts: Array<'server' | 'client'>): Promise<void> {
  const child = spawn(process.execPath, [join(ROOT_DIR, 'scripts', 'builds.mjs'), ...parts], { cwd: ROOT_DIR, stdio: ['ignore', 'ignore', 'inherit'] })
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  if (code !== 0) throw new Error(`node scripts/builds.mjs ${parts.join(' ')} exited with ${String(code)}`)
}

export interface BuiltServer {
  child: ChildProcess
  /** http://127.0.0.1:<port> */
  url: string
  port: number
  /** The working folder, also its DATA_DIR. */
  dir: string
  /** Every JSON log line so far. */
  logs: Array<Record<string, unknown>>
  /** Everything written to stderr. */
  stderr: () => string
  /** Resolves with the exit code (or 128 + signal) once the process has ended. */
  exited: Promise<number>
}

/**
 * Starts `node dist/server.js` on a free port of 127.0.0.1 (unless `env` names HOST and PORT) and resolves
 * once it listens. Stopped with
 * SIGKILL at the owner's teardown if still running.
 */
export async function startBuiltServer (t: Owner, env: Record<string, string>): Promise<BuiltServer> {
  const dir = await mkdtemp(join(tmpdir(), 'aw-built-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const child = spawn(process.execPath, [join(ROOT_DIR, 'dist', 'server.js')], {
    cwd: dir,
    // The log is how the port and the shutdown steps are learnt: info whatever the test's environment says.
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', DATA_DIR: dir, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const logs: Array<Record<string, unknown>> = []
  let stderr = ''
  let partial = ''
  const exited = new Promise<number>((resolve) => {
    child.on('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128)))
  })
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await exited
  })
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n')
      partial = lines.pop() ?? ''
      for (const line of lines) {
        if (line.trim() === '') continue
        let entry: Record<string, unknown>
        try {
          entry = JSON.parse(line) as Record<string, unknown>
        } catch {
          continue
        }
        logs.push(entry)
        const listening = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(String(entry.msg))
        if (listening !== null) resolve(Number(listening[1]))
      }
    })
    child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8') })
    exited.then((code) => reject(new Error(`dist/server.js exited with ${code} before listening: ${stderr}`)))
  })
  return { child, url: `http://127.0.0.1:${port}`, port, dir, logs, stderr: () => stderr, exited }
}
