import { mkdirSync } from 'node:fs'
import t from 'tap'
import type { Browser, Page } from 'playwright-core'
import { axeBothSizes, axeViolations, browserMissing, DESKTOP, launchChromium, PHONE, testContext } from './browser.js'
import { bearer, build, seedHuman, webhookHandle, type Test, type TestApp } from './helper.js'
import { insertAlarm } from './fakes/engine-db.js'

/**
 * Webhooks and delegates, and "view as", in Debian's Chromium against the whole app (real databases, the
 * engine fake): an admin creates a webhook and grants a member; the member manages it as the webhook and
 * comes back; a revoke takes the webhook away at once. With SCREENSHOT_DIR set, the admin page is saved.
 */

const ADMIN = '300000000000000001'
const MEMBER = '300000000000000002'
const CAROL = '300000000000000003'
const WEBHOOK = 'https://discord.com/api/webhooks/11/token-a'
const QUESTS = 'https://example.org/hooks/quests?key=secret-b'
const NAMES: Record<string, string> = { [ADMIN]: 'Alice', [MEMBER]: 'Bob', [CAROL]: 'Carol' }

const missing = browserMissing()
if (missing !== undefined) t.fail(missing)
else await browserTests()

async function browserTests (): Promise<void> {
  const browser: Browser = await launchChromium()
  t.teardown(async () => { await browser.close() })

  interface Site extends TestApp { base: string }

  async function site (test: Test): Promise<Site> {
    const s = await build(test, { env: { PORACLE_ADMIN_IDS: ADMIN } })
    await seedHuman(s, { id: ADMIN, name: 'Alice' })
    await seedHuman(s, { id: MEMBER, name: 'Bob', area: ['centre'], latitude: 51.5, longitude: -0.12 })
    await seedHuman(s, { id: CAROL, name: 'Carol', area: ['centre'], latitude: 51.5, longitude: -0.12 })
    await s.app.listen({ host: '127.0.0.1', port: 0 })
    const address = s.app.server.address()
    return Object.assign(s, { base: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}` })
  }

  /** A fresh browser profile signed in as `userId`, as a chat-platform sign-in leaves it. */
  async function signedIn (test: Test, s: Site, userId: string, viewport = DESKTOP): Promise<Page> {
    const context = await testContext(browser, { baseURL: s.base, viewport, permissions: ['clipboard-read', 'clipboard-write'] })
    test.teardown(async () => { await context.close() })
    const page = await context.newPage()
    const token = bearer(s.app, { userId, username: NAMES[userId] ?? userId, isAdmin: userId === ADMIN }).authorization.replace('Bearer ', '')
    await page.goto('/login?loggedout=1')
    await page.evaluate((jwt) => { localStorage.setItem('aw.token', jwt); localStorage.setItem('aw.signIn', 'discord') }, token)
    return page
  }

  const rows = async (s: Site, table: string, userId: string) =>
    await s.app.engineDb.pool.query(`SELECT * FROM \`${table}\` WHERE id = ? ORDER BY uid`, [userId]) as Array<Record<string, unknown>>
  const human = async (s: Site, id: string) =>
    await s.app.engineDb.pool.query('SELECT type, name, enabled FROM humans WHERE id = ?', [id]) as Array<Record<string, unknown>>
  const grants = async (s: Site) =>
    await s.app.db.pool.query('SELECT webhook_id AS webhookId, user_id AS userId FROM webhook_delegates') as Array<{ webhookId: string, userId: string }>
  /** The signed-in account of a page, read from its stored JWT. */
  const tokenUser = async (page: Page): Promise<string> => await page.evaluate(() => {
    const payload = (localStorage.getItem('aw.token') ?? '').split('.')[1] ?? ''
    return (JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as { userId: string }).userId
  })
  const banner = (page: Page) => page.locator('.view-as-banner')
  const item = (page: Page, name: string) => page.getByRole('listitem').filter({ has: page.getByRole('heading', { name, exact: true }) })

  t.test('a webhook, its delegate, managing it as the webhook, and a revoke that takes it away at once', async (t) => {
    const s = await site(t)
    const admin = await signedIn(t, s, ADMIN)
    await admin.goto('/admin/webhooks')
    await admin.getByText('There are no webhooks yet. Create one below.').waitFor()

    // Refused before sending: each problem at its field, nothing created.
    await admin.getByRole('button', { name: 'Create webhook' }).click()
    await admin.getByText('Give the webhook a name.').waitFor()
    t.ok(await admin.getByLabel('Name', { exact: true }).evaluate((e) => e === document.activeElement), 'focus goes to the first field in error')
    await admin.getByLabel('Name', { exact: true }).fill('Raid channel')
    await admin.getByLabel('Webhook address').fill('discord.com/api/webhooks/11/token-a')
    await admin.getByRole('button', { name: 'Create webhook' }).click()
    await admin.getByText('Enter an address starting with http:// or https://, without spaces.').waitFor()
    t.equal(await admin.getByLabel('Webhook address').getAttribute('aria-invalid'), 'true')
    t.same(await human(s, WEBHOOK), [], 'nothing reached the engine')

    await admin.getByLabel('Webhook address').fill(WEBHOOK)
    await admin.getByRole('button', { name: 'Create webhook' }).click()
    await admin.getByText('Webhook Raid channel created.').waitFor()
    const hook = item(admin, 'Raid channel')
    await hook.waitFor()
    t.same(await human(s, WEBHOOK), [{ type: 'webhook', name: 'Raid channel', enabled: 1 }], 'the engine has the webhook user')
    t.equal(await admin.getByLabel('Name', { exact: true }).inputValue(), '', 'the form is empty for the next one')

    // The same address again: the server's 409 is shown at the address field.
    await admin.getByLabel('Name', { exact: true }).fill('Copy')
    await admin.getByLabel('Webhook address').fill(WEBHOOK)
    await admin.getByRole('button', { name: 'Create webhook' }).click()
    await admin.getByText('A webhook with this URL already exists.').waitFor()
    t.equal(await admin.getByLabel('Webhook address').getAttribute('aria-invalid'), 'true')
    t.equal((await s.app.engineDb.pool.query("SELECT COUNT(*) AS n FROM humans WHERE type = 'webhook'") as Array<{ n: number }>)[0]?.n, 1, 'still one webhook')
    await admin.getByLabel('Webhook address').fill(QUESTS)
    t.equal(await admin.getByLabel('Webhook address').getAttribute('aria-invalid'), 'false', 'editing the field clears its error')

    // A second one, paused from its list entry.
    await admin.getByLabel('Name', { exact: true }).fill('Quest feed')
    await admin.getByRole('button', { name: 'Create webhook' }).click()
    const quests = item(admin, 'Quest feed')
    await quests.getByRole('button', { name: 'Pause alerts' }).click()
    await admin.getByText('Alerts for Quest feed are paused.').waitFor()
    await quests.getByText('Alerts paused').waitFor()
    t.same(await human(s, QUESTS), [{ type: 'webhook', name: 'Quest feed', enabled: 0 }], 'paused in the engine')
    t.notOk((await quests.textContent())?.includes('secret-b'), 'a secret in the query string is hidden too')

    // The address is a secret: shown only on request.
    t.notOk((await hook.textContent())?.includes('token-a'), 'the list hides the address')
    t.ok((await hook.textContent())?.includes('https://discord.com/…en-a'), 'origin and last characters tell it apart')
    await hook.getByRole('button', { name: 'Show full address' }).click()
    await hook.getByText(WEBHOOK, { exact: true }).waitFor()
    await hook.getByRole('button', { name: 'Show full address' }).click()
    t.notOk((await hook.textContent())?.includes('token-a'), 'and hidden again')
    await hook.getByRole('button', { name: 'Copy address' }).click()
    await hook.getByText('Address copied.').waitFor()
    t.equal(await admin.evaluate(async () => await navigator.clipboard.readText()), WEBHOOK, 'copy puts the whole address on the clipboard')

    // Grant: search the users, pick Bob.
    await hook.getByText('Nobody but administrators manages this webhook.').waitFor()
    await hook.getByRole('button', { name: 'Add a delegate' }).click()
    t.equal(await hook.getByRole('button', { name: 'Add a delegate' }).getAttribute('aria-expanded'), 'true')
    await hook.getByRole('button', { name: 'Search' }).click()
    await hook.getByText('Type a name or a user id.').waitFor()
    await hook.getByLabel('Name or user id').fill('nobody-here')
    await hook.getByRole('button', { name: 'Search' }).click()
    await hook.getByText('Nobody matches who could be added.').waitFor()
    await hook.getByLabel('Name or user id').fill('bob')
    await hook.getByRole('button', { name: 'Search' }).click()
    await hook.getByRole('button', { name: 'Grant Bob' }).click()
    await admin.getByText('Bob can now manage Raid channel.').waitFor()
    await hook.getByRole('button', { name: 'Revoke Bob' }).waitFor()
    t.same(await grants(s), [{ webhookId: WEBHOOK, userId: MEMBER }], 'the grant is stored')
    t.ok(await hook.getByRole('button', { name: 'Add a delegate' }).evaluate((e) => e === document.activeElement), 'focus returns to the button that opened the search')

    await axeBothSizes(t, admin, 'the admin webhooks page')
    if (process.env.SCREENSHOT_DIR !== undefined) {
      mkdirSync(process.env.SCREENSHOT_DIR, { recursive: true })
      await admin.evaluate(() => { window.scrollTo(0, 0) })
      await admin.screenshot({ path: `${process.env.SCREENSHOT_DIR}/admin-webhooks.png`, fullPage: true })
    }

    // The member: "My webhooks" in the navigation, manage as the webhook, and back.
    const member = await signedIn(t, s, MEMBER, PHONE)
    await member.goto('/')
    await member.getByRole('heading', { level: 1 }).waitFor()
    t.equal(await member.locator('#site-nav a[href="/my-webhooks"]').count(), 1, 'a delegate has "My webhooks" in the navigation')
    // The list cannot be had once: the page says why and offers another try.
    await member.route('**/api/admin/my-webhooks', (route) => route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ error: 'The alarm engine is not reachable right now.' }) }), { times: 1 })
    await member.goto('/my-webhooks')
    await member.getByRole('alert').getByText('The alarm engine is not reachable right now.').waitFor()
    await member.getByRole('button', { name: 'Try again' }).click()
    const mine = item(member, 'Raid channel')
    await mine.waitFor()
    await axeBothSizes(t, member, 'My webhooks')
    await member.setViewportSize(PHONE)
    await mine.getByRole('button', { name: 'Manage alarms' }).press('Enter')
    await banner(member).getByText('You are viewing the site as Raid channel.').waitFor()
    t.equal(await tokenUser(member), webhookHandle(WEBHOOK), 'the browser now acts as the webhook, named by its handle only')
    t.equal(await member.locator('#site-nav a[href="/my-webhooks"]').count(), 0, 'no delegation rides along into the webhook\'s view')

    await member.goto('/alarms/raids')
    await member.getByRole('button', { name: 'Add alarm' }).click()
    await member.getByRole('group', { name: 'Level', exact: true }).getByRole('button', { name: '5-Star Raid', exact: true }).click()
    await member.getByRole('button', { name: 'Create 1 alarm' }).click()
    await member.getByText('Raids: 5-Star Raid, in your areas', { exact: true }).waitFor()
    t.match(await rows(s, 'raid', WEBHOOK), [{ level: 5 }], 'the alarm is the webhook\'s in the engine')
    t.same(await rows(s, 'raid', MEMBER), [], 'and not the member\'s')
    t.same(await axeViolations(member), [], 'axe-core finds nothing on a page with the banner')

    await banner(member).getByRole('button', { name: 'Back to my account' }).click()
    await member.waitForURL('**/my-webhooks')
    await item(member, 'Raid channel').waitFor()
    t.equal(await banner(member).count(), 0, 'the banner is gone')
    t.equal(await tokenUser(member), MEMBER, 'the member\'s own session is back')

    // The admin revokes; the member's open list is out of date, and the server says no.
    await admin.setViewportSize(DESKTOP)
    await hook.getByRole('button', { name: 'Revoke Bob' }).click()
    const dialog = admin.getByRole('dialog', { name: 'Revoke this delegate?' })
    await dialog.getByText('Bob will no longer be able to manage Raid channel.', { exact: false }).waitFor()
    t.same(await axeViolations(admin), [], 'axe-core finds nothing with the confirmation open')
    await admin.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    t.ok(await hook.getByRole('button', { name: 'Revoke Bob' }).evaluate((e) => e === document.activeElement), 'Escape closes it and focus is back on the revoke button')
    t.same(await grants(s), [{ webhookId: WEBHOOK, userId: MEMBER }], 'cancelling keeps the grant')
    await hook.getByRole('button', { name: 'Revoke Bob' }).click()
    await dialog.getByRole('button', { name: 'Revoke', exact: true }).click()
    await admin.getByText('Bob no longer manages Raid channel.').waitFor()
    await hook.getByText('Nobody but administrators manages this webhook.').waitFor()
    t.same(await grants(s), [], 'the grant is gone')

    await item(member, 'Raid channel').getByRole('button', { name: 'Manage alarms' }).click()
    await member.getByRole('alert').getByText('You may not act as this account.').waitFor()
    t.equal(await tokenUser(member), MEMBER, 'refused: the member is still themselves')
    t.equal(await banner(member).count(), 0)
    await member.reload()
    await member.getByText('You do not manage any webhooks. An administrator can give you access to one.').waitFor()
    t.equal(await member.locator('#site-nav a[href="/my-webhooks"]').count(), 0, '"My webhooks" leaves the navigation')

    // Deleting a webhook takes its user row with it.
    await quests.getByRole('button', { name: 'Delete webhook' }).click()
    await admin.getByRole('dialog', { name: 'Delete this webhook?' }).getByRole('button', { name: 'Delete webhook' }).click()
    await admin.getByText('Quest feed and its alarms are deleted.').waitFor()
    t.equal(await quests.count(), 0, 'gone from the list')
    t.equal(await admin.evaluate(() => document.activeElement?.tagName), 'H1', 'focus starts again at the heading, not lost with the button')
    t.same(await human(s, QUESTS), [], 'and from the engine')
  })

  t.test('an admin views the site as a member from the users page, acts as them, and comes back', async (t) => {
    const s = await site(t)
    await insertAlarm(s.app.engineDb.pool, 'raid', { id: CAROL, pokemon_id: 9000, level: 3 })
    const admin = await signedIn(t, s, ADMIN, PHONE)
    await admin.goto('/admin/users')
    const carol = admin.getByRole('listitem').filter({ hasText: CAROL })
    await carol.getByRole('button', { name: 'View as' }).click()
    await banner(admin).getByText('You are viewing the site as Carol.').waitFor()
    t.equal(await tokenUser(admin), CAROL)
    t.equal(await admin.locator('#site-nav a[href="/admin/users"]').count(), 0, 'no admin pages while viewing as a member')

    await admin.goto('/alarms/raids')
    await admin.getByText('Raids: 3-Star Raid, in your areas', { exact: true }).waitFor()
    await axeBothSizes(t, admin, 'the member\'s alarm page with the banner')
    await admin.getByRole('button', { name: 'Add alarm' }).click()
    await admin.getByRole('group', { name: 'Level', exact: true }).getByRole('button', { name: '5-Star Raid', exact: true }).click()
    await admin.getByRole('button', { name: 'Create 1 alarm' }).click()
    await admin.getByText('Raids: 5-Star Raid, in your areas', { exact: true }).waitFor()
    t.match((await rows(s, 'raid', CAROL)).map((r) => r.level), [3, 5], 'the new alarm is Carol\'s in the engine')
    t.same(await rows(s, 'raid', ADMIN), [], 'not the admin\'s')

    await banner(admin).getByRole('button', { name: 'Back to my account' }).click()
    await admin.waitForURL('**/admin/users')
    await admin.getByRole('heading', { name: 'Users', level: 1 }).waitFor()
    t.equal(await banner(admin).count(), 0)
    t.equal(await tokenUser(admin), ADMIN, 'the admin\'s own session is back')
    t.equal(await admin.locator('#site-nav a[href="/admin/users"]').count(), 1, 'with the admin pages')

    // A put-aside session that is no longer readable: the way back signs out instead of keeping the borrowed one.
    await carol.getByRole('button', { name: 'View as' }).click()
    await banner(admin).getByText('You are viewing the site as Carol.').waitFor()
    await admin.evaluate(() => { localStorage.setItem('aw.viewAs.adminTokens', '{not json') })
    await banner(admin).getByRole('button', { name: 'Back to my account' }).click()
    await admin.waitForURL('**/login')
    t.same(await admin.evaluate(() => [localStorage.getItem('aw.token'), localStorage.getItem('aw.viewAs.adminTokens')]), [null, null],
      'an unreadable way back ends the borrowed session')
  })
}
