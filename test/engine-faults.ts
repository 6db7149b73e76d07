import t from 'tap'
import { build, bearer, newTestDatabases, seedHuman, type Test, type TestApp, type TestDatabases } from './helper.js'
import { FAULT_MODES, startFaultPeer, type FaultMode, type FaultPeer } from './fakes/fault-peer.js'
import { TEMPLATE_PREVIEW_TYPES } from '../schemas/alarms.js'

/**
 * The peer-fault table (test/peer-faults.test.ts says what it checks): which operation calls which peer,
 * how each is called, and what each answers when the engine fails. The engine-backed routes are checked
 * once per fault mode, each mode a test file of its own (`test/engine-faults-<mode>.test.ts`), so tap runs
 * the modes side by side: most of a mode's time is waiting out the engine timeout.
 */

export const USER = '111111111111111111'
export const OTHER = '222222222222222222'
export const TIMEOUT_MS = 300
/** What a fault costs at most: one peer timeout, plus the slack of a shared two-core test machine. */
export const FAST_ENOUGH_MS = TIMEOUT_MS + 1200

export const FAULT_STATUS: Record<FaultMode, number> = { stopped: 503, hanging: 504, garbage: 502, html500: 502, refused: 502, slowBody: 504, oversize: 502 }

const ALARM_PATHS = ['monsters', 'raids', 'eggs', 'quests', 'invasions', 'lures', 'nests', 'gyms', 'fort-changes', 'maxbattles']
const NEW_ALARM: Record<string, object> = {
  monsters: { pokemon_id: 25 },
  raids: { level: 5 },
  eggs: { level: 5 },
  quests: { reward_type: 3, reward: 1000 },
  invasions: { grunt_type: 'mixed' },
  lures: {},
  nests: {},
  gyms: {},
  'fort-changes': {},
  maxbattles: {}
}

interface Call { url: string, payload?: unknown }

const EXPLAINED_EVENT = { type: 'pokemon', message: { pokemon_id: 25, latitude: 51.1, longitude: 7.1, disappear_time: 1_800_000_000 } }

