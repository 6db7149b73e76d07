import t from 'tap'
import { eq } from 'drizzle-orm'
import { siteSettings } from '../db/schema/service.js'
import { badRequest } from '../plugins/edge/errors.js'
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
  const rows = (await app.siteSettings.list()).map((r) => [r.key, r.value])
  t.same(rows, [['quick_picks_seeded', 'true']], 'nothing was written but the start-up\'s record of the built-in quick picks')
})

t.test('non-admins see only the public allow-list; the login page sees less', async (t) => {
  const { app } = await build(t)
  const headers = bearer(app, admin)
  for (const [key, value] of [['site_name', 'Alarms'], ['disable_mons', 'true'], ['enable_discord', 'true'], ['uicons_pkmn', 'https://icons.example'], ['telegram_bot', 'secretbot'], ['custom_title', 'Hi'], ['signup_url', 'https://join.example']]) {
    await app.inject({ method: 'PUT', url: `/api/settings/${key}`, headers, payload: { value } })
  }
  await app.db.db.insert(siteSettings).values({ key: 'migration_completed', value: 'true' })
  const asAdmin = (await app.inject({ method: 'GET', url: '/api/settings', headers })).json().map((r: { key: string }) => r.key)
  t.same(asAdmin, ['custom_title', 'disable_mons', 'enable_discord', 'quick_picks_seeded', 'signup_url', 'site_name', 'telegram_bot', 'uicons_pkmn'], 'admins see all but hidden keys (the built-in quick picks were published at start-up)')
  const asUser = (await app.inject({ method: 'GET', url: '/api/settings', headers: bearer(app, { userId: 'u1' }) })).json().map((r: { key: string }) => r.key)
  t.same(asUser, ['custom_title', 'disable_mons', 'enable_discord', 'signup_url', 'site_name', 'uicons_pkmn'])
  const anonymous = (await app.inject({ method: 'GET', url: '/api/settings/public' })).json().map((r: { key: string }) => r.key)
  t.same(anonymous, ['custom_title', 'enable_discord', 'signup_url', 'site_name'])
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

t.test('the accent colour is #rrggbb only; anything else is a 400 that changes nothing', async (t) => {
  const { app } = await build(t)
  const headers = bearer(app, admin)
  const put = (value: unknown) => app.inject({ method: 'PUT', url: '/api/settings/accent_color', headers, payload: { value } })
  t.equal((await put('#1a7f37')).statusCode, 200)
  t.equal((await put('#ABCDEF')).statusCode, 200, 'upper-case digits too')
  for (const value of ['red', '#abc', '#12345g', '#1234567', ' #123456', '#123456 ', 'rgb(0,0,0)', '#123456;background:url(x)', 'var(--x)']) {
    const res = await put(value)
    t.equal(res.statusCode, 400, JSON.stringify(value))
    t.match(res.json(), { error: /accent_color must be a colour written #rrggbb/, details: [{ field: '/value' }] })
  }
  t.equal(await app.siteSettings.get('accent_color'), '#ABCDEF', 'the refused writes left the last good value')
  t.equal((await put(null)).statusCode, 200, 'null clears it')
  t.equal((await put('')).statusCode, 200, 'so does an empty string')
})

t.test('logo and favicon addresses are https or a path on this site', async (t) => {
  const { app } = await build(t)
  const headers = bearer(app, admin)
  for (const key of ['header_logo_url', 'favicon_url']) {
    const put = (value: string) => app.inject({ method: 'PUT', url: `/api/settings/${key}`, headers, payload: { value } })
    for (const value of ['https://cdn.example.org/logo.png', '/logo.png', '/assets/brand/icon.svg?v=2']) {
      t.equal((await put(value)).statusCode, 200, `${key} ${value}`)
    }
    const refused = [
      'javascript:alert(1)', 'JavaScript:alert(1)', 'data:image/png;base64,iVBORw0KGgo=', 'data:image/svg+xml,<svg onload=alert(1)>',
      'http://cdn.example.org/logo.png', '//evil.example/logo.png', '/\\evil.example/logo.png', 'https://user:secret@cdn.example.org/logo.png',
      'ftp://cdn.example.org/logo.png', 'logo.png', 'https://cdn.example.org/my logo.png', `https://cdn.example.org/${'a'.repeat(2048)}`
    ]
    for (const value of refused) {
      const res = await put(value)
      t.equal(res.statusCode, 400, `${key} ${value.slice(0, 40)}`)
      t.match(res.json(), { error: new RegExp(`^The setting ${key} `), details: [{ field: '/value' }] })
    }
    t.equal(await app.siteSettings.get(key), '/assets/brand/icon.svg?v=2', `${key}: nothing refused was stored`)
  }
})

t.test('site name and page title are one short line', async (t) => {
  const { app } = await build(t)
  const headers = bearer(app, admin)
  for (const key of ['site_name', 'custom_title']) {
    const put = (value: string) => app.inject({ method: 'PUT', url: `/api/settings/${key}`, headers, payload: { value } })
    t.equal((await put('Pokéstop Alarms Köln')).statusCode, 200)
    t.equal((await put('x'.repeat(80))).statusCode, 200, '80 characters')
    t.match((await put('x'.repeat(81))).json(), { error: /longer than 80 characters/ })
    t.match((await put('Two\nlines')).json(), { error: /must be one line/ })
    t.equal(await app.siteSettings.get(key), 'x'.repeat(80))
  }
})

t.test('anonymous callers read the branding and the sign-in switches, nothing more', async (t) => {
  const { app } = await build(t)
  const headers = bearer(app, admin)
  const values: Record<string, string> = {
    site_name: 'Harbour Alarms',
    custom_title: 'Harbour',
    header_logo_url: 'https://cdn.example.org/logo.png',
    hide_header_logo: 'false',
    favicon_url: '/favicon.svg',
    accent_color: '#1a7f37',
    allowed_languages: 'en,de',
    enable_discord: 'true',
    enable_telegram: 'false',
    signup_url: 'https://join.example.org',
    // Readable by members or admins only.
    disable_mons: 'true',
    enable_roles: 'true',
    allowed_role_ids: '42',
    telegram_bot: 'harbour_bot',
    uicons_pkmn: 'https://icons.example.org',
    custom_page_url: 'https://wiki.example.org'
  }
  for (const [key, value] of Object.entries(values)) {
    t.equal((await app.inject({ method: 'PUT', url: `/api/settings/${key}`, headers, payload: { value } })).statusCode, 200, key)
  }
  const anonymous = (await app.inject({ method: 'GET', url: '/api/settings/public' })).json() as Array<{ key: string, value: string }>
  t.same(Object.fromEntries(anonymous.map((row) => [row.key, row.value])), {
    accent_color: '#1a7f37',
    allowed_languages: 'en,de',
    custom_title: 'Harbour',
    enable_discord: 'true',
    enable_telegram: 'false',
    favicon_url: '/favicon.svg',
    header_logo_url: 'https://cdn.example.org/logo.png',
    hide_header_logo: 'false',
    signup_url: 'https://join.example.org',
    site_name: 'Harbour Alarms'
  })
  const member = (await app.inject({ method: 'GET', url: '/api/settings', headers: bearer(app, { userId: 'u1' }) })).json() as Array<{ key: string }>
  t.ok(member.some((row) => row.key === 'accent_color'), 'members read the accent colour too')
  t.notOk(member.some((row) => row.key === 'allowed_role_ids' || row.key === 'telegram_bot'), 'but not the admin-only keys')
})

t.test('switches, links, the custom page, the language list and icon sets are checked on write', async (t) => {
  const { app } = await build(t)
  const headers = bearer(app, admin)
  const put = (key: string, value: string | null) => app.inject({ method: 'PUT', url: `/api/settings/${key}`, headers, payload: { value } })
  const refused: Array<[string, string, RegExp]> = [
    ['disable_areas', 'yes', /is a switch/],
    ['enable_templates', 'TRUE', /is a switch/],
    ['hide_header_logo', '1', /is a switch/],
    ['signup_url', 'javascript:alert(1)', /https:\/\/ address or a path/],
    ['custom_page_url', 'http://example.com/page', /https:\/\/ address or a path/],
    ['custom_page_name', 'two\nlines', /one line/],
    ['custom_page_icon', 'much too long', /longer than 8/],
    ['allowed_languages', 'en,deutsch', /"deutsch", which is not a language code/],
    ['allowed_languages', 'en,de,en', /twice/],
    ['uicons_pkmn', '//cdn.example.com/icons', /https:\/\/ address or a path/],
    ['uicons_item', 'https://user:pw@cdn.example.com/icons', /user name or password/]
  ]
  for (const [key, value, message] of refused) {
    const res = await put(key, value)
    t.equal(res.statusCode, 400, `${key}=${JSON.stringify(value)} is refused`)
    t.match(res.json(), { error: message, details: [{ field: '/value' }] })
  }
  t.same((await app.siteSettings.list()).map((row) => row.key), ['quick_picks_seeded'], 'nothing was stored (but the start-up\'s record of the built-in quick picks)')

  const accepted: Array<[string, string | null]> = [
    ['disable_areas', 'true'], ['disable_profiles', 'false'], ['enable_templates', null],
    ['signup_url', 'https://discord.gg/example'], ['custom_page_url', '/rules.html'], ['custom_page_name', 'Rules'], ['custom_page_icon', '📜'],
    ['allowed_languages', 'en,de,pt-BR'], ['uicons_pkmn', 'https://cdn.example.com/uicons/'], ['uicons_gym', '/icons'], ['uicons_type', '']
  ]
  for (const [key, value] of accepted) t.equal((await put(key, value)).statusCode, 200, `${key}=${JSON.stringify(value)} is stored`)
  t.equal(await app.siteSettings.get('allowed_languages'), 'en,de,pt-BR')
})
