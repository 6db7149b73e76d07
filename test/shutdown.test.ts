import t from 'tap'
import { ENGINE_SECRET, baseEnv, testDatabases } from './helper.js'
import { startAlarmEngineFake } from './fakes/alarm-engine.js'
import { buildIfDue, startBuiltServer } from './built-server.js'

/**
 * Graceful shutdown of the built server (`node dist/server.js`): SIGTERM stops new connections, lets the
 * requests in flight finish within SHUTDOWN_GRACE_MS, closes the pools and exits with 0.
 */

await buildIfDue(['server'])
const dbs = await testDatabases()
const engine = await startAlarmEngineFake({ database: dbs.engine, secret: ENGINE_SECRET, mode: 'ng' })
t.teardown(() => engine.close())

async function until (what: string, check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`gave up waiting: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const engineHealthCalls = () => engine.requests.filter((r) => r.path === '/health').length

t.test('SIGTERM during a request held by a slow engine: the request is answered, new connections are refused, exit 0', async (t) => {
  engine.reset()
  const server = await startBuiltServer(t, { ...baseEnv(dbs, engine.url), SHUTDOWN_GRACE_MS: '10000' })
  engine.delay(800)
  const before = engineHealthCalls()
  const held = fetch(`${server.url}/api/health`)
  await until('the engine holds the request', () => engineHealthCalls() > before)
  const signalledAt = performance.now()
  server.child.kill('SIGTERM')
  await until('the server begins to close', () => server.logs.some((l) => String(l.msg).startsWith('closing')))
  await t.rejects(fetch(`${server.url}/api/version`), 'a new connection is refused once closing began')

  const answer = await held
  t.equal(answer.status, 200, 'the request in flight is answered')
  t.equal((await answer.json() as { status: string }).status, 'ok', 'with the engine\'s answer: the pools were still open')
  t.equal(await server.exited, 0, 'exit code 0')
  t.ok(performance.now() - signalledAt < 8000, 'without waiting for the grace time to run out')
  t.ok(server.logs.some((l) => l.msg === 'closed'), 'pools and Redis closed')
  t.equal(server.stderr(), '', 'nothing on stderr')
})

t.test('a request still running after SHUTDOWN_GRACE_MS is cut off, and the exit code is still 0', async (t) => {
  engine.reset()
  const server = await startBuiltServer(t, { ...baseEnv(dbs, engine.url), SHUTDOWN_GRACE_MS: '300' })
  engine.hang()
  const before = engineHealthCalls()
  // The health check would give up on the engine after 1.5 s; the grace time ends well before.
  const held = fetch(`${server.url}/api/health`).then((r) => r.status, (error: unknown) => error as Error)
  await until('the engine holds the request', () => engineHealthCalls() > before)
  const signalledAt = performance.now()
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0, 'exit code 0')
  const elapsed = performance.now() - signalledAt
  t.ok(elapsed >= 250 && elapsed < 5000, `exited soon after the grace time (${Math.round(elapsed)} ms)`)
  t.type(await held, Error, 'the request was cut off')
  t.ok(server.logs.some((l) => /cut off/.test(String(l.msg))), 'and the log says so')
})
