import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import webPush from 'web-push'
import type { CDPSession, Page } from 'playwright-core'
import { startPushService } from '../fakes/push-service.js'
import { bearer } from '../helper.js'
import { axeViolations, browserMissing, launchPersistentChromium, PHONE, signInPage, startBrowserApp } from '../browser.js'

/**
 * Run by test/push-app-browser.test.ts in a process that trusts the local push service
 * (test/fakes/push-service.ts): the manifest and the service worker make the site installable, the app
 * shell opens offline and says so, a delivered push becomes a notification whose tap opens its link, and
 * on a 360 px phone My devices turns alerts on and sends a test the push service decrypts.
 */

const certificateDir = process.env.PUSH_SERVICE_CERT_DIR as string
const vapid = webPush.generateVAPIDKeys()
const MEMBER = { id: '100000000000000031', name: 'member31', latitude: 51.5, longitude: 7.25, area: ['centre'] }

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await appTests()

/**
 * Polls `check` every 100 ms until it answers true, for at most 90 s: generous, since the worker keeps
 * the whole app shell (about 2 MB) before it takes the page, which is slow on a busy machine.
 */
async function until (check: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; tries < 900; tries++) {
    if (await check()) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error('waited 90 s in vain')
}

/** Waits until the page's service worker is active and controls the page; its registration's id for the DevTools protocol. */
async function controlledBy (page: Page, cdp: CDPSession): Promise<string> {
  const registrations = new Map<string, string>()
  cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
    for (const version of versions) if (version.runningStatus === 'running') registrations.set(version.registrationId, version.scriptURL)
  })
  await cdp.send('ServiceWorker.enable')
  await until(async () => await page.evaluate(async () => (await navigator.serviceWorker.ready).active !== null && navigator.serviceWorker.controller !== null))
  await until(async () => registrations.size > 0)
  const [id] = registrations.keys()
  if (id === undefined) throw new Error('no running service worker seen')
  return id
}

