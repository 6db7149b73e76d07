import t from 'tap'
import webPush from 'web-push'
import { bearer, build, seedHuman, type Test } from '../helper.js'
import { startPushService, type FakeBrowser } from '../fakes/push-service.js'

/**
 * Run by test/push-alerts.test.ts in a process that trusts the local push service
 * (test/fakes/push-service.ts), which decrypts what reaches each phone. The scanner feed: a matching event
 * pushes once, a non-matching one never, a paused member never, quiet hours hold, the rate limit folds a
 * flood into one notice, "chat only" pushes nothing. PoracleNG's validation hook: push only → false and a
 * push; both → true and a push; no device → true and nothing; always within its 100 ms budget.
 */

const certificateDir = process.env.PUSH_SERVICE_CERT_DIR as string
const vapid = webPush.generateVAPIDKeys()
const MEMBER = '111111111111111111'
const STRANGER = '222222222222222222'
const FEED = 'feed-token-0123456789abcdef'
const HOOK = 'hook-token-0123456789abcdef'
const CENTRE: Array<[number, number]> = [[51, 7], [51, 7.2], [51.2, 7.2], [51.2, 7]]
const NOW_S = Date.parse('2026-11-26T12:00:00Z') / 1000

async function setup (t: Test, env: Record<string, string> = {}, language: string | null = null) {
  const push = await startPushService(certificateDir)
  t.teardown(() => push.close())
  const s = await build(t, {
    env: {
      VAPID_PUBLIC_KEY: vapid.publicKey,
      VAPID_PRIVATE_KEY: vapid.privateKey,
      VAPID_SUBJECT: 'mailto:admin@alarms.example.org',
      PUSH_ENDPOINT_HOSTS: push.host,
      SCANNER_WEBHOOK_TOKEN: FEED,
      PUSH_VALIDATION_TOKEN: HOOK,
      PUSH_MAP_URL: 'https://map.example.org/@/{lat}/{lon}/16',
      METRICS_TOKEN: 'metrics-token-for-tests',
      ...env
    }
  })
  s.engine.set({ fences: [{ name: 'Centre', path: CENTRE }] })
  await seedHuman(s, { id: MEMBER, area: ['centre'], latitude: 51.1, longitude: 7.1, language })
  const member = bearer(s.app, { userId: MEMBER })
  const alarm = await s.app.inject({ method: 'POST', url: '/api/monsters', headers: member, payload: { pokemon_id: 25, min_iv: 90 } })
  if (alarm.statusCode >= 300) throw new Error(`alarm: ${alarm.statusCode} ${alarm.body}`)
  const subscribe = async (browser: FakeBrowser, extra: Record<string, unknown> = {}) => {
    const res = await s.app.inject({ method: 'POST', url: '/api/push/subscriptions', headers: member, payload: { ...browser.subscription, ...extra } })
    if (res.statusCode !== 201) throw new Error(`subscribe: ${res.statusCode} ${res.body}`)
  }
  const feed = (events: object[], token = FEED) => s.app.inject({ method: 'POST', url: `/api/scanner-webhook/${token}`, payload: events })
  /** Waits until every matched event is handed to the push service and answered. */
  const settled = async () => {
    await s.app.pushAlerts.idle()
    for (let i = 0; i < 200 && s.app.pushSender.depth() > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return { ...s, push, member, subscribe, feed, settled }
}

let encounter = 1000
const pikachu = (extra: Record<string, unknown> = {}) => ({
  type: 'pokemon',
  message: { encounter_id: String(encounter++), pokemon_id: 25, form: 0, latitude: 51.1, longitude: 7.11, disappear_time: NOW_S + 1200, individual_attack: 15, individual_defense: 15, individual_stamina: 15, cp: 900, pokemon_level: 30, gender: 1, ...extra }
})

// First in this file: the answers' work then includes no collection of the other cases' apps (the heap is a
// third of its size after them).
t.test('the NG hook: push only → false and a push; both → true and a push; no device → true; within 100 ms', async (t) => {
  const s = await setup(t)
  await s.subscribe(s.push.browser())
  // At start the service reads every member with a device; here the member subscribed a moment ago.
  await s.app.pushAlerts.whenKnown(MEMBER)
  const hook = async (userId: string, token = HOOK) => {
    const started = process.hrtime.bigint()
    const res = await s.app.inject({ method: 'POST', url: `/api/push/validation/${token}`, payload: { ...pikachu(), target: { id: userId, type: 'discord:user' } } })
    return { res, ms: Number(process.hrtime.bigint() - started) / 1e6 }
  }
  t.equal((await hook(MEMBER, 'wrong')).res.statusCode, 404)

  const both = await hook(MEMBER)
  t.same(both.res.json(), { success: true })
  await s.settled()
  t.equal(s.push.received.length, 1, 'both: the chat message and a push')

  t.equal((await s.app.inject({ method: 'PUT', url: '/api/push/delivery', headers: s.member, payload: { profileNo: 1, mode: 'push' } })).statusCode, 204)
  await s.app.pushAlerts.whenKnown(MEMBER)
  const pushOnly = await hook(MEMBER)
  t.same(pushOnly.res.json(), { success: false })
  await s.settled()
  t.equal(s.push.received.length, 2, 'push only: a push and no chat message')

  const stranger = await hook(STRANGER)
  t.same(stranger.res.json(), { success: true })
  await s.settled()
  t.equal(s.push.received.length, 2, 'no device: nothing queued')

  // The 100 ms budget is the service's own: the work of each answer, measured as the process's CPU time
  // while it answers, and no waiting on the engine. Wall time is not asserted: test files run side by side
  // on shared cores, where a process can be held for longer than the budget whatever it does; the answers'
  // wall times, at 200 calls a second and under a burst of pushes, are `npm run bench:push`'s. Each call's
  // push is settled before the next call, so a call's time is its answer alone (and a push sent before the
  // answer, which would fail the order check): the local push service decrypts on this thread.
  const cpuMs: number[] = []
  const wallMs: number[] = []
  let answeredFirst = 0
  let engineCalls = 0
  for (let i = 0; i < 50; i++) {
    const [pushesBefore, engineBefore, cpuBefore] = [s.push.received.length, s.engine.requests.length, process.cpuUsage()]
    const { res, ms } = await hook(MEMBER)
    const cpu = process.cpuUsage(cpuBefore)
    t.same(res.json(), { success: false })
    cpuMs.push((cpu.user + cpu.system) / 1000)
    wallMs.push(ms)
    engineCalls += s.engine.requests.length - engineBefore
    if (s.push.received.length === pushesBefore) answeredFirst++
    await s.settled()
  }
  t.comment(`50 answers: the most CPU ${Math.max(...cpuMs).toFixed(1)} ms, the slowest ${Math.max(...wallMs).toFixed(1)} ms as the caller saw it`)
  t.ok(Math.max(...cpuMs) < 100, 'every answer\'s work took under 100 ms')
  t.equal(engineCalls, 0, 'no answer asked the engine')
  t.equal(answeredFirst, 50, 'every answer came before its push')
  t.equal(s.push.received.length, 20 + 1, 'pushed up to the rate limit (20 in 240 s, the two above included), then its one notice')
  // The service's own measure of each answer, by route.
  const metrics = (await s.app.inject({ url: '/metrics', headers: { authorization: 'Bearer metrics-token-for-tests' } })).body
  const answered = Number(/^alarm_web_http_request_duration_seconds_count\{[^}]*route="\/api\/push\/validation\/:token",status="200"[^}]*\} (\d+)$/m.exec(metrics)?.[1] ?? -1)
  t.equal(answered, 53, 'every answered call is measured')
})

