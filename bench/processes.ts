import { fork, type ChildProcess } from 'node:child_process'

/**
 * Benchmarks run the service, the engine fake and the load generator as separate processes, so that no
 * process shares an event loop (or its CPU time) with another. Each benchmark file starts itself again
 * with a role argument; the roles talk to the coordinator over IPC.
 */

/** Starts `file` again with `role`, and waits for its first message (which carries its port, if any). */
export function startRole<T extends object = { port: number }> (file: string, role: string, env: Record<string, string> = {}, execArgv: string[] = []): Promise<{ process: ChildProcess, ready: T }> {
  const proc = fork(file, [role], { execArgv: ['--import', 'tsx', ...execArgv], env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  return new Promise((resolve, reject) => {
    const failed = (code: number | null) => reject(new Error(`${role} exited with ${String(code)}`))
    proc.once('exit', failed)
    proc.once('message', (message: T) => {
      proc.off('exit', failed)
      resolve({ process: proc, ready: message })
    })
  })
}

/** Sends `question` and resolves with the next message of that process. */
export function ask<T> (proc: ChildProcess, question: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const failed = (code: number | null) => reject(new Error(`child exited with ${String(code)} before answering`))
    proc.once('exit', failed)
    proc.once('message', (message: T) => {
      proc.off('exit', failed)
      resolve(message)
    })
    proc.send(question as object)
  })
}

export async function stop (proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return
  const exited = new Promise((resolve) => proc.once('exit', resolve))
  proc.kill('SIGTERM')
  await exited
}

/** This process's CPU time (user + system) in microseconds. */
export function cpuMicros (): number {
  const { user, system } = process.cpuUsage()
  return user + system
}

/** Answers the coordinator's questions about this process: its CPU time, its memory, and `extra`'s own. */
export function serveQuestions (extra: (question: unknown) => unknown = () => undefined): void {
  process.on('message', (question) => {
    if (question === 'cpu') process.send?.({ micros: cpuMicros() })
    else if (question === 'memory') {
      const rss = process.memoryUsage.rss()
      globalThis.gc?.()
      process.send?.({ rss, rssAfterGc: process.memoryUsage.rss(), heapUsed: process.memoryUsage().heapUsed })
    } else {
      Promise.resolve(extra(question)).then((answer) => process.send?.(answer as object), (error: unknown) => {
        console.error(error)
        process.exit(1)
      })
    }
  })
}

/** The alarm-engine fake (PoracleNG) on the database named by BENCH_ENGINE_DB, answering its port. */
export async function engineFakeRole (secret: string): Promise<void> {
  const { startAlarmEngineFake } = await import('../test/fakes/alarm-engine.js')
  const fake = await startAlarmEngineFake({ database: process.env.BENCH_ENGINE_DB ?? '', secret, mode: 'ng' })
  // The fake keeps every request for test assertions; a load run only needs the answers.
  const forget = setInterval(() => { fake.requests.length = 0 }, 1000)
  serveQuestions()
  process.on('SIGTERM', () => { clearInterval(forget); fake.close().then(() => process.exit(0), () => process.exit(1)) })
  process.send?.({ port: Number(new URL(fake.url).port) })
}

/** Runs the role named by the first argument, or `main` (the coordinator) without one. */
export function runRole (roles: Record<string, () => Promise<void>>, main: () => Promise<void>): void {
  const run = roles[process.argv[2] ?? ''] ?? main
  run().catch((error: unknown) => {
    console.error(error)
    process.exitCode = 1
  })
}
