import t from 'tap'
import { build, bearer, seedHuman, type Test } from './helper.js'
import { FAULT_MODES, startFaultPeer, type FaultPeer } from './fakes/fault-peer.js'
import { startKojiFake } from './fakes/koji.js'
import { ChatPlatformError } from '../plugins/data/chat-platform.js'
import { CALLS, ENGINE_ANSWERS, FAST_ENOUGH_MS, FAULT_STATUS, NO_PEER, OTHER_PEER, TIMEOUT_MS, USER, engineSetup, operations, request } from './engine-faults.js'

/**
 * Every route that calls a peer, against a peer failing in each way (test/fakes/fault-peer.ts): no
 * connection or known down 503, no complete answer in time 504, an answer that cannot be used 502,
 * never a 500, always a JSON `{ error }` and within one peer timeout. The route list is the OpenAPI
 * document itself: each operation is either listed here as calling a peer (and checked to reach it) or
 * as calling none (and checked not to), so a new route cannot be left out.
 */

t.test('the route table covers the OpenAPI document exactly', async (t) => {
  const { s } = await engineSetup(t)
  const ops = await operations(s.app)
  const listed = new Set([...NO_PEER, ...Object.keys(OTHER_PEER)])
  const engineOps = ops.filter((op) => !listed.has(op))
  t.ok(engineOps.length > 100, `${engineOps.length} routes call the engine`)
  for (const op of [...listed, ...Object.keys(ENGINE_ANSWERS), ...Object.keys(CALLS)]) t.ok(ops.includes(op), `${op} is a route of the document`)
})

t.test('routes listed as calling no peer do not call the engine', async (t) => {
  const { s, peer, headers } = await engineSetup(t)
  // The user's block flag is checked (and cached) on the first request; the routes' own calls are counted.
  t.equal((await s.app.inject({ url: '/api/settings', headers })).statusCode, 200)
  await peer.setMode('garbage')
  for (const op of NO_PEER) {
    const before = peer.hits
    const { res } = await request(s, op, headers)
    t.equal(peer.hits, before, `${op} made no engine call`)
    t.not(res.statusCode, 500, `${op} no 500`)
  }
})

/** Builds the app with one other peer behind a fault peer; the engine is the working fake. */
async function peerSetup (t: Test, env: (peer: FaultPeer) => Record<string, string>) {
  const peer = await startFaultPeer()
  t.teardown(() => peer.close())
  const s = await build(t, { env: { PORACLE_ADMIN_IDS: USER, ...env(peer) }, logLevel: 'silent' })
  await seedHuman(s, { id: USER, name: 'Uma', latitude: 52.05, longitude: 1.05 })
  return { s, peer, headers: bearer(s.app, { userId: USER, isAdmin: true }) }
}

const PEER_ENV = (peer: FaultPeer): Record<string, string> => ({ MASTERFILE_URL: peer.url, GAME_DATA_TIMEOUT_MS: String(TIMEOUT_MS), UPSTREAM_MAX_BYTES: String(1024 * 1024) })

t.test('Koji: an approval publishes nothing and answers each fault with its own status; regions answer without Koji', async (t) => {
  const koji = await startKojiFake({ fences: [] })
  t.teardown(() => koji.close())
  const { s, peer, headers } = await peerSetup(t, (p) => {
    p.healthy = koji.url
    return { KOJI_API_ADDRESS: p.url, KOJI_BEARER_TOKEN: koji.token, KOJI_PROJECT_NAME: 'poracle', KOJI_PROJECT_ID: '1', KOJI_TIMEOUT_MS: String(TIMEOUT_MS), KOJI_MAX_BYTES: String(1024 * 1024) }
  })
  const created = await request(s, 'POST /api/geofences/custom', headers)
  t.equal(created.res.statusCode, 201)
  const id = (created.res.json() as { id: number }).id
  t.equal((await s.app.inject({ method: 'POST', url: `/api/geofences/custom/${id}/submit`, headers })).statusCode, 200)
  for (const mode of FAULT_MODES) {
    await peer.setMode(mode)
    const started = performance.now()
    const res = await s.app.inject({ method: 'POST', url: `/api/admin/geofences/submissions/${id}/approve`, headers, payload: { promotedName: 'City Park', groupName: 'Parks' } })
    t.equal(res.statusCode, FAULT_STATUS[mode], `${mode}: approve ${res.body.slice(0, 120)}`)
    t.ok(performance.now() - started < FAST_ENOUGH_MS, `${mode}: within one Koji timeout`)
    const regions = await s.app.inject({ url: '/api/geofences/regions', headers })
    t.same([regions.statusCode, regions.json()], [200, []], `${mode}: regions without Koji`)
  }
  t.equal(koji.saves.length, 0, 'nothing reached Koji\'s working fake')
})