/** Requests that get past validation and into the peer call; `{name}` parameters are filled in by PARAMS. */
const PARAMS: Record<string, string> = { uid: '1', profileNo: '1', type: 'monsters', alertType: 'quest', alarmType: 'monsters', enabled: '1', id: '1', name: 'town', label: 'home', key: 'disable_nominatim', token: 'AAAAAAAAAAAAAAAAAAAAAA' }
export const CALLS: Record<string, Call> = {
  ...Object.fromEntries(ALARM_PATHS.flatMap((path) => [
    [`POST /api/${path}`, { url: `/api/${path}`, payload: NEW_ALARM[path] }],
    [`POST /api/${path}/batch`, { url: `/api/${path}/batch`, payload: { alarms: [NEW_ALARM[path]] } }],
    [`PATCH /api/${path}`, { url: `/api/${path}`, payload: { uids: [1], patch: { distance: 500 } } }],
    [`PUT /api/${path}/distance`, { url: `/api/${path}/distance`, payload: 500 }],
    [`PUT /api/${path}/distance/bulk`, { url: `/api/${path}/distance/bulk`, payload: { uids: [1], distance: 500 } }],
    [`PUT /api/${path}/{uid}`, { url: `/api/${path}/1`, payload: { distance: 500 } }]
  ])),
  'PATCH /api/admin/users': { url: `/api/admin/users?id=${OTHER}`, payload: { notes: 'x' } },
  'DELETE /api/admin/users': { url: `/api/admin/users?id=${OTHER}` },
  'GET /api/admin/users/by-id': { url: `/api/admin/users/by-id?id=${OTHER}` },
  'PUT /api/admin/users/disable': { url: `/api/admin/users/disable?id=${OTHER}` },
  'PUT /api/admin/users/enable': { url: `/api/admin/users/enable?id=${OTHER}` },
  'PUT /api/admin/users/pause': { url: `/api/admin/users/pause?id=${OTHER}` },
  'PUT /api/admin/users/resume': { url: `/api/admin/users/resume?id=${OTHER}` },
  'DELETE /api/admin/users/alarms': { url: `/api/admin/users/alarms?id=${OTHER}` },
  'POST /api/admin/impersonate': { url: '/api/admin/impersonate', payload: { userId: OTHER } },
  'POST /api/admin/users/impersonate': { url: `/api/admin/users/impersonate?id=${OTHER}` },
  'GET /api/admin/users/overview': { url: `/api/admin/users/overview?id=${OTHER}` },
  'POST /api/admin/users/avatars': { url: '/api/admin/users/avatars', payload: [USER, OTHER] },
  'POST /api/admin/webhooks': { url: '/api/admin/webhooks', payload: { name: 'Hook', url: 'https://hooks.example.org/a' } },
  'POST /api/test-alert/{type}/{uid}': { url: '/api/test-alert/pokemon/1' },
  ...Object.fromEntries(TEMPLATE_PREVIEW_TYPES.map((type) => [`POST /api/template-previews/${type}`, { url: `/api/template-previews/${type}`, payload: {} }])),
  'POST /api/alarm-estimates': { url: '/api/alarm-estimates', payload: { type: 'pokemon', alarm: { pokemon_id: 25 } } },
  'POST /api/alarm-explanations': { url: '/api/alarm-explanations', payload: { event: EXPLAINED_EVENT } },
  'POST /api/admin/users/{id}/alarm-explanations': { url: `/api/admin/users/${OTHER}/alarm-explanations`, payload: { event: EXPLAINED_EVENT } },
  'GET /api/alarm-estimates': { url: '/api/alarm-estimates?type=pokemon' },
  'GET /api/dashboard/place': { url: '/api/dashboard/place?lat=51.1&lon=7.1' },
  'PUT /api/profiles/{profileNo}': { url: '/api/profiles/1', payload: { name: 'Home' } },
  'POST /api/profiles': { url: '/api/profiles', payload: { name: 'Second' } },
  'POST /api/profiles/duplicate': { url: '/api/profiles/duplicate', payload: { fromProfileNo: 1, name: 'Copy' } },
  'POST /api/profile-overview/duplicate/{profileNo}': { url: '/api/profile-overview/duplicate/1', payload: { name: 'Copy' } },
  'POST /api/profile-overview/import': { url: '/api/profile-overview/import', payload: { profileName: 'Imported', alarms: {} } },
  'PUT /api/location': { url: '/api/location', payload: { latitude: 51.1, longitude: 7.1 } },
  'POST /api/location/places': { url: '/api/location/places', payload: { label: 'home', latitude: 51.1, longitude: 7.1 } },
  'PUT /api/location/language': { url: '/api/location/language', payload: { language: 'de' } },
  'GET /api/location/geocode': { url: '/api/location/geocode?q=Main+Street' },
  'GET /api/location/reverse': { url: '/api/location/reverse?lat=51.1&lon=7.1' },
  'PUT /api/areas': { url: '/api/areas', payload: { areas: ['town'] } },
  'PUT /api/summary-schedules/{alertType}': { url: '/api/summary-schedules/quest', payload: { activeHours: [{ day: 1, hours: 8, mins: 0 }] } },
  'POST /api/geofences/custom': { url: '/api/geofences/custom', payload: { displayName: 'Patch', polygon: [[52, 1], [52, 1.1], [52.1, 1.1], [52, 1]] } },
  'PUT /api/geofences/custom/{id}': { url: '/api/geofences/custom/{fence}', payload: { displayName: 'Renamed' } },
  'DELETE /api/geofences/custom/{id}': { url: '/api/geofences/custom/{fence}' },
  'POST /api/geofences/custom/{id}/submit': { url: '/api/geofences/custom/{fence}/submit' },
  'POST /api/geofences/custom/{id}/activate': { url: '/api/geofences/custom/{fence}/activate' },
  'POST /api/geofences/custom/{id}/deactivate': { url: '/api/geofences/custom/{fence}/deactivate' },
  'GET /api/location/staticmap': { url: '/api/location/staticmap?lat=51.1&lon=7.1' },
  'GET /api/location/distancemap': { url: '/api/location/distancemap?lat=51.1&lon=7.1&distance=500' },
  'POST /api/location/weather/areas': { url: '/api/location/weather/areas', payload: { locations: [{ name: 'town', lat: 51.1, lon: 7.1 }] } },
  'POST /api/quick-picks/{id}/apply': { url: '/api/quick-picks/{pick}/apply', payload: {} },
  'POST /api/quick-picks/{id}/reapply': { url: '/api/quick-picks/{pick}/reapply', payload: {} },
  'DELETE /api/quick-picks/{id}/remove': { url: '/api/quick-picks/{pick}/remove' },
  'POST /api/shared-sets': { url: '/api/shared-sets', payload: { profileNo: 1 } },
  'POST /api/shared-sets/undo-copy': { url: '/api/shared-sets/undo-copy', payload: { profileNo: 1, alarms: [{ type: 'raid', uid: 1 }] } },
  'POST /api/shared-sets/{token}/copy': { url: '/api/shared-sets/AAAAAAAAAAAAAAAAAAAAAA/copy', payload: { profileNo: 1 } }
}

