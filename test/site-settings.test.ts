import t from 'tap'
import { eq } from 'drizzle-orm'
import { siteSettings } from '../db/schema/service.js'
import { badRequest } from '../plugins/errors.js'
import { build, bearer } from './helper.js'

const admin = { userId: 'admin1', isAdmin: true }

t.test('only the exact string "true" turns a switch on', async (t) => {
  const { app } = await build(t)
  for (const [value, on] of [['true', true], ['TRUE', false], ['1', false], ['yes', false], ['', false]] as const) {
    await app.db.db.insert(siteSettings).values({ key: 'enable_roles', value }).onDuplicateKeyUpdate({ set: { value } })
    app.siteSettings.evict('enable_roles')
    t.equal(await app.siteSettings.isTrue('enable_roles'), on, `"${value}"`)
  }
  t.equal(await app.siteSettings.isTrue('never_set'), false, 'absent is off')
  t.equal(await app.siteSettings.isNotFalse('never_set'), true, 'absent default-on switch is on')
})

t.test('reads are cached five minutes per key and evicted on write', async (t) => {
  const { app, clock } = await build(t)
  const headers = bearer(app, admin)
  await app.inject({ method: 'PUT', url: '/api/settings/site_name', headers, payload: { value: 'One' } })
  t.equal(await app.siteSettings.get('site_name'), 'One')
  await app.db.db.update(siteSettings).set({ value: 'Behind the cache' }).where(eq(siteSettings.key, 'site_name'))
  t.equal(await app.siteSettings.get('site_name'), 'One', 'served from the cache')
  clock.advance(5 * 60_000 + 1)
  t.equal(await app.siteSettings.get('site_name'), 'Behind the cache', 'read again after five minutes')
  await app.inject({ method: 'PUT', url: '/api/settings/site_name', headers, payload: { value: 'Two' } })
  t.equal(await app.siteSettings.get('site_name'), 'Two', 'a write through the API evicts at once')
})

t.test('PUT upserts and keeps category and type when omitted', async (t) => {
  const { app } = await build(t)
  const headers = bearer(app, admin)
  const created = await app.inject({ method: 'PUT', url: '/api/settings/hide_header_logo', headers, payload: { value: 'true', category: 'branding', valueType: 'boolean' } })
  t.equal(created.statusCode, 200)
  t.match(created.json(), { key: 'hide_header_logo', value: 'true', category: 'branding', valueType: 'boolean' })
  const updated = await app.inject({ method: 'PUT', url: '/api/settings/hide_header_logo', headers, payload: { value: 'false' } })
  t.match(updated.json(), { key: 'hide_header_logo', value: 'false', category: 'branding', valueType: 'boolean' })
  const cleared = await app.inject({ method: 'PUT', url: '/api/settings/hide_header_logo', headers, payload: { value: null } })
  t.equal(cleared.json().value, null)
})

t.test('internal and computed keys cannot be written; bad keys are refused', async (t) => {
  const { app } = await build(t)
  const headers = bearer(app, admin)
  for (const key of ['migration_completed', 'quick_picks_seeded', 'poracle_locale']) {
    const res = await app.inject({ method: 'PUT', url: `/api/settings/${key}`, headers, payload: { value: 'x' } })
    t.equal(res.statusCode, 400, key)
    t.match(res.json().error, /managed by the service/)
  }
  for (const key of ['Upper', 'has-dash', '1st', 'a'.repeat(101)]) {
    const res = await app.inject({ method: 'PUT', url: `/api/settings/${key}`, headers, payload: { value: 'x' } })
    t.equal(res.statusCode, 400, `key ${key.slice(0, 10)}`)
  }
  const rows = await app.siteSettings.list()
  t.equal(rows.length, 0, 'nothing was written')
})

t.test('non-admins see only the public allow-list; the login page sees less', async (t) => {
  const { app } = await build(t)
  const headers = bearer(app, admin)
  for (const [key, value] of [['site_name', 'Alarms'], ['disable_mons', 'true'], ['enable_discord', 'true'], ['uicons_pkmn', 'https://icons.example'], ['telegram_bot', 'secretbot'], ['custom_title', 'Hi'], ['signup_url', 'https://join.example']]) {
    await app.inject({ method: 'PUT', url: `/api/settings/${key}`, headers, payload: { value } })
  }
  await app.db.db.insert(siteSettings).values({ key: 'migration_completed', value: 'true' })
  const asAdmin = (await app.inject({ method: 'GET', url: '/api/settings', headers })).json().map((r: { key: string }) => r.key)
  t.same(asAdmin, ['custom_title', 'disable_mons', 'enable_discord', 'signup_url', 'site_name', 'telegram_bot', 'uicons_pkmn'], 'admins see all but hidden keys')
  const asUser = (await app.inject({ method: 'GET', url: '/api/settings', headers: bearer(app, { userId: 'u1' }) })).json().map((r: { key: string }) => r.key)
  t.same(asUser, ['custom_title', 'disable_mons', 'enable_discord', 'signup_url', 'site_name', 'uicons_pkmn'])
  const anonymous = (await app.inject({ method: 'GET', url: '/api/settings/public' })).json().map((r: { key: string }) => r.key)
  t.same(anonymous, ['custom_title', 'enable_discord', 'signup_url'])
  t.equal((await app.inject({ method: 'GET', url: '/api/settings' })).statusCode, 401)
})

t.test('guards registered by other concerns refuse a write and nothing changes', async (t) => {
  const { app } = await build(t, {
    routes: (app) => {
      app.siteSettings.guard('enable_feature', (write) => {
        if (write.value === 'true' && write.confirm !== true) throw badRequest('Confirm first.')
      })
    }
  })
  const headers = bearer(app, admin)
  const refused = await app.inject({ method: 'PUT', url: '/api/settings/enable_feature', headers, payload: { value: 'true' } })
  t.equal(refused.statusCode, 400)
  t.same(refused.json(), { error: 'Confirm first.' })
  t.equal(await app.siteSettings.get('enable_feature'), undefined)
  const accepted = await app.inject({ method: 'PUT', url: '/api/settings/enable_feature', headers, payload: { value: 'true', confirm: true } })
  t.equal(accepted.statusCode, 200)
  t.throws(() => app.siteSettings.guard('enable_feature', () => {}), /already registered/)
})
