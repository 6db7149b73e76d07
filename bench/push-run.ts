import { createECDH, randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import type { MemberState } from '../lib/alarm-explain.js'
import Fastify from 'fastify'
import { buildApp } from '../app.js'
import { loadConfig } from '../plugins/base/config.js'
import { pushSubscriptions } from '../db/schema/service.js'
import { topicOf } from '../plugins/domain/push-alerts/notification.js'
import { alarmKeys, CandidateIndex, eventKeys } from '../lib/push-index.js'
import { startAlarmEngineFake } from '../test/fakes/alarm-engine.js'
import { insertAlarm, insertHuman } from '../test/fakes/engine-db.js'
import { CITY, fence } from './city.js'
import { benchDatabases, benchEnv, createEngineDatabase, dropDatabases, fillEngineDatabase } from './setup.js'

/**
 * Run by bench/push.ts. BENCH_MEMBERS members (10,000) with one push device and BENCH_ALARMS (10) pokemon
 * alarms each, in areas of the bench city's 200 fences; a burst of BENCH_RATE (2,000) scanner events a
 * second for BENCH_SECONDS (30) into the webhook, in batches every 50 ms, as Golbat sends them. A local
 * HTTPS push service on a thread of its own counts what arrives (it does not decrypt: the tests do). Printed: members read into
 * memory (time), events matched per second, pushes per second, p50/p99 from the batch's arrival to the
 * push reaching the push service, memory, the matching cost per event in the service against the matcher
 * alone in process (every member, and the members the index names), and the NG hook's answers at
 * BENCH_HOOK_RATE (200) calls a second: on a quiet service, during the burst, and after it. The VAPID pair is the one the
 * service makes on its first start.
 */

const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 10_000)
const ALARMS = Number(process.env.BENCH_ALARMS ?? 10)
const RATE = Number(process.env.BENCH_RATE ?? 2000)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30)
const HOOK_RATE = Number(process.env.BENCH_HOOK_RATE ?? 200)
const SECRET = 'bench-engine-secret'
const FEED = 'bench-feed-token-0123456789'
const HOOK = 'bench-hook-token-0123456789'
const DATABASES = benchDatabases('push')

/**
 * The local push service (a worker thread): answers 201 to every push, counts them and the first arrival
 * of each topic (as epoch milliseconds, which every thread reads alike), and reports on request.
 */
const PUSH_SERVICE = `
const { createServer } = require('node:https')
const { parentPort, workerData: { key, cert } } = require('node:worker_threads')
const arrivals = new Map()
let pushes = 0
const service = createServer({ key, cert }, (request, response) => {
  request.resume()
  request.on('end', () => {
    pushes++
    const topic = request.headers.topic
    if (topic !== undefined && !arrivals.has(topic)) arrivals.set(topic, performance.timeOrigin + performance.now())
    response.writeHead(201).end()
  })
})
service.listen(0, '127.0.0.1', () => { parentPort.postMessage(service.address().port) })
parentPort.on('message', () => { parentPort.postMessage({ pushes, arrivals: [...arrivals] }) })
`

/**
 * The hook's caller (a worker thread): posts each body at its time on the schedule over kept-alive
 * connections, then reports the answer times. undici's Pool, not fetch: fetch's own work (WHATWG streams
 * and headers) put a bare route's p99 at 23-31 ms here against 3-4 ms through the Pool, which would time
 * the caller, not the service; PoracleNG's own client is Go's net/http.
 */
const HOOK_CALLER = `
const { parentPort, workerData: { url, bodies, rate } } = require('node:worker_threads')
const { Pool } = require('undici')
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
;(async () => {
  const target = new URL(url)
  const pool = new Pool(target.origin, { connections: 16 })
  const times = []
  let failed = 0
  const calls = []
  const start = performance.now()
  for (let i = 0; i < bodies.length; i++) {
    const wait = start + (i * 1000) / rate - performance.now()
    if (wait > 0) await sleep(wait)
    const t0 = performance.now()
    calls.push(pool.request({ path: target.pathname, method: 'POST', headers: { 'content-type': 'application/json' }, body: bodies[i] })
      .then(async (res) => { await res.body.dump(); times.push(performance.now() - t0) }, () => { failed++ }))
  }
  await Promise.all(calls)
  await pool.close()
  parentPort.postMessage({ times, failed })
})()
`

