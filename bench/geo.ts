/**
 * The geofence feed and gym area resolution at community scale.
 *
 * 1. GET /api/geofence-feed over HTTP with 5,000 admin fences (Koji fake) and 2,000 user fences: p50 and
 *    p99 and bytes for a 200 when nothing changed (admin part cached, user part unchanged), a 200 right
 *    after a user fence changed (the body rebuilt), and a 304 for a matching If-None-Match. Baseline: a
 *    bare Fastify route sending the same bytes, measured the same way in this run.
 * 2. The admin area of 50 gyms against the same 5,000 fences: the bounding-box prefilter against a naive
 *    ray-casting scan of every fence.
 *
 *   npm run bench:geo            (MariaDB on 127.0.0.1:3306, root without password)
 */
import type { AddressInfo } from 'node:net'
import Fastify from 'fastify'
import { buildApp } from '../app.js'
import { loadConfig } from '../plugins/base/config.js'
import { startAlarmEngineFake } from '../test/fakes/alarm-engine.js'
import { startKojiFake, type KojiFence } from '../test/fakes/koji.js'
import { firstContaining, pointInPolygon, withBox, type LatLon } from '../lib/polygon.js'
import { benchDatabases, benchEnv, createEngineDatabase, dropDatabases } from './setup.js'

const ADMIN_FENCES = 5000
const USER_FENCES = 2000
const GYMS = 50
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300)
const DATABASES = benchDatabases('geo')
const SECRET = 'bench-engine-secret'

/** A deterministic pseudo-random source, so every run measures the same shapes. */
function random (seed: number): () => number {
  let state = seed
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31
    return state / 2 ** 31
  }
}

/** A star-shaped (never self-crossing) ring of `points` around a centre: concave like real fences. */
function ring (rnd: () => number, lat: number, lon: number, radius: number, points: number): LatLon[] {
  return Array.from({ length: points }, (_, i) => {
    const angle = (2 * Math.PI * i) / points
    const r = radius * (0.6 + 0.4 * rnd())
    return [Number((lat + r * Math.sin(angle)).toFixed(6)), Number((lon + r * Math.cos(angle)).toFixed(6))] as LatLon
  })
}

/** Fences tiled over a 50 x 100 grid of 0.05 degree cells around Europe, like a big community's. */
function adminFences (rnd: () => number): KojiFence[] {
  return Array.from({ length: ADMIN_FENCES }, (_, i) => {
    const lat = 45 + Math.floor(i / 100) * 0.05
    const lon = 5 + (i % 100) * 0.05
    return { id: i + 1, name: `Area ${i}`, projects: ['poracle'], path: ring(rnd, lat, lon, 0.03, 12 + Math.floor(rnd() * 30)) }
  })
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number
}

async function timed (url: string, headers: Record<string, string>, expect: number, between?: () => Promise<void>) {
  const times: number[] = []
  let bytes = 0
  for (let i = 0; i < REQUESTS; i++) {
    if (between) await between()
    const started = performance.now()
    const res = await fetch(url, { headers })
    const body = await res.arrayBuffer()
    times.push(performance.now() - started)
    if (res.status !== expect) throw new Error(`${url}: expected ${expect}, got ${res.status}`)
    bytes = Number(res.headers.get('content-length') ?? body.byteLength)
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99), bytes }
}

const ms = (n: number) => `${n.toFixed(2)} ms`

