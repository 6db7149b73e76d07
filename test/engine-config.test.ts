import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { build, bearer, seedHuman, type BuildOptions, type Test, type TestApp } from './helper.js'
import { insertAlarm } from './fakes/engine-db.js'
import { siteSettings } from '../db/schema/service.js'

const USER = '555555555555555555'

interface Setup extends TestApp {
  headers: { authorization: string }
  sql: <T = Array<Record<string, any>>>(query: string, values?: unknown[]) => Promise<T>
}

async function setup (t: Test, options: BuildOptions = {}): Promise<Setup> {
  const testApp = await build(t, options)
  await seedHuman(testApp, { id: USER, area: ['town'], latitude: 51.1, longitude: 7.1 })
  const sql = <T>(query: string, values: unknown[] = []) => testApp.app.engineDb.pool.query(query, values) as Promise<T>
  return Object.assign(testApp, { headers: bearer(testApp.app, { userId: USER }), sql })
}

async function setSetting (app: FastifyInstance, key: string, value: string): Promise<void> {
  await app.db.db.insert(siteSettings).values({ key, value }).onDuplicateKeyUpdate({ set: { value } })
  app.siteSettings.evict(key)
}

const FIVE_MINUTES = 5 * 60_000

t.test('GET /api/config: the public projection and what the engine can do', async (t) => {
  t.test('PoracleNG', async (t) => {
    const s = await setup(t)
    s.engine.set({ admins: { discord: ['999000999'], telegram: ['888000888'] }, defaultTemplateName: 'fancy', maxDistance: 5000 })
    const res = await s.app.inject({ method: 'GET', url: '/api/config', headers: s.headers })
    t.equal(res.statusCode, 200)
    t.same(res.json(), {
      locale: 'en',
      poracleVersion: '5.1.0',
      pvpFilterMaxRank: 100,
      pvpFilterLittleMinCp: 450,
      pvpFilterGreatMinCp: 1400,
      pvpFilterUltraMinCp: 2350,
      pvpLittleLeagueAllowed: true,
      pvpCaps: [50],
      defaultPvpCap: 50,
      defaultTemplateName: 'fancy',
      everythingFlagPermissions: 'allow-any',
      maxDistance: 5000,
      engine: {
        generation: 'ng',
        name: 'PoracleNG',
        reachable: true,
        capabilities: { fortChanges: true, maxBattles: true, summaries: true, testAlerts: true, reload: true, userCreation: true, savedPlaces: false }
      },
      gymPicker: false
    })
    t.notMatch(res.body, /999000999|888000888|admins|providerURL|staticKey|delegate/, 'no admin ids, geocoder or map key')
    t.equal((await s.app.inject({ method: 'GET', url: '/api/config' })).statusCode, 401, 'signed-in users only')
  })

  t.test('PoracleJS: a numeric template name, fewer capabilities', async (t) => {
    const s = await setup(t, { engineMode: 'js' })
    const first = (await s.app.inject({ method: 'GET', url: '/api/config', headers: s.headers })).json()
    t.equal(first.defaultTemplateName, '1', 'PoracleJS\'s number 1 arrives as text')
    t.equal(first.poracleVersion, '4.8.3')
    t.same(first.engine, {
      generation: 'js',
      name: 'PoracleJS',
      reachable: true,
      capabilities: { fortChanges: false, maxBattles: false, summaries: false, testAlerts: false, reload: false, userCreation: false, savedPlaces: false }
    })
    s.engine.set({ defaultTemplateName: 7 })
    t.equal((await s.app.inject({ method: 'GET', url: '/api/config', headers: s.headers })).json().defaultTemplateName, '7')
  })

  t.test('engine down: the reference\'s defaults', async (t) => {
    const s = await setup(t)
    s.engine.failWith({ drop: true })
    const res = await s.app.inject({ method: 'GET', url: '/api/config', headers: s.headers })
    t.equal(res.statusCode, 200)
    t.match(res.json(), { locale: 'en', poracleVersion: 'unknown', pvpFilterMaxRank: 100, pvpFilterGreatMinCp: 0, defaultTemplateName: 'default', maxDistance: 10726000, pvpLittleLeagueAllowed: true })
    t.same(res.json().engine, { generation: null, name: null, reachable: false, capabilities: { fortChanges: false, maxBattles: false, summaries: false, testAlerts: false, reload: false, userCreation: false, savedPlaces: false } })
    const templates = await s.app.inject({ method: 'GET', url: '/api/config/templates' })
    t.same(templates.json(), { discord: {}, telegram: {} }, 'templates fall back to none')
    s.engine.reset()
    const live = await s.app.inject({ method: 'GET', url: '/api/config/templates' })
    t.same(live.json().discord.monster, { '%': ['1'] }, 'anonymous, straight from the engine')
  })
})