/**
 * Routes that call the alarm engine and answer something other than the fault status, each for its
 * reason. Everything else that calls the engine answers FAULT_STATUS.
 */
export const ENGINE_ANSWERS: Record<string, { status: number, why: string }> = {
  'GET /api/health': { status: 503, why: 'the health check reports the engine as one failed check' },
  'GET /api/health/ready': { status: 503, why: 'the readiness check names the engine among the failing checks' },
  'GET /api/admin/poracle-admins': { status: 200, why: 'the configured admins when the engine cannot list its own' },
  'GET /api/admin/server-profile': { status: 200, why: 'describes the engine as unreachable' },
  'GET /api/settings/upstream-disabled': { status: 200, why: 'nothing is reported disabled when the engine cannot say' },
  'GET /api/alarm-types': { status: 200, why: 'lists the types without the engine generation' },
  'GET /api/areas/geofence': { status: 200, why: 'the service\'s own fences without the engine\'s' },
  'GET /api/config': { status: 200, why: 'the client configuration falls back to defaults' },
  'GET /api/config/templates': { status: 200, why: 'no templates when the engine cannot say' },
  'GET /api/summary-schedules/capability': { status: 200, why: 'summaries offered only when the engine confirms them' },
  'GET /api/location/weather': { status: 204, why: 'weather is optional decoration' },
  'GET /api/location/places': { status: 501, why: 'no engine offers saved places (decided before the call can fail)' },
  'DELETE /api/location/places/{label}': { status: 501, why: 'no engine offers saved places' },
  'GET /api/areas/map/{name}': { status: 404, why: 'a map preview is optional: no map' },
  'GET /api/location/staticmap': { status: 404, why: 'a map preview is optional: no map' },
  'GET /api/location/distancemap': { status: 404, why: 'a map preview is optional: no map' },
  'GET /api/masterdata/pokemon': { status: 503, why: 'falls back to the game master file, which is down here too (its own fault tests below)' },
  'GET /api/masterdata/monsters': { status: 503, why: 'as /api/masterdata/pokemon' },
  'GET /api/masterdata/grunts': { status: 503, why: 'as /api/masterdata/pokemon' },
  'GET /api/auth/me': { status: 503, why: 'sign-in and session checks answer the one "engine unavailable" the client shows' },
  'POST /api/auth/alerts/toggle': { status: 503, why: 'as /api/auth/me' },
  'POST /api/admin/impersonate': { status: 503, why: 'impersonation is a sign-in: as /api/auth/me' },
  'POST /api/admin/users/impersonate': { status: 503, why: 'impersonation is a sign-in: as /api/auth/me' },
  'POST /api/location/places': { status: 501, why: 'no engine offers saved places' },
  'DELETE /api/admin/users/alarms': { status: 200, why: 'the rows are deleted in the engine database; the engine\'s reload is best effort' },
  'POST /api/location/weather/areas': { status: 200, why: 'weather is optional decoration' },
  'GET /api/dashboard/place': { status: 200, why: 'the dashboard\'s place is decoration: without the engine its areas and alarm count are empty' },
  'DELETE /api/admin/users': { status: 204, why: 'the account is deleted in the engine database; the engine\'s reload is best effort' },
  'POST /api/geofences/custom/{id}/submit': { status: 200, why: 'its feature gate fails open, as /api/settings/upstream-disabled; the submission itself is the service\'s own' },
  'GET /api/shared-sets/{token}': { status: 404, why: 'a token this site never made is not found before the engine is asked (a real set\'s engine fault: test/shared-sets.test.ts)' },
  'POST /api/shared-sets/{token}/copy': { status: 404, why: 'as GET /api/shared-sets/{token}' },
  'GET /api/admin/insights/alarms': { status: 200, why: 'species and item names are a nicety: entries are named by their ids' },
  'GET /api/admin/insights/areas': { status: 200, why: 'the areas members selected, without the engine\'s list of fences' },
  'GET /api/admin/insights/areas/{name}': { status: 404, why: 'read in the engine database; without the engine\'s fences, an area nobody selected is unknown' },
  'GET /api/admin/insights/noise': { status: 200, why: 'a member the engine cannot answer for is counted as failed (and without a scanner nothing is estimated)' }
}