t.test('the feed: a wrong token is 404 before the body is read, a bad body 400, answered at once', async (t) => {
  const s = await setup(t)
  t.equal((await s.feed([pikachu()], 'wrong-token')).statusCode, 404)
  t.equal((await s.feed([pikachu()], `${FEED}x`)).statusCode, 404)
  t.equal((await s.app.inject({ method: 'POST', url: '/api/scanner-webhook/wrong', payload: 'not json', headers: { 'content-type': 'application/json' } })).statusCode, 404)
  t.equal((await s.app.inject({ method: 'POST', url: `/api/scanner-webhook/${FEED}`, payload: { type: 'pokemon' } })).statusCode, 400)
  t.equal((await s.feed([{ type: 'pokemon' }])).statusCode, 400)
  const weather = await s.feed([{ type: 'weather', message: { s2_cell_id: 1 } }])
  t.same(weather.json(), { accepted: 0 }, 'types the matcher does not read are skipped')
  t.notMatch(s.rawLogs(), FEED, 'the token is never logged')
})

t.test('the feed: a matching event pushes once, with the alert\'s text, tag, TTL and map link; others never', async (t) => {
  const s = await setup(t)
  const phone = s.push.browser('phone')
  await s.subscribe(phone)
  const event = pikachu()
  const answer = await s.feed([event, pikachu({ individual_attack: 5 }), pikachu({ latitude: 48 }), { type: 'weather', message: {} }])
  t.same(answer.json(), { accepted: 3 })
  await s.settled()
  t.same(s.push.refused, [])
  t.equal(s.push.received.length, 1, 'only the 100 % Pikachu in the centre')
  const [got] = s.push.received
  const shown = JSON.parse(got?.payload ?? '{}') as Record<string, string>
  t.equal(shown.kind, 'alert')
  t.match(shown.title, /100% · L30 · CP 900$/)
  t.match(shown.body, /^20 min left · Centre · \d+ m$/)
  t.equal(shown.tag, `pokemon-${event.message.encounter_id}`)
  t.equal(shown.url, 'https://map.example.org/@/51.100000/7.110000/16')
  t.ok((got?.ttl ?? 0) > 1100 && (got?.ttl ?? 0) <= 1200, `TTL ${got?.ttl} is the time left`)
  t.equal(got?.urgency, 'high')
  t.ok(Buffer.byteLength(got?.payload ?? '') < 3072)
})