t.test('quest summary capability: cached five minutes, faults are not answers', async (t) => {
  const s = await setup(t)
  const { app, headers, engine, clock } = s
  const reads = () => engine.requests.filter((r) => r.path === '/api/config/values' && r.query.section === 'tracking').length
  const capability = async () => (await app.inject({ method: 'GET', url: '/api/summary-schedules/capability', headers })).json()

  t.same(await capability(), { enabled: true })
  engine.set({ questSummaryEnabled: false })
  t.same(await capability(), { enabled: true }, 'still the cached answer')
  t.equal(reads(), 1)
  clock.advance(FIVE_MINUTES + 1)
  t.same(await capability(), { enabled: false }, 'read again after five minutes')
  t.equal(reads(), 2)

  clock.advance(FIVE_MINUTES + 1)
  engine.set({ questSummaryEnabled: true })
  engine.failWith({ path: '/api/config/values', times: 3 })
  t.same(await capability(), { enabled: false }, 'an engine fault reads as off')
  t.same(await capability(), { enabled: true }, 'but is not cached')

  engine.set({ summaryFeature: false })
  const unavailable = await app.inject({ method: 'GET', url: '/api/summary-schedules', headers })
  t.equal(unavailable.statusCode, 503)
  t.same(unavailable.json(), { error: 'This alarm engine feature is temporarily unavailable.' }, 'the catalogue entry of the engine error')
  t.same(await capability(), { enabled: true }, 'a 503 of the summary routes does not turn the feature off')
})

t.test('summary schedules on PoracleNG', async (t) => {
  const s = await setup(t)
  const { app, headers, engine } = s
  const call = (method: string, url: string, payload?: unknown) => app.inject({ method: method as 'GET', url: `/api/summary-schedules${url}`, headers, ...(payload !== undefined ? { payload: payload as object } : {}) })

  t.same((await call('GET', '')).json(), [])
  t.same((await call('GET', '/quest')).json(), { alertType: 'quest', activeHours: '[]' }, 'none yet is an empty schedule, not a 404')
  t.equal((await call('PUT', '/Quest', { activeHours: [{ day: 1, hours: 8, mins: 0 }, { day: '6', hours: '10', mins: '30' }] })).statusCode, 204)
  const stored = (await call('GET', '/QUEST')).json()
  t.equal(stored.alertType, 'quest')
  t.same(JSON.parse(stored.activeHours), [{ day: 1, hours: 8, mins: 0 }, { day: 6, hours: 10, mins: 30 }])
  t.same((await s.sql('SELECT id, alert_type FROM summary_schedules')), [{ id: USER, alert_type: 'quest' }], 'stored by the engine for the token\'s user')
  t.same((await call('GET', '')).json().map((x: { alertType: string }) => x.alertType), ['quest'])
  t.equal((await call('PUT', '/quest', { activeHours: '' })).statusCode, 204, 'blank text means no hours')
  t.same(JSON.parse((await call('GET', '/quest')).json().activeHours), [])
  t.equal((await call('POST', '/quest/trigger')).statusCode, 204)
  t.equal((await call('DELETE', '/quest')).statusCode, 204)
  t.equal((await call('DELETE', '/quest')).statusCode, 204, 'idempotent')

  engine.reset()
  for (const [method, url, payload] of [['GET', '/raid'], ['PUT', '/raid', { activeHours: [] }], ['DELETE', '/x'], ['POST', '/pokemon/trigger'],
    ['PUT', '/quest', { activeHours: [{ day: 0, hours: 1, mins: 1 }] }], ['PUT', '/quest', { activeHours: '[{"day":1,"hours":1,"mins":60}]' }],
    ['PUT', '/quest', {}], ['PUT', '/quest', { activeHours: [], extra: 1 }]] as const) {
    const res = await call(method, url, payload)
    t.equal(res.statusCode, 400, `${method} ${url}`)
    t.ok(res.json().details.length > 0)
  }
  t.match((await call('GET', '/raid')).json().error, 'Invalid alarm type: raid')
  t.same(engine.requests, [], 'bad input reached no engine')

  await setSetting(app, 'disable_quests', 'true')
  for (const [method, url] of [['GET', ''], ['GET', '/capability'], ['GET', '/quest'], ['DELETE', '/quest'], ['POST', '/quest/trigger']]) {
    const res = await call(method as string, url as string)
    t.equal(res.statusCode, 403, `site switch: ${method} ${url}`)
    t.equal(res.json().disableKey, 'disable_quests')
  }
  await setSetting(app, 'disable_quests', 'false')
  engine.set({ disabledHooks: ['quest'] })
  s.clock.advance(FIVE_MINUTES + 1)
  t.equal((await call('GET', '')).statusCode, 403, 'the engine\'s own switch too')
})

