/**
 * "Why didn't I get that alert?" for a busy member: 1,000 alarms over 3 profiles (700 pokemon, 150 raid,
 * 150 quest), 10 areas a profile among the engine's 200 fences (its own geofence list, no Koji), in the
 * bench city of bench:estimates (bench/city.ts: 400,000 pokemon of the last hour, 20,000 gyms and stops).
 *
 * One explanation over HTTP (POST /api/alarm-explanations on a listening server, a new pokemon event each
 * time: a random place in the city, random IVs): p50 and p95, against the floor: the matcher alone in
 * process (lib/alarm-explain.ts, the same member and fences already in memory: reading the event, the
 * point in the 200 fences, the active profile and the 1,000 alarms), timed right after each request, and
 * the engine fake's answer to the read the service makes of every profile's alarms (once: the member is
 * then kept EXPLAIN_MEMBER_SECONDS, so the figure is what a member's first question adds).
 *
 * The recent list (GET /api/alarm-explanations/recent?type=pokemon, the first page of 30, and a page
 * further on by its cursor): p50 and p95, against its floor in process: the newest page of the member's
 * events (lib/recent-list.ts) from the walk of the kept read of the scanner's live table over their places
 * (30 fences and a 2 km circle), timed right after each request; and the same with the walk itself,
 * which the first list after each new read of the live table (once a minute) runs.
 *
 *   npm run bench:explain             (MariaDB on 127.0.0.1:3306, root without password)
 *   BENCH_RUNS=50 npm run bench:explain
 * The load average is printed with the figures.
 */
import { loadavg } from 'node:os'
import { buildApp } from '../app.js'
import { loadConfig } from '../plugins/base/config.js'
import { fenceSet } from '../plugins/domain/engine-fences.js'
import mariadb from 'mariadb'
import { activeProfileAt, explain, readEvent, type MemberState } from '../lib/alarm-explain.js'
import { boxesOf, pageOf, placeTest, placesOf } from '../lib/recent-list.js'
import { createGolbatDatabase, dropGolbatDatabase } from '../test/fixtures/golbat-schema.js'
import type { LatLon } from '../lib/polygon.js'
import type { AlarmType } from '../schemas/alarm-types.js'
import { startAlarmEngineFake } from '../test/fakes/alarm-engine.js'
import { insertAlarm, insertHuman, insertProfile } from '../test/fakes/engine-db.js'
import { CITY, POKEMON, fence, generateLiveTables } from './city.js'
import { BENCH_DB, benchDatabases, benchEnv, createEngineDatabase, dropDatabases } from './setup.js'
import { median, spread } from './stats.js'

const SECRET = 'bench-engine-secret'
const DATABASES = benchDatabases('explain')
const USER = '434343434343434343'
const RUNS = Number(process.env.BENCH_RUNS ?? 200)
const RECENT_RUNS = Number(process.env.BENCH_RECENT_RUNS ?? 100)
const WARMUP = 20

/** A deterministic generator, so runs compare. */
function random (seed: number): () => number {
  let s = seed
  return () => { s = (s * 1_103_515_245 + 12_345) % 2 ** 31; return s / 2 ** 31 }
}

const pct = (list: number[], p: number) => [...list].sort((a, b) => a - b)[Math.min(list.length - 1, Math.floor((p / 100) * list.length))] as number
const fmt = (ms: number) => `${ms.toFixed(2)} ms`
const figures = (list: number[]) => `p50 ${fmt(pct(list, 50))}  p95 ${fmt(pct(list, 95))}  (median ${fmt(median(list))}, ${spread(list)} ms)`