async function appTests (): Promise<void> {
  const push = await startPushService(certificateDir)
  t.teardown(() => push.close())
  const site = await startBrowserApp(t, {
    env: { VAPID_PUBLIC_KEY: vapid.publicKey, VAPID_PRIVATE_KEY: vapid.privateKey, VAPID_SUBJECT: 'mailto:admin@alarms.example.org', SCANNER_WEBHOOK_TOKEN: 'push-app-scanner-token-0123456789', PUSH_ENDPOINT_HOSTS: push.host }
  })
  // http://127.0.0.1 is a secure context: service workers, push and installing work there as on https.
  const origin = site.base

  t.test('installable, opens offline with the offline line, and shows a pushed notification whose tap opens its link', async (t) => {
    const profile = mkdtempSync(join(tmpdir(), 'push-app-'))
    const context = await launchPersistentChromium(profile, { baseURL: site.base })
    t.teardown(async () => { await context.close(); rmSync(profile, { recursive: true, force: true }) })
    // Through the DevTools protocol's Browser.grantPermissions for this context: a tap on "Allow".
    await context.grantPermissions(['notifications'], { origin })
    const page = context.pages()[0] ?? await context.newPage()
    await signInPage(site.testApp, page, MEMBER, '/')
    const cdp = await page.context().newCDPSession(page)
    const registrationId = await controlledBy(page, cdp)

    // Chromium checks the manifest (name, icons, start URL, display) and the worker; its list is empty when it would install.
    let errors: unknown[] = ['not checked']
    for (let tries = 0; errors.length > 0 && tries < 20; tries++) {
      errors = (await cdp.send('Page.getInstallabilityErrors')).installabilityErrors
      if (errors.length > 0) await new Promise((resolve) => setTimeout(resolve, 250))
    }
    t.same(errors, [], 'no installability errors')

    await cdp.send('Network.enable')
    await cdp.send('Network.emulateNetworkConditions', { offline: true, latency: 0, downloadThroughput: -1, uploadThroughput: -1 })
    await page.reload()
    await page.getByText('You are offline: the app opens, but nothing loads or saves until the connection is back.').waitFor()
    t.ok(await page.locator('#root').evaluate((root) => root.childElementCount > 0), 'the app shell is drawn from the kept files')
    t.same(await axeViolations(page), [], 'axe: the offline page')
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 })

    // The map link is another site (here: the same server under another host name).
    const mapLink = `${origin.replace('127.0.0.1', 'localhost')}/@/51.500000/7.250000/16`
    const payload = { kind: 'alert', title: 'Dratini 98% · L30 · CP 912', body: '12 min left · 350 m', tag: 'pokemon-99', url: mapLink }
    const shown = async () => await page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications())
      .map((n) => ({ title: n.title, body: n.body, tag: n.tag, url: (n.data as { url: string }).url })))
    // A push delivered while Chromium starts the worker again after the offline round trip can be lost:
    // it is delivered again every 5 s until one shows (the tag folds repeats into one notification).
    let polls = 0
    await until(async () => {
      if ((await shown()).length > 0) return true
      if (polls++ % 50 === 0) await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId, data: JSON.stringify(payload) })
      return false
    })
    t.same(await shown(), [{ title: payload.title, body: payload.body, tag: payload.tag, url: mapLink }], 'the notification as the server sent it')

    // No protocol command taps a notification: the test dispatches the event the browser would, on the
    // notification shown, and waits for the work the handler hands to waitUntil.
    const [worker] = page.context().serviceWorkers()
    if (worker === undefined) throw new Error('no service worker in the context')
    // A string, not a function: the test's compiler would add helpers the worker does not have.
    await worker.evaluate(`(async () => {
      const [notification] = await self.registration.getNotifications()
      const event = new NotificationEvent('notificationclick', { notification })
      let work = Promise.resolve()
      Object.defineProperty(event, 'waitUntil', { value: (promise) => { work = promise } })
      self.dispatchEvent(event)
      await work
    })()`)
    await page.waitForURL(mapLink)
    t.equal(page.url(), mapLink, 'the tap opened the map link in the app\'s window')
    t.equal(await worker.evaluate(async () => (await (self as unknown as { registration: ServiceWorkerRegistration }).registration.getNotifications()).length), 0, 'the tapped notification is closed')
  })

  t.test('on a phone, My devices turns alerts on and a test reaches the push service', async (t) => {
    const browser = push.browser()
    // A sign-in of its own (`t.`: one without a refresh family): the device it turns on is marked "This device".
    const member = { ...MEMBER, id: '100000000000000032', name: 'member32', sid: 't.phone-session-32' }
    // With the app's service worker: the subscription is made through its registration.
    const page = await site.signIn(t, member, '/devices', PHONE, { serviceWorkers: 'allow' })
    await page.context().grantPermissions(['notifications'], { origin })
    // Headless Chromium reaches no real push service in this closed network, so PushManager.subscribe is
    // replaced, in this test only, by one answering the subscription of a browser made by the local push
    // service stand-in: the site then stores it and sends to it exactly as to Google's or Mozilla's.
    // A string, not a function: the test's compiler would add helpers the page does not have.
    await page.addInitScript(`{
      const subscription = ${JSON.stringify(browser.subscription)}
      PushManager.prototype.subscribe = async () => ({
        endpoint: subscription.endpoint,
        expirationTime: null,
        toJSON: () => ({ endpoint: subscription.endpoint, expirationTime: null, keys: subscription.keys }),
        unsubscribe: async () => true
      })
    }`)
    await page.reload()

    const turnOn = page.getByRole('button', { name: 'Turn on alerts on this device' })
    await turnOn.click()
    const device = page.getByRole('list', { name: 'Devices with alerts' }).getByRole('listitem')
    await device.getByRole('button', { name: 'Send a test' }).waitFor()
    t.equal(await device.count(), 1, 'the subscription is stored and listed')
    t.equal(await device.getByText('This device', { exact: true }).count(), 1, 'marked as the device in hand')

    await device.getByRole('button', { name: 'Send a test' }).click()
    await page.getByText('Test sent: it should appear on the device in a moment.').waitFor()
    t.equal(push.received.length, 1, 'one message at the push service')
    t.match(JSON.parse(push.received[0]?.payload ?? '{}'), { kind: 'test', title: 'Test alert', body: 'Alerts reach this device.', tag: /^test-\d+$/, url: '/' }, 'decrypted with the device\'s keys')
    t.same(push.refused, [])

    // Saved on the tap; ticked once the site has it.
    await device.getByRole('checkbox', { name: 'No alerts during quiet hours' }).click()
    await device.getByText('Saved.').waitFor()
    const stored = (await site.testApp.app.inject({ url: '/api/push/subscriptions', headers: bearer(site.testApp.app, { userId: member.id }) })).json<{ devices: Array<{ quietHours: unknown }> }>()
    t.match(stored.devices[0]?.quietHours, { start: '22:00', end: '07:00' }, 'quiet hours saved for the device')

    // A device turned on from another sign-in of the member's is listed too, without the mark.
    const laptop = await site.testApp.app.inject({
      method: 'POST', url: '/api/push/subscriptions', headers: bearer(site.testApp.app, { userId: member.id, sid: 't.laptop-session-32' }), payload: push.browser('laptop').subscription
    })
    t.equal(laptop.statusCode, 201, laptop.body)
    await page.reload()
    await device.nth(1).waitFor()
    t.equal(await device.count(), 2, 'both devices listed')
    t.equal(await device.getByText('This device', { exact: true }).count(), 1, 'only the device in hand is marked')

    t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 360), 'nothing wider than the phone')
    t.same(await axeViolations(page), [], 'axe: the Devices page with push')
  })
}
