import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { delimiter, join } from 'node:path'
import mariadb from 'mariadb'

/**
 * A MariaDB for the demo: the one on 127.0.0.1:3306 when it lets root in without a password, else a
 * private throwaway server (`mariadbd` in a temporary data folder, on a free port, as the current
 * user) that is stopped and deleted with the demo.
 */

export interface DemoDatabase {
  host: string
  port: number
  user: string
  password: string
  /** Where it came from, for the start-up message. */
  description: string
  stop: () => Promise<void>
}

export class MariaDbMissing extends Error {
  constructor () {
    super('No MariaDB answers on 127.0.0.1:3306 and mariadbd is not installed to start a private one.\n' +
      'Install it with:  sudo apt-get install mariadb-server   (Debian/Ubuntu; it need not be running)\n' +
      'or point the demo at a server that lets root in without a password on 127.0.0.1:3306.')
    this.name = 'MariaDbMissing'
  }
}

async function answers (port: number): Promise<boolean> {
  try {
    const connection = await mariadb.createConnection({ host: '127.0.0.1', port, user: 'root', password: '', connectTimeout: 2000 })
    await connection.end()
    return true
  } catch {
    return false
  }
}

/** The first existing file named `name` in the usual server folders and on PATH. */
function findBinary (name: string): string | undefined {
  const folders = ['/usr/sbin', '/usr/local/sbin', '/usr/bin', '/usr/local/bin', ...(process.env.PATH ?? '').split(delimiter)]
  return folders.map((folder) => join(folder, name)).find((path) => existsSync(path))
}

export async function freePort (): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => { resolve(typeof address === 'object' && address !== null ? address.port : 0) })
    })
  })
}

async function startPrivate (): Promise<DemoDatabase> {
  const server = findBinary('mariadbd')
  const installer = findBinary('mariadb-install-db') ?? findBinary('mysql_install_db')
  if (server === undefined || installer === undefined) throw new MariaDbMissing()
  const dir = mkdtempSync(join(tmpdir(), 'alarm-web-demo-db-'))
  const data = join(dir, 'data')
  const user = userInfo().username
  // root with an empty password over TCP, like the shared development server.
  const install = spawnSync(installer, [
    '--no-defaults', `--datadir=${data}`, `--user=${user}`, '--auth-root-authentication-method=normal', '--skip-test-db'
  ], { encoding: 'utf8' })
  if (install.status !== 0) {
    rmSync(dir, { recursive: true, force: true })
    throw new Error(`mariadb-install-db failed:\n${install.stderr}`)
  }
  const port = await freePort()
  const child: ChildProcess = spawn(server, [
    '--no-defaults', `--datadir=${data}`, `--socket=${join(dir, 'mariadb.sock')}`, `--pid-file=${join(dir, 'mariadb.pid')}`,
    `--port=${port}`, '--bind-address=127.0.0.1', `--user=${user}`, '--skip-log-bin', '--innodb-buffer-pool-size=64M'
  ], { stdio: 'ignore' })
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  }
  for (let i = 0; i < 120; i++) {
    if (await answers(port)) return { host: '127.0.0.1', port, user: 'root', password: '', description: `a private MariaDB on 127.0.0.1:${port} (data in ${dir}, deleted on exit)`, stop }
    if (child.exitCode !== null) break
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  await stop()
  throw new Error('the private mariadbd did not start within 30 s')
}

export async function demoDatabase (): Promise<DemoDatabase> {
  if (await answers(3306)) {
    return { host: '127.0.0.1', port: 3306, user: 'root', password: '', description: 'the MariaDB on 127.0.0.1:3306', stop: async () => {} }
  }
  return await startPrivate()
}