/** Routes that call no peer, checked against an engine that would fail them. */
export const NO_PEER = new Set([
  'GET /api/settings', 'GET /api/version', 'GET /api/settings/public', 'PUT /api/settings/{key}', 'GET /api/settings/oidc-config',
  'GET /api/auth/oidc/login', 'GET /api/auth/oidc/callback', 'GET /api/auth/oidc/logout', 'POST /api/auth/oidc/refresh', 'POST /api/auth/oidc/refresh/revoke',
  'DELETE /api/admin/users/sessions', 'GET /api/auth/providers', 'GET /api/auth/discord/login', 'GET /api/auth/telegram/config', 'POST /api/auth/logout',
  'GET /api/admin/users', 'GET /api/admin/webhooks', 'GET /api/admin/webhook-delegates/all', 'GET /api/admin/webhook-delegates', 'GET /api/admin/poracle-delegates',
  'POST /api/admin/webhook-delegates', 'DELETE /api/admin/webhook-delegates', 'GET /api/admin/my-webhooks',
  'GET /api/settings/discord-config', 'GET /api/settings/telegram-config',
  'GET /api/quick-picks', 'POST /api/quick-picks', 'GET /api/quick-picks/{id}', 'DELETE /api/quick-picks/{id}', 'POST /api/quick-picks/user',
  'DELETE /api/quick-picks/user/{id}', 'PUT /api/quick-picks/user/{id}', 'POST /api/quick-picks/seed', 'GET /api/map', 'GET /api/masterdata/raid-levels',
  'GET /api/geofence-feed', 'GET /api/geofences/custom', 'GET /api/geofences/export/geojson', 'POST /api/geofences/import/geojson',
  'GET /api/admin/geofences/all', 'GET /api/admin/geofences/submissions', 'POST /api/admin/geofences/submissions/{id}/reject',
  'GET /api/scanner/gyms', 'GET /api/scanner/gyms/{id}', 'GET /api/scanner/raids', 'GET /api/scanner/quests', 'GET /api/scanner/max-battle-pokemon',
  'GET /metrics', 'POST /api/auth/oidc/backchannel-logout', 'GET /api/auth/sessions', 'DELETE /api/auth/sessions', 'DELETE /api/auth/sessions/{id}',
  'GET /api/admin/audit', 'POST /api/admin/users/avatars', 'GET /api/alarm-defaults', 'PUT /api/alarm-defaults', 'GET /api/masterdata/max-levels',
  'GET /api/alarm-estimates/now/pokemon', 'GET /api/alarm-estimates/now/raid-bosses', 'GET /api/alarm-estimates/now/quest-rewards',
  'GET /api/shared-sets/mine', 'DELETE /api/shared-sets/{token}', 'GET /api/shared-sets', 'GET /api/admin/shared-sets',
  'PUT /api/admin/shared-sets/{token}/hidden', 'POST /api/admin/shared-sets/{token}/promote',
  'GET /api/admin/insights/members', 'GET /api/admin/insights/sign-ins',
  'GET /api/push/key', 'POST /api/push/subscriptions', 'GET /api/push/subscriptions', 'GET /api/push/subscriptions/{id}', 'PATCH /api/push/subscriptions/{id}',
  'DELETE /api/push/subscriptions/{id}', 'POST /api/push/subscriptions/{id}/test', 'GET /api/push/delivery', 'PUT /api/push/delivery',
  'POST /api/push/validation/{token}', 'POST /api/scanner-webhook/{token}', 'GET /api/app-manifest'
])