t.test('the feed: with the engine\'s database unreadable, members are read one by one through the engine and still get their pushes', async (t) => {
  const s = await setup(t)
  // The data layer's bulk read fails (a lost connection, a revoked grant); the engine's API still answers.
  s.app.engineDb.memberRows = async () => { throw new Error('connection lost') }
  await s.subscribe(s.push.browser('phone'))
  await s.feed([pikachu()])
  await s.settled()
  t.equal(s.push.received.length, 1, 'the matching event is pushed')
  // Read as written: `logs` was copied when setup spread the test app.
  const logged = s.rawLogs().split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Record<string, unknown>)
  t.ok(logged.some((line) => line.msg === 'push alerts: members could not be read at once; they are read one by one' && line.members === 1), 'the fallback is logged with how many members it reads')
})

t.test('a device left behind by a member the engine no longer knows: nothing pushed, looked for once a minute, not on every event', async (t) => {
  const s = await setup(t)
  await s.subscribe(s.push.browser('phone'))
  await s.feed([pikachu()])
  await s.settled()
  t.equal(s.push.received.length, 1, 'pushed while the member is known')
  // The member leaves the engine (an admin deleted them through the chat bot); the device stays.
  await s.app.engineDb.pool.query('DELETE FROM humans WHERE id = ?', [MEMBER])
  const reads = () => s.engine.requests.filter((r) => r.path.includes(MEMBER)).length
  const warnings = () => s.rawLogs().split('\n').filter((line) => line.includes('the alarm engine does not know this member')).length
  s.clock.advance(300_000 + 1)
  await s.feed([pikachu()])
  await s.settled()
  t.equal(warnings(), 1, 'the member is found missing once, and said so')
  const [readsAfterLoss, pushesAfterLoss] = [reads(), s.push.received.length]
  for (let second = 0; second < 16; second += 2) {
    s.clock.advance(2000)
    await s.feed([pikachu()])
    await s.settled()
  }
  t.equal(s.push.received.length, pushesAfterLoss, 'the scanner\'s events push nothing for a member the engine does not know')
  // A hook call for the member (from an engine that still had them) reads nothing either.
  for (let second = 16; second < 30; second += 2) {
    s.clock.advance(2000)
    await s.app.inject({ method: 'POST', url: `/api/push/validation/${HOOK}`, payload: { target: { id: MEMBER, type: 'discord:user', name: 'x' }, type: 'pokemon', message: pikachu().message } })
    await s.settled()
  }
  t.equal(reads(), readsAfterLoss, 'no engine read on the sweeps and hook calls of the next 30 s')
  t.equal(warnings(), 1, 'and no further warning')
  s.clock.advance(60_000)
  await s.feed([pikachu()])
  await s.settled()
  t.ok(reads() > readsAfterLoss, 'looked for again after a minute')
})