t.test('summary schedules on PoracleJS: not supported', async (t) => {
  const s = await setup(t, { engineMode: 'js' })
  for (const [method, url] of [['GET', ''], ['GET', '/quest'], ['PUT', '/quest'], ['DELETE', '/quest'], ['POST', '/quest/trigger']] as const) {
    const res = await s.app.inject({ method, url: `/api/summary-schedules${url}`, headers: s.headers, ...(method === 'PUT' ? { payload: { activeHours: [] } } : {}) })
    t.equal(res.statusCode, 501, `${method} ${url}`)
    t.match(res.json().error, /PoracleJS/)
  }
  t.same((await s.app.inject({ method: 'GET', url: '/api/summary-schedules/capability', headers: s.headers })).json(), { enabled: false })
})

t.test('cleaning: the auto-delete bit, other bits kept', async (t) => {
  const s = await setup(t)
  const { app, headers, engine } = s
  const pool = app.engineDb.pool
  const pikachu = await insertAlarm(pool, 'pokemon', { id: USER, pokemon_id: 25, clean: 0 })
  await insertAlarm(pool, 'pokemon', { id: USER, pokemon_id: 1, clean: 1 })
  await insertAlarm(pool, 'raid', { id: USER, level: 5, clean: 6 })
  await insertAlarm(pool, 'quest', { id: USER, reward_type: 3, clean: 0 })
  await insertAlarm(pool, 'maxbattle', { id: USER, level: 3, clean: 0, template: '1' })
  const status = async () => (await app.inject({ method: 'GET', url: '/api/cleaning/status', headers })).json()
  const cleans = async (table: string) => (await s.sql(`SELECT uid, clean FROM \`${table}\` WHERE id = ? ORDER BY uid`, [USER])).map((r) => [r.uid, r.clean])
  const posted = (type: string) => engine.requests.filter((r) => r.method === 'POST' && r.path === `/api/tracking/${type}/${USER}`).map((r) => r.body)

  t.same(await status(), { monsters: false, raids: false, eggs: false, quests: false, invasions: false, lures: false, nests: false, gyms: false, maxbattles: false })

  const monsters = await app.inject({ method: 'PUT', url: '/api/cleaning/monsters/1', headers })
  t.same(monsters.json(), { updated: 1 }, 'only the alarm without the bit')
  t.match(posted('pokemon'), [[{ uid: pikachu, pokemon_id: 25, clean: 1 }]], 'posted back by uid with the bit set')
  t.same((await cleans('monsters')).map(([, clean]) => clean), [1, 1])
  t.equal((await cleans('monsters'))[0]?.[0], pikachu, 'updated in place')

  engine.reset()
  t.same((await app.inject({ method: 'PUT', url: '/api/cleaning/raids/1', headers })).json(), { updated: 1 })
  t.match(posted('raid'), [[{ level: 5, clean: 7 }]], 'edit-in-place and summary bits kept')

  engine.reset()
  const maxbattles = await app.inject({ method: 'PUT', url: '/api/cleaning/maxbattles/1', headers })
  t.same(maxbattles.json(), { updated: 1 })
  t.same(engine.requests.filter((r) => r.method === 'POST').map((r) => r.path), [`/api/tracking/maxbattle/${USER}/delete`, `/api/tracking/maxbattle/${USER}`], 'insert-only upstream: deleted, then created')
  const [maxbattle] = await cleans('maxbattle')
  t.equal(maxbattle?.[1], 1)

  t.match(await status(), { monsters: true, raids: true, quests: false, maxbattles: true, eggs: false })

  await setSetting(app, 'disable_raids', 'true')
  const gated = await app.inject({ method: 'PUT', url: '/api/cleaning/raids/0', headers })
  t.equal(gated.statusCode, 403)
  t.equal(gated.json().disableKey, 'disable_raids')
  const all = await app.inject({ method: 'PUT', url: '/api/cleaning/all/0', headers })
  t.same(all.json(), { updated: 3, skipped: ['disable_raids'] }, 'switched-off types are skipped, not fatal')
  t.match(await status(), { monsters: false, raids: true, maxbattles: false })
  await setSetting(app, 'disable_raids', 'false')

  // The fake stores `clean` as 0/1; put the raid's bits back so the undo has something to restore.
  await s.sql('UPDATE raid SET clean = 6')
  engine.reset()
  engine.failWith({ path: `/api/tracking/quest/${USER}`, times: 1 })
  const failed = await app.inject({ method: 'PUT', url: '/api/cleaning/all/1', headers })
  t.equal(failed.statusCode, 502, 'the engine\'s 500 is a bad gateway')
  t.same((await cleans('monsters')).map(([, clean]) => clean), [0, 0], 'pokemon done before the failure were put back')
  t.match(posted('raid'), [[{ clean: 7 }], [{ clean: 6 }]], 'and the raid was posted back with its original bits')

  engine.failWith({ path: `/api/tracking/maxbattle/${USER}`, times: 1 })
  const maxFailed = await app.inject({ method: 'PUT', url: '/api/cleaning/maxbattles/1', headers })
  t.equal(maxFailed.statusCode, 502)
  const restored = await cleans('maxbattle')
  t.same(restored.map(([, clean]) => clean), [0], 'the deleted max battle was created again as it was')

  engine.reset()
  for (const url of ['/api/cleaning/forts/1', '/api/cleaning/monsters/2', '/api/cleaning/all/x', '/api/cleaning/all/-1']) {
    const res = await app.inject({ method: 'PUT', url, headers })
    t.equal(res.statusCode, 400, url)
    t.ok(res.json().details.length > 0)
  }
  t.same(engine.requests, [], 'bad input reached no engine')
})

