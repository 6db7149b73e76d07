import t from 'tap'
import webPush from 'web-push'
import { eq } from 'drizzle-orm'
import { pushSubscriptions } from '../../db/schema/service.js'
import { bearer, build, buildInstance, type Test } from '../helper.js'
import { startPushService, type FakeBrowser } from '../fakes/push-service.js'
import type { PushMessage } from '../../plugins/domain/push-sender.js'

/**
 * Run by test/push-subscriptions.test.ts in a process that trusts the local push service
 * (test/fakes/push-service.ts), which decrypts every message with the browser keys it made and checks its
 * VAPID token: the routes of /api/push, what reaches the phone, retries, pruning and the queue's bound.
 */

const certificateDir = process.env.PUSH_SERVICE_CERT_DIR as string
const vapid = webPush.generateVAPIDKeys()
const SUBJECT = 'mailto:admin@alarms.example.org'
const FEED = 'feed-token-0123456789abcdef'
const MEMBER = '100000000000000001'
const OTHER = '100000000000000002'

async function setup (t: Test, env: Record<string, string> = {}) {
  const push = await startPushService(certificateDir)
  t.teardown(() => push.close())
  const testApp = await build(t, {
    env: { VAPID_PUBLIC_KEY: vapid.publicKey, VAPID_PRIVATE_KEY: vapid.privateKey, VAPID_SUBJECT: SUBJECT, SCANNER_WEBHOOK_TOKEN: FEED, PUSH_ENDPOINT_HOSTS: push.host, ...env },
    logLevel: 'info'
  })
  const { app } = testApp
  const member = bearer(app, { userId: MEMBER })
  const subscribe = async (browser: FakeBrowser, headers = member, extra: Record<string, unknown> = {}) => {
    const response = await app.inject({ method: 'POST', url: '/api/push/subscriptions', headers, payload: { ...browser.subscription, ...extra } })
    return response
  }
  return { ...testApp, push, member, other: bearer(app, { userId: OTHER }), subscribe }
}

/** A queued message to a browser, as the senders make them. */
const message = (id: number, browser: FakeBrowser, at: number, extra: Partial<PushMessage> = {}): PushMessage => ({
  target: { id, endpoint: browser.subscription.endpoint, ...browser.subscription.keys },
  payload: JSON.stringify({ title: 'Dratini 98%', body: '12 min left', tag: 'e1', url: '/' }),
  ttlSeconds: 600,
  urgency: 'normal',
  topic: 'e1',
  eventAt: at,
  ...extra
})

t.test('without a source of alerts push is off: every /api/push route is 404', async (t) => {
  const { app } = await build(t, { env: { VAPID_PUBLIC_KEY: vapid.publicKey, VAPID_PRIVATE_KEY: vapid.privateKey } })
  const member = bearer(app, { userId: MEMBER })
  for (const url of ['/api/push/key', '/api/push/subscriptions', '/api/push/delivery']) {
    const response = await app.inject({ url, headers: member })
    t.equal(response.statusCode, 404, url)
  }
  t.equal(app.pushSender.enabled, false)
})

t.test('half of the VAPID pair is refused at start; so is a source without a subject to sign with', async (t) => {
  await t.rejects(build(t, { env: { VAPID_PUBLIC_KEY: vapid.publicKey } }), /VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY together/)
  await t.rejects(build(t, { env: { VAPID_PUBLIC_KEY: 'short', VAPID_PRIVATE_KEY: vapid.privateKey } }), /VAPID_PUBLIC_KEY must be a 65-byte/)
  await t.rejects(build(t, { env: { SCANNER_WEBHOOK_TOKEN: FEED, CORS_ORIGIN: 'http://localhost' } }), /needs VAPID_SUBJECT/)
  const { config } = await build(t, { env: { SCANNER_WEBHOOK_TOKEN: FEED } })
  t.equal(config.VAPID_SUBJECT, 'https://alarms.example.org', 'the site\'s https origin by default')
})

