import { spawn, type ChildProcess } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import t from 'tap'
import type { InjectOptions } from 'fastify'
import { build, bearer, seedHuman, type Test, type TestApp } from './helper.js'
import { freePort } from './ports.js'

/**
 * Redis going away: rate limits and cache evictions keep working per instance at once, a block does not
 * wait for it, the log says so once when it goes and once when it is back, and the service reconnects
 * by itself. Each test runs its own redis-server on a free port (never the shared one).
 */

const ADMIN = '111111111111111111'
const OTHER = '222222222222222222'
/** An answer that waited on Redis took 1.4 to 3.3 s before; one that does not, a few ms (plus a busy machine's slack). */
const NO_WAIT_MS = 1000
/** A block waited 8 to 10 s on a lost Redis before; now only on the engine and the database. */
const BLOCK_NO_WAIT_MS = 4000

interface OwnRedis { start: () => Promise<void>, stop: () => Promise<void> }

function ownRedis (t: Test, port: number): OwnRedis {
  let child: ChildProcess | null = null
  const stop = async () => {
    const running = child
    if (running === null) return
    child = null
    const exited = new Promise((resolve) => running.once('exit', resolve))
    running.kill('SIGKILL')
    await exited
  }
  t.teardown(stop)
  return {
    async start () {
      const started = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'ignore'] })
      child = started
      await new Promise<void>((resolve, reject) => {
        started.stdout?.on('data', (chunk: Buffer) => { if (chunk.toString().includes('Ready to accept connections')) resolve() })
        started.once('exit', () => { reject(new Error('redis-server exited')) })
      })
    },
    stop
  }
}

/** Counts what ioredis writes to stderr on an unhandled error event (a line per reconnection attempt). */
function stderrLines (t: Test): () => number {
  const original = console.error
  let lines = 0
  console.error = (...args: unknown[]) => {
    if (String(args[0]).includes('ioredis')) lines++
    else original(...args)
  }
  t.teardown(() => { console.error = original })
  return () => lines
}

/** Log lines containing `text`, from line `from` on. */
const redisLines = (s: TestApp, text: string, from = 0) => s.logs.slice(from).filter((l) => String(l.msg).includes(text)).length

async function timed (s: TestApp, options: InjectOptions) {
  const started = performance.now()
  const res = await s.app.inject(options)
  return { status: res.statusCode, ms: performance.now() - started }
}

async function rateLimitKeys (port: number): Promise<string[]> {
  const client = new Redis({ port, host: '127.0.0.1', lazyConnect: true })
  await client.connect()
  try {
    return await client.keys('alarm-web:rl:*')
  } finally {
    client.disconnect()
  }
}

async function until (what: () => boolean, ms = 15_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) if (what()) return true
  return what()
}

t.test('Redis stopped at start: limits count in memory at once, one warning, then Redis is used once it is up', async (t) => {
  const port = await freePort()
  const redis = ownRedis(t, port)
  const stderr = stderrLines(t)
  const s = await build(t, { env: { REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_AUTH_READ_MAX: '3' } })

  const answers = []
  for (let i = 0; i < 4; i++) answers.push(await timed(s, { url: '/api/auth/providers' }))
  t.comment(`answers with Redis stopped: ${answers.map((a) => Math.round(a.ms)).join(', ')} ms`)
  t.same(answers.map((a) => a.status), [200, 200, 200, 429], 'the per-IP limit holds in memory')
  for (const a of answers) t.ok(a.ms < NO_WAIT_MS, `answered in ${Math.round(a.ms)} ms without waiting on Redis`)

  await sleep(1500)
  t.equal(redisLines(s, 'Redis is unreachable'), 2, 'one warning per feature (rate limits, cache eviction), not one per attempt')
  t.equal(stderr(), 0, 'nothing on stderr')

  await redis.start()
  t.ok(await until(() => redisLines(s, 'Redis is back') === 2), 'reconnected by itself, said once per feature')
  t.equal((await timed(s, { url: '/api/auth/providers', remoteAddress: '10.0.0.9' })).status, 200)
  t.ok((await rateLimitKeys(port)).some((k) => k.includes('10.0.0.9')), 'counted in Redis again')
})

t.test('Redis lost mid-run: limits, blocks and evictions carry on per instance, one warning each way', async (t) => {
  const port = await freePort()
  const redis = ownRedis(t, port)
  await redis.start()
  const stderr = stderrLines(t)
  const s = await build(t, { env: { REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_AUTH_READ_MAX: '3', PORACLE_ADMIN_IDS: ADMIN } })
  await seedHuman(s, { id: ADMIN })
  await seedHuman(s, { id: OTHER })
  const admin = bearer(s.app, { userId: ADMIN, isAdmin: true })
  t.equal((await timed(s, { url: '/api/auth/providers', remoteAddress: '10.0.0.1' })).status, 200)
  t.ok((await rateLimitKeys(port)).some((k) => k.includes('10.0.0.1')), 'counted in Redis while it is up')

  const mark = s.logs.length
  await redis.stop()
  t.ok(await until(() => redisLines(s, 'Redis connection lost', mark) === 2), 'the loss is noticed and said once per feature')
  const answers = []
  for (let i = 0; i < 4; i++) answers.push(await timed(s, { url: '/api/auth/providers', remoteAddress: '10.0.0.2' }))
  t.comment(`answers with Redis lost: ${answers.map((a) => Math.round(a.ms)).join(', ')} ms`)
  t.same(answers.map((a) => a.status), [200, 200, 200, 429], 'the limit holds in memory')
  for (const a of answers) t.ok(a.ms < NO_WAIT_MS, `answered in ${Math.round(a.ms)} ms`)

  const block = await timed(s, { method: 'PUT', url: `/api/admin/users/disable?id=${OTHER}`, headers: admin })
  t.comment(`block with Redis lost: ${Math.round(block.ms)} ms`)
  t.equal(block.status, 200, 'the block is done')
  t.ok(block.ms < BLOCK_NO_WAIT_MS, 'and does not wait on Redis')
  const blocked = await s.app.inject({ url: '/api/profiles', headers: bearer(s.app, { userId: OTHER }) })
  t.equal(blocked.statusCode, 403, 'this instance forgot its cached flag at once')

  await sleep(1500)
  t.equal(redisLines(s, 'Redis connection lost', mark), 2, 'still one warning per feature')
  t.equal(s.logs.filter((l) => String(l.msg).includes('could not be published')).length, 0, 'no line per eviction')
  t.equal(stderr(), 0, 'nothing on stderr')

  await redis.start()
  t.ok(await until(() => redisLines(s, 'Redis is back', mark) === 2), 'reconnected by itself, said once per feature')
  t.equal((await timed(s, { url: '/api/auth/providers', remoteAddress: '10.0.0.3' })).status, 200)
  t.ok((await rateLimitKeys(port)).some((k) => k.includes('10.0.0.3')), 'counted in Redis again')
})