t.test('cleaning on PoracleJS has no max battles', async (t) => {
  const s = await setup(t, { engineMode: 'js' })
  await insertAlarm(s.app.engineDb.pool, 'pokemon', { id: USER, pokemon_id: 25, clean: 0 })
  const max = await s.app.inject({ method: 'PUT', url: '/api/cleaning/maxbattles/1', headers: s.headers })
  t.equal(max.statusCode, 501)
  t.match(max.json().error, /PoracleJS/)
  const all = await s.app.inject({ method: 'PUT', url: '/api/cleaning/all/1', headers: s.headers })
  t.same(all.json(), { updated: 1, skipped: [] })
  t.match((await s.app.inject({ method: 'GET', url: '/api/cleaning/status', headers: s.headers })).json(), { monsters: true, maxbattles: false })
})

t.test('master data from the engine, raid levels built in', async (t) => {
  const s = await setup(t)
  const { app, engine } = s
  const monsters = await app.inject({ method: 'GET', url: '/api/masterdata/monsters?locale=pt-BR' })
  t.equal(monsters.statusCode, 200, 'anonymous')
  t.match(monsters.json()['25_0'], { name: 'Pikachu' })
  t.equal(engine.requests.find((r) => r.path === '/api/masterdata/monsters')?.query.locale, 'pt-BR')
  await app.inject({ method: 'GET', url: '/api/masterdata/monsters' })
  t.equal(engine.requests.filter((r) => r.path === '/api/masterdata/monsters').at(-1)?.query.locale, 'en', 'English by default')
  t.match((await app.inject({ method: 'GET', url: '/api/masterdata/grunts' })).json(), { 44: { grunt: 'Giovanni' } })

  const levels = (await app.inject({ method: 'GET', url: '/api/masterdata/raid-levels' })).json()
  t.equal(levels.length, 19)
  t.same(levels.map((l: { value: number }) => l.value), Array.from({ length: 19 }, (_, i) => i + 1))
  t.match(levels[6], { value: 7, category: 'mega', name: 'Mega Legendary Raid', namePlural: 'Mega Legendary Raids' })

  engine.reset()
  for (const locale of ['english', 'de_DE', 'x', 'de-', '../etc']) {
    const res = await app.inject({ method: 'GET', url: `/api/masterdata/monsters?locale=${encodeURIComponent(locale)}` })
    t.equal(res.statusCode, 400, locale)
  }
  t.same(engine.requests, [], 'bad locales reached no engine')

  engine.failWith({ status: 502, body: 'Bad gateway', contentType: 'text/plain' })
  s.clock.advance(3_600_000 + 1)
  const down = await app.inject({ method: 'GET', url: '/api/masterdata/grunts' })
  t.equal(down.statusCode, 200, 'the last good copy while the engine is down')
  t.match(down.json(), { 44: { grunt: 'Giovanni' } })
  t.equal((await app.inject({ method: 'GET', url: '/api/masterdata/raid-levels' })).statusCode, 200, 'built in, needs no engine')
})