t.test('a device\'s "last sent" is written for the alerts it gets, gathered into one write a moment later', async (t) => {
  const s = await setup(t)
  await s.subscribe(s.push.browser('phone'))
  await s.subscribe(s.push.browser('tablet'))
  const devices = async () => (await s.app.inject({ url: '/api/push/subscriptions', headers: s.member })).json<{ devices: Array<{ lastSentAt: string | null }> }>().devices
  t.same((await devices()).map((d) => d.lastSentAt), [null, null])
  await s.feed([pikachu()])
  await s.settled()
  t.equal(s.push.received.length, 2)
  let marked = await devices()
  for (let tries = 0; tries < 50 && marked.some((d) => d.lastSentAt === null); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    marked = await devices()
  }
  t.ok(marked.every((d) => d.lastSentAt !== null), 'both devices show when they were last sent to')
  t.equal(new Set(marked.map((d) => d.lastSentAt)).size, 1, 'the same time for both')
})

t.test('the feed: a paused member never gets a push; quiet hours hold; "chat only" pushes nothing', async (t) => {
  const paused = await setup(t)
  await paused.subscribe(paused.push.browser())
  await paused.feed([pikachu()])
  await paused.settled()
  t.equal(paused.push.received.length, 1, 'before the pause')
  const pause = await paused.app.inject({ method: 'POST', url: '/api/auth/alerts/toggle', headers: paused.member })
  t.same(pause.json(), { enabled: false })
  await paused.feed([pikachu()])
  await paused.settled()
  t.equal(paused.push.received.length, 1, 'nothing while paused, at once after the pause')

  const quiet = await setup(t)
  // The app's clock stands at 12:00 UTC, 13:00 in Berlin.
  await quiet.subscribe(quiet.push.browser('asleep'), { quietHours: { start: '12:30', end: '14:00', timeZone: 'Europe/Berlin' } })
  await quiet.subscribe(quiet.push.browser('awake'), { quietHours: { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin' } })
  await quiet.feed([pikachu()])
  await quiet.settled()
  t.same(quiet.push.received.map((r) => r.browser), ['awake'], 'the device in its quiet hours is held')

  const chat = await setup(t)
  await chat.subscribe(chat.push.browser())
  t.equal((await chat.app.inject({ method: 'PUT', url: '/api/push/delivery', headers: chat.member, payload: { profileNo: 1, mode: 'chat' } })).statusCode, 204)
  await chat.feed([pikachu()])
  await chat.settled()
  t.equal(chat.push.received.length, 0, 'chat only')
})

t.test('the feed: a device\'s alarm types choose what it shows', async (t) => {
  const s = await setup(t)
  await s.subscribe(s.push.browser('raids-only'), { types: ['raid'] })
  await s.subscribe(s.push.browser('everything'))
  await s.feed([pikachu()])
  await s.settled()
  t.same(s.push.received.map((r) => r.browser), ['everything'])
})

t.test('the rate limit folds a flood into one notice', async (t) => {
  const s = await setup(t, { PUSH_RATE_MAX: '3' })
  await s.subscribe(s.push.browser())
  await s.feed(Array.from({ length: 8 }, () => pikachu()))
  await s.settled()
  const kinds = s.push.received.map((r) => (JSON.parse(r.payload) as { kind: string }).kind)
  // Sent side by side, so they may arrive in any order.
  t.same(kinds.sort(), ['alert', 'alert', 'alert', 'rate-limited'])
  t.match(s.push.received.map((r) => JSON.parse(r.payload) as { kind: string }).find((p) => p.kind === 'rate-limited'), { title: 'Too many alerts', tag: 'rate-limited' })
})

t.test('the notification is in the member\'s language: the game data\'s species name, the words, the numbers', async (t) => {
  const s = await setup(t, {}, 'de')
  s.engine.set({ monsterNames: { de: { 1: 'Bisasam' } } })
  t.equal((await s.app.inject({ method: 'POST', url: '/api/monsters', headers: s.member, payload: { pokemon_id: 1, min_iv: 0 } })).statusCode < 300, true)
  await s.subscribe(s.push.browser())
  await s.feed([pikachu({ pokemon_id: 1, latitude: 51.11 })])
  await s.settled()
  const shown = JSON.parse(s.push.received[0]?.payload ?? '{}') as Record<string, string>
  t.equal(shown.title, 'Bisasam 100% · L30 · CP 900')
  t.match(shown.body, /^noch 20 Min\. · Centre · 1,\d km$/)
})

t.test('the feed\'s backlog: no event lost below its bound; past it the oldest are dropped first, and counted', async (t) => {
  const s = await setup(t, { PUSH_FEED_BACKLOG_MAX: '5', PUSH_RATE_MAX: '100' })
  await s.subscribe(s.push.browser())
  const below = Array.from({ length: 5 }, () => pikachu())
  t.same((await s.feed(below)).json(), { accepted: 5 })
  await s.settled()
  t.same(s.push.received.map((r) => (JSON.parse(r.payload) as { tag: string }).tag).sort(), below.map((e) => `pokemon-${e.message.encounter_id}`).sort(), 'every one pushed')
  const past = Array.from({ length: 8 }, () => pikachu())
  await s.feed(past)
  await s.settled()
  const tags = s.push.received.slice(5).map((r) => (JSON.parse(r.payload) as { tag: string }).tag).sort()
  t.same(tags, past.slice(3).map((e) => `pokemon-${e.message.encounter_id}`).sort(), 'the newest five pushed, the oldest three dropped')
  const metrics = (await s.app.inject({ url: '/metrics', headers: { authorization: 'Bearer metrics-token-for-tests' } })).body
  t.match(metrics, /^alarm_web_push_feed_dropped_total\{reason="backlog"\} 3$/m)
})

t.test('an alarm written through the site is matched at once, not after the refresh time', async (t) => {
  const s = await setup(t)
  await s.subscribe(s.push.browser())
  await s.feed([pikachu({ pokemon_id: 133 })])
  await s.settled()
  t.equal(s.push.received.length, 0, 'no Eevee alarm yet')
  const eevee = await s.app.inject({ method: 'POST', url: '/api/monsters', headers: s.member, payload: { pokemon_id: 133, min_iv: 0 } })
  t.equal(eevee.statusCode < 300, true)
  await s.feed([pikachu({ pokemon_id: 133 })])
  await s.settled()
  t.equal(s.push.received.length, 1)
})
