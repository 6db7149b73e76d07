import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { CHROMIUM, launchChromium, signInAs } from '../dev/browser.js'
import { rootConnection } from './helper.js'

/**
 * `npm run demo` as a newcomer runs it: the command starts from nothing (its databases do not exist,
 * nothing is listening), prints its address and accounts, and an admin signs in with a demo account
 * in a real browser, all within 30 s. Ctrl-C then stops every piece and drops the demo databases.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const LIMIT_MS = 30_000

if (!existsSync(CHROMIUM) || !existsSync(new URL('../client/dist/index.html', import.meta.url))) {
  t.fail(!existsSync(CHROMIUM) ? `${CHROMIUM} is not installed (apt-get install chromium)` : 'the client is not built (npm run build:client)')
} else {
  t.test('the demo starts cold and an admin signs in within 30 s; Ctrl-C stops everything', async (t) => {
    const prefix = `aw_test_demo_${process.pid}_${randomBytes(3).toString('hex')}`
    const started = Date.now()
    // Its own process group, so Ctrl-C can be delivered the way a terminal does: to every process in it.
    const demo = spawn('npm', ['run', 'demo'], {
      cwd: ROOT,
      detached: true,
      env: { ...process.env, DEMO_PORT: '0', DEMO_DB_PREFIX: prefix },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let output = ''
    demo.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
    demo.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
    const exited = new Promise<string>((resolve) => demo.once('exit', (code, signal) => { resolve(signal ?? String(code)) }))
    t.teardown(async () => {
      if (demo.exitCode === null && demo.signalCode === null) process.kill(-(demo.pid ?? 0), 'SIGKILL')
      const connection = await rootConnection()
      for (const name of [prefix, `${prefix}_engine`]) await connection.query(`DROP DATABASE IF EXISTS \`${name}\``)
      await connection.end()
    })

    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => { reject(new Error(`no address printed within ${LIMIT_MS} ms:\n${output}`)) }, LIMIT_MS)
      const look = (): void => {
        const found = /Open\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(output)
        if (found?.[1] !== undefined) {
          clearTimeout(timer)
          resolve(found[1])
        }
      }
      demo.stdout.on('data', look)
      exited.then((code) => { reject(new Error(`the demo exited (${code}) before it was ready:\n${output}`)) }, reject)
    })
    t.match(output, /admin\s+admin\s+Professor Willow/, 'prints the admin account')
    t.match(output, /misty\s+member/, 'prints the member accounts')
    t.match(output, /password: demo/, 'prints the password')

    const browser = await launchChromium()
    try {
      const page = await browser.newPage()
      await signInAs(page, url, 'admin')
      await page.getByRole('heading', { name: 'Hello, Professor Willow' }).waitFor()
      const elapsed = Date.now() - started
      t.ok(elapsed < LIMIT_MS, `signed in ${elapsed} ms after the command started (limit ${LIMIT_MS} ms)`)
    } finally {
      await browser.close()
    }

    process.kill(-(demo.pid ?? 0), 'SIGINT')
    // npm itself may end by the signal; what counts is that the demo shut its pieces down and exited.
    t.match(await exited, /^(0|SIGINT|130)$/, 'Ctrl-C ends the demo')
    t.match(output, /stopping the demo/, 'the demo closed its pieces itself')
    const connection = await rootConnection()
    const left = await connection.query('SELECT schema_name AS name FROM information_schema.schemata WHERE schema_name LIKE ?', [`${prefix}%`]) as unknown[]
    await connection.end()
    t.equal(left.length, 0, 'the demo databases are dropped')
    const still = await fetch(url).then(() => true, () => false)
    t.notOk(still, 'nothing listens on the demo address any more')
  })
}