function random (seed: number): () => number {
  let s = seed
  return () => { s = (s * 1_103_515_245 + 12_345) % 2 ** 31; return s / 2 ** 31 }
}
const pct = (list: number[], p: number) => list.length === 0 ? NaN : [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor((p / 100) * list.length))] as number
const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function run (): Promise<void> {
  const certificateDir = process.env.PUSH_SERVICE_CERT_DIR as string
  // The push service, on a thread of its own as a real one is on machines of its own: counts arrivals by topic.
  const service = new Worker(PUSH_SERVICE, { eval: true, workerData: { key: readFileSync(join(certificateDir, 'key.pem')), cert: readFileSync(join(certificateDir, 'cert.pem')) } })
  const [servicePort] = await once(service, 'message') as [number]
  const serviceCounts = async (): Promise<{ pushes: number, arrivals: Array<[string, number]> }> => {
    service.postMessage('count')
    return (await once(service, 'message'))[0] as { pushes: number, arrivals: Array<[string, number]> }
  }

  await createEngineDatabase(DATABASES.engine)
  const engine = await startAlarmEngineFake({ database: DATABASES.engine, secret: SECRET, mode: 'ng' })
  const fences: Array<{ name: string, path: Array<[number, number]> }> = []
  for (let row = 0; row < CITY.rows; row++) for (let col = 0; col < CITY.cols; col++) fences.push({ name: `f${String(fences.length).padStart(3, '0')}`, path: fence(row, col) })
  engine.set({ fences })
  const rnd = random(11)
  const started = performance.now()
  await fillEngineDatabase(DATABASES.engine, async (connection) => {
    for (let m = 0; m < MEMBERS; m++) {
      const id = String(100_000_000_000_000_000n + BigInt(m))
      const areas = [0, 1, 2].map(() => (fences[Math.floor(rnd() * fences.length)] as { name: string }).name)
      await insertHuman(connection, { id, area: areas, language: 'en' })
      for (let a = 0; a < ALARMS; a++) {
        await insertAlarm(connection, 'pokemon', { id, profile_no: 1, pokemon_id: 1 + Math.floor(rnd() * 150), min_iv: Math.floor(rnd() * 100) })
      }
    }
  })
  console.log(`seeded ${MEMBERS} members × ${ALARMS} alarms in ${((performance.now() - started) / 1000).toFixed(1)} s; load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`)

  const config = loadConfig({
    ...benchEnv(DATABASES, engine.url, SECRET),
    LOG_LEVEL: 'warn',
    ENGINE_TIMEOUT_MS: '60000',
    VAPID_SUBJECT: 'mailto:bench@example.org',
    PUSH_ENDPOINT_HOSTS: `127.0.0.1:${servicePort}`,
    SCANNER_WEBHOOK_TOKEN: FEED,
    PUSH_VALIDATION_TOKEN: HOOK,
    PUSH_RATE_MAX: '1000',
    PUSH_CONCURRENCY: '64'
  })
  const app = await buildApp({ config, logger: false })
  await app.ready()
  try {
    const rows = Array.from({ length: MEMBERS }, (_, m) => ({
      userId: String(100_000_000_000_000_000n + BigInt(m)),
      endpoint: `https://127.0.0.1:${servicePort}/push/${m}`,
      endpointHash: randomBytes(32).toString('hex'),
      p256dh: createECDH('prime256v1').generateKeys().toString('base64url'),
      auth: randomBytes(16).toString('base64url')
    }))
    for (let i = 0; i < rows.length; i += 1000) await app.db.db.insert(pushSubscriptions).values(rows.slice(i, i + 1000))
    const warm = performance.now()
    // A restart reads every member with a device; here they were written behind the service's back.
    await app.pushSubscriptions.setDeliveryMode(rows[0]?.userId as string, 1, 'both')
    for (const row of rows) await app.pushAlerts.whenKnown(row.userId)
    console.log(`members read into memory: ${((performance.now() - warm) / 1000).toFixed(1)} s, heap ${mb(process.memoryUsage().heapUsed)}, rss ${mb(process.memoryUsage().rss)}`)

    const address = await app.listen({ host: '127.0.0.1', port: 0 })
    const nowS = () => Math.floor(Date.now() / 1000)
    let encounter = 0
    const event = () => {
      const f = fences[Math.floor(rnd() * fences.length)] as { path: Array<[number, number]> }
      const [lat, lon] = f.path.reduce(([a, b], [x, y]) => [a + x / 16, b + y / 16], [0, 0])
      return { type: 'pokemon', message: { encounter_id: String(++encounter), pokemon_id: 1 + Math.floor(rnd() * 150), form: 0, latitude: lat, longitude: lon, disappear_time: nowS() + 1200, individual_attack: Math.floor(rnd() * 16), individual_defense: Math.floor(rnd() * 16), individual_stamina: Math.floor(rnd() * 16), cp: 500, pokemon_level: 20, gender: 1 } }
    }

    // Matching alone: the matcher over every member for one event, in process. In a block of its own, so
    // its copy of every member's state is garbage before the hook is measured.
    {
      // Read as the service reads them at start (the engine's database, one pass per table per thousand members).
      const read = await app.alarmExplanations.memberStates(rows.map((r) => r.userId))
      const states = rows.map((r) => read.get(r.userId) as MemberState)
      const index = new CandidateIndex<number>()
      states.forEach((state, i) => index.file(i, alarmKeys(state)))
      const alone: number[] = []
      const indexed: number[] = []
      let disagreements = 0
      for (const e of Array.from({ length: 20 }, event)) {
        const prepared = await app.alarmExplanations.prepare('pokemon', e.message, nowS())
        if (prepared === null) continue
        let t0 = performance.now()
        const plain = states.flatMap((state, i) => app.alarmExplanations.decide(state, prepared, Date.now(), 'UTC').alerted ? [i] : [])
        alone.push(performance.now() - t0)
        t0 = performance.now()
        const found = [...index.candidates(eventKeys(prepared.event, prepared.fences.at))].filter((i) => app.alarmExplanations.decide(states[i] as MemberState, prepared, Date.now(), 'UTC').alerted)
        indexed.push(performance.now() - t0)
        if (found.sort((a, b) => a - b).join() !== plain.join()) disagreements++
      }
      console.log(`matching alone (${MEMBERS} members, in process): every member ${pct(alone, 50).toFixed(2)} ms per event; the index's candidates ${pct(indexed, 50).toFixed(3)} ms per event (${(pct(alone, 50) / pct(indexed, 50)).toFixed(0)}× less); answers that differ: ${disagreements} of ${alone.length}`)
    }

    /**
     * The NG hook at HOOK_RATE calls a second for `seconds`: each answer's time as the caller saw it. The
     * caller runs on a thread of its own, as the engine runs in a process of its own: in the service's
     * thread its requests and timers would wait behind the service's work and count as the service's.
     */
    const hookRun = async (seconds: number, url = `${address}/api/push/validation/${HOOK}`): Promise<{ times: number[], failed: number }> => {
      const bodies = Array.from({ length: HOOK_RATE * seconds }, () => JSON.stringify({ ...event(), target: { id: (rows[Math.floor(rnd() * rows.length)] as { userId: string }).userId } }))
      const caller = new Worker(HOOK_CALLER, { eval: true, workerData: { url, bodies, rate: HOOK_RATE } })
      const [result] = await once(caller, 'message') as [{ times: number[], failed: number }]
      await caller.terminate()
      return result
    }
    const hookLine = (label: string, { times, failed }: { times: number[], failed: number }) => console.log(`NG hook at ${HOOK_RATE}/s ${label}: ${times.length} answered, ${failed} failed (connection), p50 ${pct(times, 50).toFixed(2)} ms, p99 ${pct(times, 99).toFixed(2)} ms, max ${Math.max(...times).toFixed(1)} ms (over HTTP, from the caller's thread)`)

    // The hook alone on a quiet service first, then alongside the burst, then once the burst is pushed.
    // Five seconds of calls first warm the code and the push connections, as any running service is warm.
    await hookRun(5)
    const hookAlone = await hookRun(5)
    // The floor: a bare Fastify route in this process answering the same calls with the same answer.
    const bare = Fastify()
    bare.post('/hook', async () => ({ success: true }))
    const bareAddress = await bare.listen({ host: '127.0.0.1', port: 0 })
    await hookRun(1, `${bareAddress}/hook`)
    const bareAlone = await hookRun(5, `${bareAddress}/hook`)
    await bare.close()
    const sentAt = new Map<string, number>()
    const batch = Math.max(1, Math.round(RATE / 20))
    const burstStart = performance.now()
    const hookDuring = hookRun(SECONDS)
    let posted = 0
    let feedFailed = 0
    let peakRss = 0
    for (let tick = 0; tick < SECONDS * 20; tick++) {
      const events = Array.from({ length: batch }, event)
      const at = performance.timeOrigin + performance.now()
      for (const e of events) sentAt.set(topicOf(`pokemon-${e.message.encounter_id}`), at)
      try {
        const res = await fetch(`${address}/api/scanner-webhook/${FEED}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(events) })
        await res.arrayBuffer()
        posted += events.length
      } catch {
        feedFailed += events.length
      }
      peakRss = Math.max(peakRss, process.memoryUsage().rss)
      const wait = burstStart + (tick + 1) * 50 - performance.now()
      if (wait > 0) await sleep(wait)
    }
    const postedIn = (performance.now() - burstStart) / 1000
    await app.pushAlerts.idle()
    for (let i = 0; i < 6000 && app.pushSender.depth() > 0; i++) await sleep(10)
    const total = (performance.now() - burstStart) / 1000
    const { pushes, arrivals } = await serviceCounts()
    const latencies = arrivals.flatMap(([topic, at]) => { const from = sentAt.get(topic); return from === undefined ? [] : [at - from] })
    console.log(`burst: ${posted} events in ${postedIn.toFixed(1)} s (asked ${RATE}/s for ${SECONDS} s; ${feedFailed} not delivered: connection failed); all matched and pushed after ${total.toFixed(1)} s`)
    console.log(`events matched per second: ${(posted / total).toFixed(0)}; matching per event in the service: ${((total * 1000) / posted).toFixed(1)} ms (wall)`)
    console.log(`pushes: ${pushes} (${(pushes / total).toFixed(0)}/s); events that pushed: ${latencies.length}; event → push service p50 ${pct(latencies, 50).toFixed(0)} ms, p99 ${pct(latencies, 99).toFixed(0)} ms`)
    console.log(`memory: peak rss ${mb(peakRss)}, heap now ${mb(process.memoryUsage().heapUsed)}`)
    const metrics = (await app.inject({ url: '/metrics' })).body
    console.log(metrics.split('\n').filter((l) => l.startsWith('alarm_web_push_feed_dropped_total') || l.startsWith('alarm_web_push_failed_total')).join('\n') || 'nothing dropped or failed (metrics off: METRICS_TOKEN unset)')

    hookLine('on its own, 5 s', hookAlone)
    hookLine('a bare Fastify route (the floor), 5 s', bareAlone)
    console.log(`NG hook against the floor: p50 ${(pct(hookAlone.times, 50) / pct(bareAlone.times, 50)).toFixed(2)}x, p99 ${(pct(hookAlone.times, 99) / pct(bareAlone.times, 99)).toFixed(2)}x`)
    hookLine('during the burst', await hookDuring)
    hookLine(`after the burst (heap ${mb(process.memoryUsage().heapUsed)}), 5 s`, await hookRun(5))
    console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`)
  } finally {
    await app.close()
    await engine.close()
    await service.terminate()
    await dropDatabases(DATABASES.service, DATABASES.engine)
  }
}

try {
  await run()
} finally {
  await dropDatabases(DATABASES.service, DATABASES.engine)
}
