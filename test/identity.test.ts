import t from 'tap'
import { siteSettings, webhookDelegates } from '../db/schema/service.js'
import { parseRoleIds } from '../plugins/domain/identity.js'
import { SignInError } from '../schemas/refusals.js'
import { build, seedHuman, webhookHandle, type TestApp } from './helper.js'

/*
 * The shared sign-in pipeline on its own (the OIDC, chat-platform and Telegram flows test it end to
 * end through their callbacks). One app for the file: every test starts from cleared tables and caches.
 */

const USER = '111111111111111111'
const ADMIN = '999999999999999999'
const WEBHOOK = 'https://discord.com/api/webhooks/1/abc'

let shared: Promise<TestApp> | undefined

async function site (): Promise<TestApp> {
  shared ??= build(t, { config: { PORACLE_ADMIN_IDS: [ADMIN] } })
  const s = await shared
  const { app, engine } = s
  engine.reset()
  engine.set({ admins: { discord: [], telegram: [] } })
  engine.setAdministrationRoles(USER, {})
  await app.db.pool.query('DELETE FROM site_settings')
  await app.db.pool.query('DELETE FROM webhook_delegates')
  await app.engineDb.pool.query('DELETE FROM profiles')
  await app.engineDb.pool.query('DELETE FROM humans')
  app.siteSettings.evict()
  for (const id of [USER, ADMIN]) app.identity.evictRoles(id)
  return s
}

async function setting (s: TestApp, key: string, value: string): Promise<void> {
  await s.app.db.db.insert(siteSettings).values({ key, value }).onDuplicateKeyUpdate({ set: { value } })
  s.app.siteSettings.evict(key)
}

t.test('role ids as admins type them', async (t) => {
  t.same(parseRoleIds('123, 456'), { valid: ['123', '456'], ignored: [] })
  t.same(parseRoleIds(' "123" ,‘456’, “789”,`1`'), { valid: ['123', '456', '789', '1'], ignored: [] }, 'quotes of every kind stripped')
  t.same(parseRoleIds('moderators, 12a, 34'), { valid: ['34'], ignored: ['moderators', '12a'] })
  t.same(parseRoleIds(' , ,'), { valid: [], ignored: [] })
})

t.test('signIn: claims of a registered user', async (t) => {
  const s = await site()
  await seedHuman(s, { id: USER, name: 'Engine Name', enabled: false, currentProfileNo: 2 })
  await setting(s, 'enable_oidc', 'true')
  // Pulled off the decorator on purpose: the pipeline must not depend on `this`.
  const { signIn } = s.app.identity
  const { claims, roles } = await signIn({ userId: USER, method: 'oidc', avatarUrl: 'https://cdn.example/a.png' })
  t.same(claims, {
    userId: USER,
    username: 'Engine Name',
    type: 'chat:user',
    isAdmin: false,
    enabled: false,
    profileNo: 2,
    avatarUrl: 'https://cdn.example/a.png'
  }, 'username falls back to the engine name; alerts stopped means enabled=false, not refused')
  t.same(roles, { isAdmin: false, managedWebhooks: [], resolved: true })
  t.equal((await signIn({ userId: USER, method: 'oidc', username: 'sso-name' })).claims.username, 'sso-name')
  t.equal((await signIn({ userId: USER, method: 'telegram' })).claims.type, 'telegram:user')
  t.equal((await signIn({ userId: USER, method: 'discord' })).claims.type, 'chat:user')
})

t.test('signIn: the method switches, opt-in for SSO and opt-out for the others', async (t) => {
  const s = await site()
  await seedHuman(s, { id: USER })
  const attempt = (method: 'oidc' | 'discord' | 'telegram') =>
    s.app.identity.signIn({ userId: USER, method }).then(() => 'ok', (e: SignInError) => e.reason)
  t.equal(await attempt('oidc'), 'oidc_disabled', 'SSO absent: off')
  t.equal(await attempt('discord'), 'ok', 'chat platform absent: on')
  t.equal(await attempt('telegram'), 'ok')
  await setting(s, 'enable_discord', 'false')
  await setting(s, 'enable_telegram', 'false')
  await setting(s, 'enable_oidc', 'yes')
  t.equal(await attempt('discord'), 'discord_disabled')
  t.equal(await attempt('telegram'), 'telegram_disabled')
  t.equal(await attempt('oidc'), 'oidc_disabled', 'only "true" turns SSO on')
})

t.test('signIn: refusals before any switch', async (t) => {
  const s = await site()
  const code = (userId: string) => s.app.identity.signIn({ userId, method: 'discord' }).then(() => 'ok', (e: SignInError) => e.reason)
  t.equal(await code(USER), 'user_not_registered', 'never provisions')
  await seedHuman(s, { id: ADMIN, adminDisable: true })
  t.equal(await code(ADMIN), 'account_blocked', 'blocked even when admin')
  s.engine.failWith({ status: 500 })
  t.equal(await code(ADMIN), 'engine_unavailable')
})

t.test('roles: configured admins, engine admins, delegation, outages', async (t) => {
  const s = await site()
  const { identity } = s.app
  // PoracleNG answers delegated roles only for users it knows.
  await seedHuman(s, { id: USER })
  s.engine.failWith({ drop: true })
  t.same(await identity.roles(ADMIN), { isAdmin: true, managedWebhooks: null, resolved: true }, 'PORACLE_ADMIN_IDS needs no network')
  t.same(await identity.roles(USER), { isAdmin: false, managedWebhooks: [], resolved: false }, 'an outage is reported, not a demotion')
  s.engine.reset()
  s.engine.setAdministrationRoles(USER, { discord: { webhooks: [WEBHOOK] } })
  await s.app.db.db.insert(webhookDelegates).values({ webhookId: 'https://discord.com/api/webhooks/2/def', userId: USER })
  t.same(await identity.roles(USER), { isAdmin: false, managedWebhooks: [WEBHOOK, 'https://discord.com/api/webhooks/2/def'], resolved: true },
    'the degraded answer was not cached; delegations from the engine and the service are merged')

  s.engine.setAdministrationRoles(USER, { isAdmin: true })
  t.equal((await identity.roles(USER)).isAdmin, false, 'a clean answer is cached a minute')
  s.clock.advance(60_001)
  t.same(await identity.roles(USER), { isAdmin: true, managedWebhooks: null, resolved: true }, 'and read again after it')

  s.engine.setAdministrationRoles(USER, {})
  s.engine.set({ admins: { discord: [], telegram: [USER] } })
  identity.evictRoles(USER)
  t.equal((await identity.roles(USER)).isAdmin, true, 'an admin of the engine configuration (any platform)')

  s.engine.set({ admins: { discord: [], telegram: [] } })
  identity.evictRoles(USER)
  s.engine.setAdministrationRoles(USER, { discord: { webhooks: [WEBHOOK] } })
  await setting(s, 'enable_oidc', 'true')
  t.same((await identity.signIn({ userId: USER, method: 'oidc' })).claims.managedWebhooks,
    [WEBHOOK, 'https://discord.com/api/webhooks/2/def'].map(webhookHandle), 'managed webhooks travel in the claims, as handles')
})
