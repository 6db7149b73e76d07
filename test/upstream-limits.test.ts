import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import t from 'tap'
import { baseEnv, build, testDatabases } from './helper.js'
import { startFaultPeer } from './fakes/fault-peer.js'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { request } from 'undici'
import { readBounded, BodyTooLargeError } from '../lib/fetch-json.js'

const run = promisify(execFile)
const MB = 1024 * 1024

t.test('a 300 MB engine answer is cut off at ENGINE_MAX_BYTES: 502, connection dropped, memory stays where it was', async (t) => {
  // The fake streams 300 MB from one reused 64 KiB chunk; the app runs in a child process so its RSS is its own.
  const engine = await startFaultPeer({ mode: 'oversize', oversizeBytes: 300 * MB })
  t.teardown(() => engine.close())
  const dbs = await testDatabases()
  // The service database must exist and be migrated before the child starts: one build does it.
  await build(t)
  const env = { ...process.env, ...baseEnv(dbs, engine.url), ENGINE_MAX_BYTES: String(4 * MB) }
  const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', 'test/children/oversize-answer.ts'], { env, timeout: 120_000 })
  const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { status: number, body: { error: string }, ms: number, beforeMb: number, peakMb: number, afterMb: number }
  t.comment(`RSS before ${result.beforeMb} MB, peak ${result.peakMb} MB, after ${result.afterMb} MB; answered in ${result.ms} ms; the fake wrote ${Math.round(engine.oversizeWritten / MB)} MB`)
  t.equal(result.status, 502)
  t.equal(result.body.error, 'The alarm engine sent an answer larger than this service accepts.')
  t.ok(result.afterMb - result.beforeMb < 100, `RSS after within 100 MB of before (${result.beforeMb} → ${result.afterMb} MB)`)
  t.ok(result.peakMb - result.beforeMb < 100, `RSS never grew by 100 MB (peak ${result.peakMb} MB)`)
  t.ok(engine.oversizeAborted, 'the connection was dropped before the answer ended')
  t.ok(engine.oversizeWritten < 100 * MB, `the fake could write only ${Math.round(engine.oversizeWritten / MB)} MB of 300`)
})

t.test('readBounded: a declared length over the limit is refused before reading; a streamed one at the limit', async (t) => {
  let destroyed = 0
  const chunks = (sizes: number[]) => Object.assign((async function * () { for (const n of sizes) yield new Uint8Array(n) })(), { destroy: () => { destroyed++ } })
  await t.rejects(readBounded(chunks([10]), 100, '101'), BodyTooLargeError)
  t.equal(destroyed, 1, 'refused on the declared length')
  await t.rejects(readBounded(chunks([60, 60]), 100), BodyTooLargeError)
  t.equal(destroyed, 2, 'cut off when the running count passes the limit')
  t.equal((await readBounded(chunks([50, 50]), 100)).length, 100, 'exactly at the limit is read')
})

t.test('readBounded: refusing a real answer on its declared length drops it without an uncaught error', async (t) => {
  const server = createServer((_req, res) => { res.writeHead(200, { 'content-length': 1000 }).end(Buffer.alloc(1000)) })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { server.closeAllConnections(); server.close() })
  const uncaught: Error[] = []
  const listener = (error: Error) => { uncaught.push(error) }
  process.prependListener('uncaughtException', listener)
  t.teardown(() => { process.removeListener('uncaughtException', listener) })
  const res = await request(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`)
  await t.rejects(readBounded(res.body, 100, res.headers['content-length']), BodyTooLargeError)
  await new Promise((resolve) => setTimeout(resolve, 100))
  t.same(uncaught.map((e) => e.name), [], 'no uncaught exception')
})