t.test('geocoder: each fault its own status (503 with Retry-After while known down)', async (t) => {
  const { s, peer, headers } = await peerSetup(t, (p) => ({ ...PEER_ENV(p), GEOCODER_TIMEOUT_MS: String(TIMEOUT_MS) }))
  s.engine.set({ providerURL: peer.url })
  for (const [i, mode] of FAULT_MODES.entries()) {
    await peer.setMode(mode)
    for (const url of [`/api/location/geocode?q=street${i}`, `/api/location/reverse?lat=51.${i}&lon=7.1`]) {
      const started = performance.now()
      const res = await s.app.inject({ url, headers })
      t.equal(res.statusCode, FAULT_STATUS[mode], `${mode}: ${url} ${res.body.slice(0, 120)}`)
      t.ok(performance.now() - started < FAST_ENOUGH_MS, `${mode}: within one geocoder timeout`)
      if (res.statusCode === 503) t.equal(res.headers['retry-after'], '30')
      // No connection or no answer opens the geocoder's breaker; the next mode starts with it closed.
      s.clock.advance(30_000)
    }
  }
})

t.test('master file and Golbat: game names answer 503 until a download succeeds, availability answers without Golbat', async (t) => {
  const { s, peer, headers } = await peerSetup(t, (p) => ({ ...PEER_ENV(p), GOLBAT_API_ADDRESS: p.url, GOLBAT_API_SECRET: 'golbat-secret', GOLBAT_TIMEOUT_MS: String(TIMEOUT_MS) }))
  for (const mode of FAULT_MODES) {
    await peer.setMode(mode)
    for (const url of ['/api/masterdata/moves', '/api/masterdata/items']) {
      const started = performance.now()
      const res = await s.app.inject({ url, headers })
      t.same([res.statusCode, res.json()], [503, { error: 'Game data is unavailable right now.' }], `${mode}: ${url}`)
      t.ok(performance.now() - started < FAST_ENOUGH_MS, `${mode}: ${url} within one game data timeout`)
    }
    const availability = await s.app.inject({ url: '/api/pokemon-availability', headers })
    t.same([availability.statusCode, availability.json()], [200, { enabled: true, available: [] }], `${mode}: availability without Golbat`)
    // The master file is retried five minutes after a failure, Golbat's list kept five minutes.
    s.clock.advance(5 * 60_000 + 1)
  }
})

t.test('chat platform: answers are size-limited and its faults carry the peer-fault statuses', async (t) => {
  const { s, peer } = await peerSetup(t, (p) => ({ ...PEER_ENV(p), DISCORD_API_URL: p.url }))
  for (const mode of ['stopped', 'garbage', 'html500', 'refused', 'oversize'] as const) {
    await peer.setMode(mode)
    const error = await s.app.chatPlatform.user('123456789012345678').then(() => null, (err: unknown) => err)
    t.type(error, ChatPlatformError, mode)
    t.equal((error as ChatPlatformError).statusCode, FAULT_STATUS[mode], `${mode}: ${(error as Error).message}`)
  }
  for (let i = 0; i < 40 && !peer.oversizeAborted; i++) await new Promise((resolve) => setTimeout(resolve, 50))
  t.ok(peer.oversizeAborted, 'the oversize answer was cut off')
})