async function main (): Promise<void> {
  const rnd = random(42)
  const fences = adminFences(rnd)
  const koji = await startKojiFake({ fences })
  await createEngineDatabase(DATABASES.engine)
  const engine = await startAlarmEngineFake({ database: DATABASES.engine, secret: SECRET })
  const config = loadConfig({
    ...benchEnv(DATABASES, engine.url, SECRET),
    LOG_LEVEL: 'warn',
    KOJI_API_ADDRESS: koji.url,
    KOJI_BEARER_TOKEN: koji.token,
    KOJI_PROJECT_NAME: 'poracle'
  })
  const app = await buildApp({ config })
  const bare = Fastify()
  try {
    await app.listen({ port: 0, host: '127.0.0.1' })
    const pool = app.db.pool
    const statuses = ['active', 'pending_review', 'rejected']
    for (let batch = 0; batch < USER_FENCES; batch += 500) {
      const rows = Array.from({ length: 500 }, (_, k) => {
        const i = batch + k
        return [`user${i % 200}`, `user fence ${i}`, `User fence ${i}`, statuses[i % 3], JSON.stringify(ring(rnd, 45 + rnd() * 2.5, 5 + rnd() * 5, 0.01, 8 + Math.floor(rnd() * 40)))]
      })
      await pool.batch('INSERT INTO user_geofences (human_id, koji_name, display_name, status, polygon_json) VALUES (?, ?, ?, ?, ?)', rows)
    }
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/geofence-feed`

    const warmStarted = performance.now()
    const first = await fetch(url)
    const firstBody = await first.text()
    const coldMs = performance.now() - warmStarted
    const etag = first.headers.get('etag') as string
    const served = (JSON.parse(firstBody) as { data: unknown[] }).data.length

    const cached = await timed(url, { 'accept-encoding': 'identity' }, 200)
    // fetch asks for gzip like both engines' downloaders; `bytes` is then what crossed the wire.
    const zipped = await timed(url, {}, 200)
    const notModified = await timed(url, { 'if-none-match': etag }, 304)
    let n = 0
    // A rename as this instance makes it: the row, then the feed told (which also asks the engine to reload).
    const rebuilt = await timed(url, { 'accept-encoding': 'identity' }, 200, async () => {
      await pool.query('UPDATE user_geofences SET koji_name = ? WHERE id = 1', [`renamed ${n++}`])
      await app.userGeofences.feedChanged()
    })

    bare.get('/feed', async (_request, reply) => reply.type('application/json; charset=utf-8').send(firstBody))
    await bare.listen({ port: 0, host: '127.0.0.1' })
    const baseline = await timed(`http://127.0.0.1:${(bare.server.address() as AddressInfo).port}/feed`, { 'accept-encoding': 'identity' }, 200)

    // Area resolution: 50 gyms spread over the fenced region and a little beyond it.
    const boxed = fences.map((f) => withBox({ name: f.name, path: f.path }))
    const gyms = Array.from({ length: GYMS }, () => [44.8 + rnd() * 2.8, 4.8 + rnd() * 5.4] as LatLon)
    const naive = (lat: number, lon: number) => boxed.find((f) => pointInPolygon(lat, lon, f.path))?.name ?? null
    for (const [lat, lon] of gyms) {
      if (naive(lat, lon) !== firstContaining(boxed, lat, lon)) throw new Error('prefilter and naive scan disagree')
    }
    const matched = gyms.filter(([lat, lon]) => firstContaining(boxed, lat, lon) !== null).length
    const measure = (resolve: (lat: number, lon: number) => string | null) => {
      const rounds = 40
      const times: number[] = []
      for (let r = 0; r < rounds; r++) {
        const started = performance.now()
        for (const [lat, lon] of gyms) resolve(lat, lon)
        times.push(performance.now() - started)
      }
      return percentile(times, 50)
    }
    // Both run until optimised first: on a busy machine V8's background compiler lags far behind.
    for (let warm = 0; warm < 5; warm++) {
      measure(naive)
      measure((lat, lon) => firstContaining(boxed, lat, lon))
    }
    const withPrefilter = measure((lat, lon) => firstContaining(boxed, lat, lon))
    const naiveScan = measure(naive)

    console.log(`\nGeofence feed: ${ADMIN_FENCES} admin + ${USER_FENCES} user fences (${served} served), ${REQUESTS} sequential requests each, keep-alive`)
    console.log(`  first request (Koji read + build)   ${ms(coldMs)}`)
    console.log(`  200, nothing changed               p50 ${ms(cached.p50)}  p99 ${ms(cached.p99)}  ${(cached.bytes / 1024).toFixed(0)} KiB`)
    console.log(`  200 gzip, nothing changed          p50 ${ms(zipped.p50)}  p99 ${ms(zipped.p99)}  ${(zipped.bytes / 1024).toFixed(0)} KiB on the wire`)
    console.log(`  200, a user fence changed          p50 ${ms(rebuilt.p50)}  p99 ${ms(rebuilt.p99)}  (rebuild and gzip included)`)
    console.log(`  304, If-None-Match                 p50 ${ms(notModified.p50)}  p99 ${ms(notModified.p99)}  ${notModified.bytes} bytes`)
    console.log(`  baseline: bare route, same bytes   p50 ${ms(baseline.p50)}  p99 ${ms(baseline.p99)}`)
    console.log(`  ratio to baseline (p50): unchanged ${(cached.p50 / baseline.p50).toFixed(2)}, gzip ${(zipped.p50 / baseline.p50).toFixed(2)}, rebuilt ${(rebuilt.p50 / baseline.p50).toFixed(2)}, 304 ${(notModified.p50 / baseline.p50).toFixed(2)}`)
    console.log(`\nArea of ${GYMS} gyms against ${ADMIN_FENCES} fences (${matched} inside a fence), p50 of 40 rounds`)
    console.log(`  bounding-box prefilter   ${ms(withPrefilter)}`)
    console.log(`  naive scan               ${ms(naiveScan)}`)
    console.log(`  speed-up                 ${(naiveScan / withPrefilter).toFixed(1)}x`)
  } finally {
    await bare.close()
    await app.close()
    await engine.close()
    await koji.close()
    await dropDatabases(DATABASES.service, DATABASES.engine)
  }
}

await main()