/** Routes whose peer is not the engine: each has its own fault test below. */
export const OTHER_PEER: Record<string, string> = {
  'GET /api/masterdata/moves': 'game master file',
  'GET /api/masterdata/items': 'game master file',
  'GET /api/pokemon-availability': 'Golbat',
  'GET /api/masterdata/icons/{category}': 'the icon set (a failed index keeps the last good copy: test/game-data.test.ts)',
  'POST /api/admin/icon-sets/check': 'the icon set an admin names (its faults are problems in a 200: test/icon-sets.test.ts)',
  'GET /api/geofences/regions': 'Koji',
  'DELETE /api/admin/geofences/{id}': 'Koji',
  'POST /api/admin/geofences/submissions/{id}/approve': 'Koji',
  'GET /api/auth/discord/callback': 'chat platform (its faults are sign-in redirect codes: test/discord.test.ts; bounded reads below)',
  'POST /api/auth/telegram/verify': 'the engine, after a valid widget signature (test/telegram.test.ts)',
  'GET /api/alarm-explanations/recent': 'the scanner database, then the engine (without a scanner a 501 before any call; both faults: test/alarm-explanations-recent.test.ts)',
  'GET /api/admin/users/{id}/alarm-explanations/recent': 'as GET /api/alarm-explanations/recent'
}