async function main (): Promise<void> {
  const root = await mariadb.createConnection({ ...BENCH_DB, connectTimeout: 20_000 })
  const golbat = await createGolbatDatabase(root, 'aw_bench_explain_golbat')
  const generating = performance.now()
  await generateLiveTables(root, Math.floor(Date.now() / 1000))
  console.log(`the bench city's live tables: ${POKEMON.toLocaleString('en')} pokemon in ${((performance.now() - generating) / 1000).toFixed(1)} s`)
  await createEngineDatabase(DATABASES.engine)
  const engine = await startAlarmEngineFake({ database: DATABASES.engine, secret: SECRET, mode: 'ng' })
  const fences: Array<{ name: string, path: LatLon[] }> = []
  for (let row = 0; row < CITY.rows; row++) for (let col = 0; col < CITY.cols; col++) fences.push({ name: `f${String(fences.length).padStart(3, '0')}`, path: fence(row, col) })
  engine.set({ fences })
  try {
    const config = loadConfig({
      ...benchEnv(DATABASES, engine.url, SECRET),
      LOG_LEVEL: 'warn',
      EXPLAIN_RATE_MAX: '100000',
      ENGINE_TIMEOUT_MS: '60000',
      SCANNER_DB_HOST: BENCH_DB.host,
      SCANNER_DB_USER: BENCH_DB.user,
      SCANNER_DB_NAME: golbat,
      // Measured, not cut off: the first read of the live table is waited for.
      ESTIMATE_TIMEOUT_MS: '60000'
    })
    const app = await buildApp({ config, logger: false })
    const address = await app.listen({ host: '127.0.0.1', port: 0 })
    try {
      // The member: 10 neighbouring fences, the pin among them; Work and Evening with their own areas.
      const rnd = random(7)
      const areasOf = (start: number) => [0, 1, 2, 3, 4, 20, 21, 22, 23, 24].map((i) => (fences[start + i] as { name: string }).name)
      const home = areasOf(84)
      const pin = { latitude: CITY.lat + 5 * CITY.dLat, longitude: CITY.lon + 10 * CITY.dLon }
      await insertHuman(app.engineDb.pool, { id: USER, area: home, ...pin })
      await insertProfile(app.engineDb.pool, { id: USER, profileNo: 2, name: 'Work', area: areasOf(40), ...pin, activeHours: [{ day: 1, hours: 9, mins: 0 }] })
      await insertProfile(app.engineDb.pool, { id: USER, profileNo: 3, name: 'Evening', area: areasOf(120), ...pin, activeHours: [{ day: 1, hours: 18, mins: 0 }] })
      const alarms: MemberState['alarms'] = []
      for (let i = 0; i < 1000; i++) {
        const profileNo = 1 + (i % 3)
        const type: AlarmType = i < 700 ? 'pokemon' : i < 850 ? 'raid' : 'quest'
        const row: Record<string, unknown> = type === 'pokemon'
          ? { pokemon_id: 1 + Math.floor(rnd() * 400), min_iv: Math.floor(rnd() * 100), distance: i % 10 === 0 ? 2000 : 0, ...(i % 7 === 0 ? { pvp_ranking_league: 1500, pvp_ranking_worst: 20 } : {}) }
          : type === 'raid' ? { pokemon_id: 9000, level: 1 + (i % 6) } : { reward_type: 7, reward: 1 + (i % 400) }
        const uid = await insertAlarm(app.engineDb.pool, type, { id: USER, profile_no: profileNo, ...row })
        alarms.push({ type, row: { ...row, uid, profile_no: profileNo } })
      }
      const headers = { authorization: `Bearer ${app.auth.mint({ userId: USER, username: USER, type: 'discord:user', isAdmin: false, enabled: true, profileNo: 1 }, 600).token}`, 'content-type': 'application/json' }

      // The floor's member and fences, as the plugin hands them to the matcher.
      const profile = (profileNo: number, name: string, areas: string[]) => ({ profileNo, name, areas, place: pin, activeHours: [] })
      const member: MemberState = {
        enabled: true,
        adminDisabled: false,
        blockedAlerts: [],
        currentProfileNo: 1,
        profiles: [profile(1, 'Default', home), { ...profile(2, 'Work', areasOf(40)), activeHours: [{ day: 1, hours: 9, mins: 0 }] }, { ...profile(3, 'Evening', areasOf(120)), activeHours: [{ day: 1, hours: 18, mins: 0 }] }],
        alarms
      }
      const set = fenceSet(fences as unknown as Array<Record<string, unknown>>, true)
      const grunts = new Map()

      const events = Array.from({ length: RUNS + WARMUP }, () => {
        const iv = () => Math.floor(rnd() * 16)
        return {
          type: 'pokemon' as const,
          message: {
            pokemon_id: 1 + Math.floor(rnd() * 400),
            latitude: CITY.lat + rnd() * CITY.rows * CITY.dLat,
            longitude: CITY.lon + rnd() * CITY.cols * CITY.dLon,
            disappear_time: Math.floor(Date.now() / 1000) + 900,
            individual_attack: iv(),
            individual_defense: iv(),
            individual_stamina: iv(),
            cp: 1000,
            pokemon_level: 30,
            gender: 1,
            pvp: { great: [{ rank: 1 + Math.floor(rnd() * 50), cp: 1450, cap: 50, capped: true }] }
          }
        }
      })
      const http: number[] = []
      const floor: number[] = []
      const engineRead: number[] = []
      let alerted = 0
      for (const [i, event] of events.entries()) {
        const started = performance.now()
        const res = await fetch(`${address}/api/alarm-explanations`, { method: 'POST', headers, body: JSON.stringify({ event }) })
        const body = await res.json() as { alerted: boolean, alarms: unknown[] }
        const took = performance.now() - started
        if (res.status !== 200) throw new Error(`explanation: ${res.status} ${JSON.stringify(body)}`)
        const floorStarted = performance.now()
        const nowMs = Date.now()
        const scanned = readEvent('pokemon', event.message, Math.floor(nowMs / 1000), grunts)
        const answer = explain(member, scanned, { at: new Set(set.at(scanned.latitude, scanned.longitude)), known: set.known }, activeProfileAt(member, nowMs, nowMs, 'UTC'))
        const floorTook = performance.now() - floorStarted
        // What a member's first question waits for besides: the engine's read of every profile's alarms.
        const engineStarted = performance.now()
        await (await fetch(`${engine.url}/api/tracking/allProfiles/${USER}?includeDescriptions=false`, { headers: { 'x-poracle-secret': SECRET } })).json()
        const engineTook = performance.now() - engineStarted
        if (answer.alarms.length !== body.alarms.length) throw new Error(`the floor saw ${answer.alarms.length} alarms, the service ${body.alarms.length}`)
        if (i < WARMUP) continue
        http.push(took)
        floor.push(floorTook)
        engineRead.push(engineTook)
        if (body.alerted) alerted++
      }
      console.log(`bench:explain — 1,000 alarms over 3 profiles (700 pokemon explained per event), 200 engine fences, ${RUNS} events (${alerted} alerted), load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`)
      console.log(`  one explanation over HTTP      ${figures(http)}`)
      console.log(`  the matcher alone (in process) ${figures(floor)}`)
      console.log(`  the engine's read alone (a member's first question only) ${figures(engineRead)}`)
      console.log(`  ratio                          ${(pct(http, 50) / pct(floor, 50)).toFixed(1)}x / ${(pct(http, 95) / pct(floor, 95)).toFixed(1)}x (p50 / p95)`)

      // The recent list: the first read of the live table is waited for once, outside the timed runs.
      const coldStarted = performance.now()
      const cold = await fetch(`${address}/api/alarm-explanations/recent?type=pokemon`, { headers })
      if (cold.status !== 200) throw new Error(`recent: ${cold.status} ${await cold.text()}`)
      console.log(`first recent list, nothing kept yet: ${fmt(performance.now() - coldStarted)}; its read of the live table: ${app.liveSpawns.lastRead.rows.toLocaleString('en')} rows in ${fmt(app.liveSpawns.lastRead.ms)}`)
      const places = placesOf(member, ['pokemon'], set.byName)
      const recentHttp: number[] = []
      const recentFloor: number[] = []
      const recentWalk: number[] = []
      const furtherHttp: number[] = []
      let inPlaces = 0
      let cursor: string | null = null
      for (let i = 0; i < RECENT_RUNS + WARMUP; i++) {
        const started = performance.now()
        const res = await fetch(`${address}/api/alarm-explanations/recent?type=pokemon&limit=30`, { headers })
        const body = await res.json() as { events: unknown[], nextCursor: string | null }
        const took = performance.now() - started
        if (res.status !== 200 || body.events.length !== 30) throw new Error(`recent: ${res.status} ${JSON.stringify(body).slice(0, 300)}`)
        const floorStarted = performance.now()
        const seen = await app.recentEvents.seen('pokemon', boxesOf(places), placeTest(places))
        const { page } = pageOf(seen, undefined, 30)
        const floorTook = performance.now() - floorStarted
        if (page.length !== 30) throw new Error('the floor found no page')
        // The same with the walk itself, as the first list after each new read of the live table runs it.
        const walkStarted = performance.now()
        const walked = await app.recentEvents.seen('pokemon', boxesOf(places), { ...placeTest(places), key: `bench-${i}` })
        pageOf(walked, undefined, 30)
        const walkTook = performance.now() - walkStarted
        // A page further on, by the cursor of the one before it (ten pages in, then again from the top).
        const furtherStarted = performance.now()
        const further: Response = await fetch(`${address}/api/alarm-explanations/recent?type=pokemon&limit=30${cursor === null || i % 10 === 0 ? '' : `&cursor=${cursor}`}`, { headers })
        cursor = ((await further.json()) as { nextCursor: string | null }).nextCursor
        const furtherTook = performance.now() - furtherStarted
        if (i < WARMUP) continue
        recentHttp.push(took)
        recentFloor.push(floorTook)
        recentWalk.push(walkTook)
        furtherHttp.push(furtherTook)
        inPlaces = seen.size
      }
      console.log(`recent list — ${inPlaces.toLocaleString('en')} pokemon of the last hour in the member's 30 fences and 2 km circle, ${RECENT_RUNS} runs, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`)
      console.log(`  first page over HTTP           ${figures(recentHttp)}`)
      console.log(`  a page by its cursor           ${figures(furtherHttp)}`)
      console.log(`  the page alone (in process)    ${figures(recentFloor)}`)
      console.log(`  with a new walk (in process)   ${figures(recentWalk)}`)
      console.log(`  ratio                          ${(pct(recentHttp, 50) / pct(recentFloor, 50)).toFixed(1)}x / ${(pct(recentHttp, 95) / pct(recentFloor, 95)).toFixed(1)}x (p50 / p95)`)
    } finally {
      await app.close()
    }
  } finally {
    await engine.close()
    await dropDatabases(DATABASES.service, DATABASES.engine)
    await dropGolbatDatabase(root, golbat)
    await root.end()
  }
}

await main()