t.test('without the operator\'s pair the service makes one on its first start, keeps it hidden, and every instance signs with it', async (t) => {
  const push = await startPushService(certificateDir)
  t.teardown(() => push.close())
  const first = await build(t, { env: { SCANNER_WEBHOOK_TOKEN: FEED, PUSH_ENDPOINT_HOSTS: push.host } })
  const member = bearer(first.app, { userId: MEMBER })
  const made = (await first.app.inject({ url: '/api/push/key', headers: member })).json<{ publicKey: string }>().publicKey
  t.equal(Buffer.from(made, 'base64url').length, 65, 'an uncompressed P-256 point')
  const restarted = await buildInstance(t, first)
  t.equal(restarted.pushSender.publicKey(), made, 'a restart keeps the pair')

  // Instances starting together on an empty store: each offers a pair, all keep the first written.
  await first.app.db.pool.query('DELETE FROM site_settings WHERE `key` = \'vapid_keys\'')
  const offers = ['a', 'b', 'c', 'd'].map((pair) => JSON.stringify({ pair }))
  const kept = await Promise.all(offers.map((offer) => first.app.siteSettings.keepFirst('vapid_keys', offer)))
  t.equal(new Set(kept).size, 1, 'one pair for all')
  t.ok(offers.includes(kept[0] as string))

  const admin = bearer(first.app, { userId: OTHER, isAdmin: true })
  const settings = (await first.app.inject({ url: '/api/settings', headers: admin })).json<Array<{ key: string }>>()
  t.notOk(settings.some((row) => row.key === 'vapid_keys'), 'the private key is never answered')
  t.equal((await first.app.inject({ method: 'PUT', url: '/api/settings/vapid_keys', headers: admin, payload: { value: '{}' } })).statusCode, 400, 'nor written through the API')

  const browser = push.browser()
  t.equal(await restarted.pushSender.enqueue(message(1, browser, first.clock.now())), 'sent')
  t.same(push.refused, [], 'the push service verified the signature with the kept key')
  t.equal(push.received[0]?.vapid.publicKey, made)
})

t.test('the admin switches push off: the routes are 404 and the sources take nothing', async (t) => {
  const { app, member } = await setup(t, { PUSH_VALIDATION_TOKEN: 'hook-token-0123456789abcdef' })
  const admin = bearer(app, { userId: OTHER, isAdmin: true })
  t.equal((await app.inject({ url: '/api/push/key', headers: member })).statusCode, 200)
  t.equal((await app.inject({ method: 'PUT', url: '/api/settings/disable_push', headers: admin, payload: { value: 'true' } })).statusCode, 200)
  t.equal((await app.inject({ url: '/api/push/key', headers: member })).statusCode, 404)
  const feed = await app.inject({ method: 'POST', url: `/api/scanner-webhook/${FEED}`, payload: [{ type: 'pokemon', message: { pokemon_id: 1, latitude: 1, longitude: 1 } }] })
  t.same(feed.json(), { accepted: 0 })
  const hook = await app.inject({ method: 'POST', url: '/api/push/validation/hook-token-0123456789abcdef', payload: { type: 'pokemon', message: {}, target: { id: MEMBER } } })
  t.same(hook.json(), { success: true }, 'the engine sends its chat message')
})

t.test('the key is for signed-in members', async (t) => {
  const { app, member } = await setup(t)
  t.equal((await app.inject({ url: '/api/push/key' })).statusCode, 401)
  const response = await app.inject({ url: '/api/push/key', headers: member })
  t.same(response.json(), { publicKey: vapid.publicKey })
})