export const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`

/** What `{pick}` and `{fence}` in CALLS stand for: a quick pick's id, a custom geofence's id. */
interface Targets { pick: string, fence: string }

function callFor (op: string, targets: Targets = { pick: 'x', fence: '1' }): Call {
  const given = CALLS[op]
  if (given !== undefined) return { ...given, url: given.url.replace('{pick}', targets.pick).replace('{fence}', targets.fence) }
  const path = op.slice(op.indexOf(' ') + 1)
  return { url: path.replace(/\{(\w+)\}/g, (_, name: string) => PARAMS[name] ?? 'x') }
}

export async function operations (app: TestApp['app']): Promise<string[]> {
  const doc = (await app.inject('/api/openapi.json')).json() as { paths: Record<string, Record<string, unknown>> }
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => key(method, path)))
}

export async function request (s: TestApp, op: string, headers: Record<string, string>, targets?: Targets) {
  const call = callFor(op, targets)
  const method = op.slice(0, op.indexOf(' ')) as 'GET'
  const started = performance.now()
  const res = await s.app.inject({ method, url: call.url, headers, ...(call.payload !== undefined ? { payload: JSON.stringify(call.payload), headers: { ...headers, 'content-type': 'application/json' } } : {}) })
  return { res, ms: performance.now() - started }
}

export async function engineSetup (t: Test, databases?: TestDatabases): Promise<{ s: TestApp, peer: FaultPeer, masterfile: FaultPeer, headers: Record<string, string> }> {
  const peer = await startFaultPeer()
  const masterfile = await startFaultPeer({ mode: 'stopped' })
  t.teardown(() => peer.close())
  t.teardown(() => masterfile.close())
  const s = await build(t, {
    env: { PORACLE_API_ADDRESS: peer.url, ENGINE_TIMEOUT_MS: String(TIMEOUT_MS), ENGINE_MAX_BYTES: String(1024 * 1024), PORACLE_ADMIN_IDS: USER, MASTERFILE_URL: masterfile.url },
    logLevel: 'silent',
    ...(databases !== undefined && { databases })
  })
  peer.healthy = s.engine.url
  await seedHuman(s, { id: USER, name: 'Uma' })
  await seedHuman(s, { id: OTHER, name: 'Otto' })
  return { s, peer, masterfile, headers: bearer(s.app, { userId: USER, isAdmin: true }) }
}

/**
 * What a route must find before it asks the engine; without it the route answers from its own checks
 * (a pick that is not applied, a fence already among the areas or deleted by an earlier route) and the
 * engine is never asked. It is made again, with the engine working, before the route in every mode.
 */
type Need = 'fence selected' | 'fence not selected' | 'pick applied' | 'pick not applied'
const NEEDS: Record<string, Need> = {
  'PUT /api/geofences/custom/{id}': 'fence selected',
  'DELETE /api/geofences/custom/{id}': 'fence selected',
  'POST /api/geofences/custom/{id}/submit': 'fence selected',
  'POST /api/geofences/custom/{id}/activate': 'fence not selected',
  'POST /api/geofences/custom/{id}/deactivate': 'fence selected',
  'POST /api/quick-picks/{id}/apply': 'pick not applied',
  'DELETE /api/quick-picks/{id}/remove': 'pick applied'
}

/**
 * Test alerts and summary triggers share a limit of five a minute per user, template previews have thirty
 * (in real time, not the test's clock): each mode sends them as a user of its own.
 */
const LIMITED = new Set([
  'POST /api/test-alert/{type}/{uid}', 'POST /api/summary-schedules/{alertType}/trigger',
  ...TEMPLATE_PREVIEW_TYPES.map((type) => `POST /api/template-previews/${type}`)
])
const modeUser = (mode: FaultMode) => `3333333333333333${String(FAULT_MODES.indexOf(mode)).padStart(2, '0')}`

/** The answers that mean a need is met (a fence create is 201, activation 204, an apply 200, a removal 204). */
const MET: Record<string, readonly number[] | undefined> = {
  'POST /api/geofences/custom': [201],
  'DELETE /api/geofences/custom/{id}': [204],
  'POST /api/geofences/custom/{id}/activate': [204],
  'POST /api/geofences/custom/{id}/deactivate': [204],
  'POST /api/quick-picks/{id}/apply': [200, 201, 409],
  'DELETE /api/quick-picks/{id}/remove': [204, 404],
  'POST /api/monsters': [201, 409]
}

/**
 * Modes in which every engine call waits out TIMEOUT_MS. Their routes are shared out over lanes, each an
 * app of its own (databases, engine fake and fault peer), asked side by side: the wait is the mode's whole
 * time, and one route after another it was a minute of a test machine's slot spent idle.
 */
const LANES: Partial<Record<FaultMode, number>> = { hanging: 6, slowBody: 6 }

type Setup = Awaited<ReturnType<typeof engineSetup>>

/** Registers the check of every engine-backed route against the engine failing in one way. */
export function engineFaultTable (mode: FaultMode): void {
  t.test(`${mode}: every engine-backed route answers with its own status, fast, never 500`, async (t) => {
    const first = await engineSetup(t)
    const listed = new Set([...NO_PEER, ...Object.keys(OTHER_PEER)])
    const engineOps = (await operations(first.s.app)).filter((op) => !listed.has(op))
    t.same(Object.keys(NEEDS).filter((op) => !engineOps.includes(op)), [], 'every route with a need is asked')

    const lanes = LANES[mode] ?? 1
    const others = await Promise.all(Array.from({ length: lanes - 1 }, async () => await engineSetup(t, await newTestDatabases())))
    const slowest = await Promise.all([first, ...others].map(async (setup, lane) => await askLane(t, mode, setup, engineOps.filter((_, i) => i % lanes === lane))))
    const worst = slowest.reduce((a, b) => (b.ms > a.ms ? b : a))
    t.comment(`${mode}: ${engineOps.length} routes in ${lanes} lane${lanes === 1 ? '' : 's'}, slowest answer ${Math.round(worst.ms)} ms (${worst.what})`)
  })
}

/** Asks each of `ops` of one app with its engine failing as `mode`; answers the slowest route. */
async function askLane (t: Test, mode: FaultMode, { s, peer, headers }: Setup, ops: string[]): Promise<{ ms: number, what: string }> {
  await s.app.inject({ method: 'POST', url: '/api/quick-picks/seed', headers })
  const picks = (await s.app.inject({ url: '/api/quick-picks', headers })).json() as Array<{ definition: { id: string } }>
  const targets: Targets = { pick: picks[0]?.definition.id ?? '', fence: '' }
  t.not(targets.pick, '', `a quick pick to apply: ${JSON.stringify(picks).slice(0, 200)}`)

  /**
   * Asks `op` until it answers as MET says. The engine fake behind the fault peer is slow on a busy
   * machine, and ENGINE_TIMEOUT_MS is short here: a timed-out try is repeated.
   */
  async function settle (op: string): Promise<string> {
    let answer = { status: 0, body: '' }
    const met = MET[op] ?? []
    for (let attempt = 0; attempt < 5 && !met.includes(answer.status); attempt++) {
      const { res } = await request(s, op, headers, targets)
      answer = { status: res.statusCode, body: res.body }
    }
    t.ok(met.includes(answer.status), `set up: ${op} ${answer.status} ${answer.body.slice(0, 200)}`)
    return answer.body
  }

  /**
   * An active custom geofence (a submitted one is replaced: only an active fence can be renamed), made
   * again if a route deleted it, selected in the active profile or not.
   */
  async function fence (selected: boolean): Promise<void> {
    const mine = (await s.app.inject({ url: '/api/geofences/custom', headers })).json() as Array<{ id: number, status: string }>
    let found = mine.find((f) => String(f.id) === targets.fence)
    if (found !== undefined && found.status !== 'active') {
      await settle('DELETE /api/geofences/custom/{id}')
      found = undefined
    }
    if (found === undefined) targets.fence = String((JSON.parse(await settle('POST /api/geofences/custom')) as { id: number }).id)
    await settle(`POST /api/geofences/custom/{id}/${selected ? 'activate' : 'deactivate'}`)
  }

  /** Meets a route's need with the engine working, then puts the fault back. */
  async function meet (need: Need): Promise<void> {
    await peer.setMode('ok')
    try {
      if (need === 'pick applied') await settle('POST /api/quick-picks/{id}/apply')
      else if (need === 'pick not applied') await settle('DELETE /api/quick-picks/{id}/remove')
      else await fence(need === 'fence selected')
    } finally {
      await peer.setMode(mode)
    }
  }

  // An alarm (uid 1) exists, so routes that look it up reach the engine.
  await settle('POST /api/monsters')
  await seedHuman(s, { id: modeUser(mode), name: `Mo ${mode}` })
  const own = bearer(s.app, { userId: modeUser(mode), isAdmin: true })
  // As for the first user: the block flag is checked and cached while the engine works.
  t.equal((await s.app.inject({ url: '/api/settings', headers: own })).statusCode, 200)
  let slowest = { ms: 0, what: '' }
  await peer.setMode(mode)
  for (const op of ops) {
    const need = NEEDS[op]
    if (need !== undefined) await meet(need)
    // A read an earlier route started (and the service shares) is over before this route is counted.
    await peer.idle()
    const before = peer.hits
    const { res, ms } = await request(s, op, LIMITED.has(op) ? own : headers, targets)
    const degrades = ENGINE_ANSWERS[op]
    const expected = degrades?.status ?? FAULT_STATUS[mode]
    t.equal(res.statusCode, expected, `${mode}: ${op}${degrades !== undefined ? ` (${degrades.why})` : ''}${res.statusCode === expected ? '' : ` got ${res.statusCode} ${res.body.slice(0, 120)}`}`)
    // DELETE /api/admin/users removes the other account without the engine: it is back for the next route.
    if (op === 'DELETE /api/admin/users') await seedHuman(s, { id: OTHER, name: 'Otto' }).catch(() => {})
    t.ok(ms < FAST_ENOUGH_MS, `${mode}: ${op} answered in ${Math.round(ms)} ms`)
    if (ms > slowest.ms) slowest = { ms, what: op }
    // A route that degrades may answer from a cache; one that fails must have asked the engine.
    if (degrades !== undefined) continue
    if (mode !== 'stopped') t.ok(peer.hits > before, `${mode}: ${op} reached the engine`)
    t.type((JSON.parse(res.body || 'null') as { error?: unknown } | null)?.error, 'string', `${mode}: ${op} JSON error`)
  }
  return slowest
}