t.test('a device subscribes, is listed without its endpoint or keys, and is its owner\'s only', async (t) => {
  const { app, push, member, other, subscribe, rawLogs } = await setup(t)
  const browser = push.browser()
  const created = await subscribe(browser, member, { types: ['pokemon', 'raid'], quietHours: { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin' } })
  t.equal(created.statusCode, 201, created.body)
  const { id } = created.json<{ id: number }>()

  const list = await app.inject({ url: '/api/push/subscriptions', headers: member })
  t.equal(list.statusCode, 200)
  const [device] = list.json<{ devices: Array<Record<string, unknown>> }>().devices
  t.match(device, { id, pushService: '127.0.0.1', types: ['pokemon', 'raid'], quietHours: { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin' }, lastSentAt: null })
  t.notMatch(list.body, browser.subscription.keys.p256dh)
  t.notMatch(list.body, browser.id, 'the endpoint is not answered back')

  // The same browser subscribing again keeps one row (the endpoint is the device).
  t.equal((await subscribe(browser, member)).json<{ id: number }>().id, id)
  t.equal((await app.inject({ url: '/api/push/subscriptions', headers: member })).json<{ devices: unknown[] }>().devices.length, 1)

  for (const [method, url] of [['GET', `/api/push/subscriptions/${id}`], ['DELETE', `/api/push/subscriptions/${id}`], ['POST', `/api/push/subscriptions/${id}/test`]] as const) {
    const response = await app.inject({ method, url, headers: other, ...(method === 'POST' ? { payload: {} } : {}) })
    t.equal(response.statusCode, 404, `${method} ${url} of another member`)
  }
  t.same((await app.inject({ url: '/api/push/subscriptions', headers: other })).json(), { devices: [] })
  t.equal(push.received.length, 0, 'nothing was sent for the other member')

  const changed = await app.inject({ method: 'PATCH', url: `/api/push/subscriptions/${id}`, headers: member, payload: { quietHours: null } })
  t.equal(changed.statusCode, 204)
  t.equal((await app.inject({ url: `/api/push/subscriptions/${id}`, headers: member })).json<{ quietHours: unknown }>().quietHours, null)

  t.equal((await app.inject({ method: 'DELETE', url: `/api/push/subscriptions/${id}`, headers: member })).statusCode, 204)
  t.equal((await app.inject({ method: 'DELETE', url: `/api/push/subscriptions/${id}`, headers: member })).statusCode, 404)
  t.notMatch(rawLogs(), browser.id, 'no endpoint in the logs')
  t.notMatch(rawLogs(), browser.subscription.keys.auth, 'no key in the logs')
})

t.test('endpoints: https only, never loopback or private unless PUSH_ENDPOINT_HOSTS lists the host:port', async (t) => {
  const { push, member, subscribe } = await setup(t)
  const browser = push.browser()
  const withEndpoint = (endpoint: string) => ({ ...browser, subscription: { ...browser.subscription, endpoint } })
  for (const endpoint of [
    browser.subscription.endpoint.replace('https:', 'http:'),
    'https://127.0.0.1:1/push/x',
    'https://10.1.2.3/push/x',
    'https://[::1]/push/x',
    'https://169.254.169.254/push/x',
    'https://localhost/push/x',
    'https://user:pw@fcm.googleapis.com/fcm/send/x',
    'https://no-such-host.invalid/push/x'
  ]) {
    const response = await subscribe(withEndpoint(endpoint), member)
    t.equal(response.statusCode, 400, endpoint)
    t.notMatch(response.body, 'Internal')
  }
  const badKeys = await subscribe({ ...browser, subscription: { ...browser.subscription, keys: { p256dh: 'x', auth: 'y' } } }, member)
  t.equal(badKeys.statusCode, 400)
})

t.test('a test notification reaches the phone encrypted, signed, with its TTL, urgency and topic', async (t) => {
  const { app, push, member, subscribe } = await setup(t)
  const browser = push.browser('phone')
  const { id } = (await subscribe(browser, member)).json<{ id: number }>()
  const response = await app.inject({ method: 'POST', url: `/api/push/subscriptions/${id}/test`, headers: member, payload: { title: 'Testalarm', body: 'Alarme erreichen dieses Gerät.' } })
  t.equal(response.statusCode, 200, response.body)
  t.same(response.json(), { sent: true })
  t.same(push.refused, [])
  t.equal(push.received.length, 1)
  const [got] = push.received
  t.same(JSON.parse(got?.payload ?? '{}'), { kind: 'test', title: 'Testalarm', body: 'Alarme erreichen dieses Gerät.', tag: `test-${id}`, url: '/' })
  t.equal(got?.browser, 'phone')
  t.ok((got?.ttl ?? 0) > 0 && (got?.ttl ?? 0) <= 60, `TTL ${got?.ttl}`)
  t.equal(got?.urgency, 'high')
  t.equal(got?.topic, 'test')
  t.equal(got?.vapid.aud, push.origin, 'the audience is the push service\'s origin')
  t.equal(got?.vapid.sub, SUBJECT)
  t.equal(got?.vapid.publicKey, vapid.publicKey)
  const expiresIn = (got?.vapid.exp ?? 0) - Date.now() / 1000
  t.ok(expiresIn > 0 && expiresIn <= 24 * 3600, 'the token expires within a day')
  const device = (await app.inject({ url: `/api/push/subscriptions/${id}`, headers: member })).json<{ lastSentAt: string | null }>()
  t.not(device.lastSentAt, null)
})

t.test('a device the push service calls gone (404, 410) is pruned', async (t) => {
  const { app, push, member, subscribe, clock } = await setup(t)
  const viaTest = push.browser()
  const { id } = (await subscribe(viaTest, member)).json<{ id: number }>()
  push.answerNext({ status: 410 })
  const response = await app.inject({ method: 'POST', url: `/api/push/subscriptions/${id}/test`, headers: member, payload: {} })
  t.equal(response.statusCode, 404)
  t.match(response.json(), { error: /no longer subscribed/ })

  const viaQueue = push.browser()
  const second = (await subscribe(viaQueue, member)).json<{ id: number }>().id
  push.answerNext({ status: 404 })
  t.equal(await app.pushSender.enqueue(message(second, viaQueue, clock.now())), 'gone')
  await t.resolveMatch(async () => {
    for (let i = 0; i < 50; i++) {
      const rows = await app.db.db.select({ id: pushSubscriptions.id }).from(pushSubscriptions).where(eq(pushSubscriptions.userId, MEMBER))
      if (rows.length === 0) return rows
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    return 'still there'
  }, [], 'both rows are deleted')
})

t.test('429 and 5xx are retried after Retry-After; 413 is dropped; retries end', async (t) => {
  const { app, push, clock } = await setup(t, { PUSH_RETRIES: '2' })
  const browser = push.browser()
  push.answerNext({ status: 429, headers: { 'retry-after': '1' } })
  const started = Date.now()
  t.equal(await app.pushSender.enqueue(message(1, browser, clock.now())), 'sent')
  t.ok(Date.now() - started >= 950, `waited ${Date.now() - started} ms for Retry-After: 1`)
  t.same(push.received.map((r) => r.status), [429, 201])
  t.same(JSON.parse(push.received[1]?.payload ?? '{}'), { title: 'Dratini 98%', body: '12 min left', tag: 'e1', url: '/' })

  push.answerNext({ status: 413 })
  t.equal(await app.pushSender.enqueue(message(1, browser, clock.now())), 'too_large')

  push.answerNext({ status: 503, headers: { 'retry-after': '0' } }, { status: 500, headers: { 'retry-after': '0' } }, { status: 502, headers: { 'retry-after': '0' } })
  t.equal(await app.pushSender.enqueue(message(1, browser, clock.now())), 'failed', 'given up after PUSH_RETRIES')
  t.equal(push.received.length, 6)

  push.answerNext({ status: 429, headers: { 'retry-after': '120' } })
  t.equal(await app.pushSender.enqueue(message(1, browser, clock.now(), { ttlSeconds: 60 })), 'expired', 'a wait past the event\'s time is not waited')
})

t.test('past PUSH_QUEUE_MAX the oldest waiting message is dropped and counted', async (t) => {
  const { app, push, clock } = await setup(t, { PUSH_QUEUE_MAX: '2', PUSH_CONCURRENCY: '1', METRICS_TOKEN: 'metrics-token-for-tests' })
  const browser = push.browser()
  const outcomes = await Promise.all([1, 2, 3, 4].map((n) => app.pushSender.enqueue(message(n, browser, clock.now(), { topic: `e${n}` }))))
  t.same(outcomes, ['sent', 'expired', 'sent', 'sent'], 'the first was already sending; the second was the oldest waiting')
  t.same(push.received.map((r) => r.topic), ['e1', 'e3', 'e4'])
  const metrics = await app.inject({ url: '/metrics', headers: { authorization: 'Bearer metrics-token-for-tests' } })
  t.match(metrics.body, /alarm_web_push_sent_total 3/)
  t.match(metrics.body, /alarm_web_push_failed_total\{reason="expired"\} 1/)
  t.match(metrics.body, /alarm_web_push_queue_depth 0/)
  t.match(metrics.body, /alarm_web_push_latency_seconds_count 3/)
})

t.test('delivery per profile: chat, push or both', async (t) => {
  const { app, member } = await setup(t)
  t.same((await app.inject({ url: '/api/push/delivery', headers: member })).json(), { modes: [], defaultMode: 'both' })
  t.equal((await app.inject({ method: 'PUT', url: '/api/push/delivery', headers: member, payload: { profileNo: 2, mode: 'push' } })).statusCode, 204)
  t.equal((await app.inject({ method: 'PUT', url: '/api/push/delivery', headers: member, payload: { profileNo: 2, mode: 'chat' } })).statusCode, 204)
  t.equal((await app.inject({ method: 'PUT', url: '/api/push/delivery', headers: member, payload: { profileNo: 2, mode: 'pigeon' } })).statusCode, 400)
  t.equal((await app.inject({ method: 'PUT', url: '/api/push/delivery', headers: member, payload: { profileNo: 0, mode: 'push' } })).statusCode, 400)
  t.same((await app.inject({ url: '/api/push/delivery', headers: member })).json(), { modes: [{ profileNo: 2, mode: 'chat' }], defaultMode: 'both' })
})

t.test('an impersonating admin cannot subscribe a browser to the member\'s alerts', async (t) => {
  const { app, push, subscribe } = await setup(t)
  const impersonated = bearer(app, { userId: MEMBER, impersonatedBy: 'admin-1' })
  t.equal((await subscribe(push.browser(), impersonated)).statusCode, 403)
})

t.test('ending the sign-in a device subscribed from ends its push alerts', async (t) => {
  const { app, push, subscribe } = await setup(t)
  const sid = 't.4f1c2a9e-0b7d-4c55-9a31-2d6e8f0a1b2c'
  const device = bearer(app, { userId: MEMBER, sid })
  const otherDevice = bearer(app, { userId: MEMBER, sid: 't.7a2b3c4d-5e6f-4a1b-8c9d-0e1f2a3b4c5d' })
  await subscribe(push.browser(), device)
  await subscribe(push.browser(), otherDevice)
  t.match((await app.inject({ url: '/api/push/subscriptions', headers: device })).json(), { devices: [{ current: true }, { current: false }] })
  const ended = await app.inject({ method: 'DELETE', url: `/api/auth/sessions/${sid}`, headers: device })
  t.equal(ended.statusCode, 200, ended.body)
  for (let i = 0; i < 50; i++) {
    const rows = await app.db.db.select({ sid: pushSubscriptions.sessionSid }).from(pushSubscriptions)
    if (rows.length === 1) break
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  t.same((await app.db.db.select({ sid: pushSubscriptions.sessionSid }).from(pushSubscriptions)).map((r) => r.sid), ['t.7a2b3c4d-5e6f-4a1b-8c9d-0e1f2a3b4c5d'], 'only the other sign-in\'s device is left')
})
