import { createHash, createHmac } from 'node:crypto'
import t from 'tap'
import type { FastifyRequest } from 'fastify'
import { build, seedHuman, type Test, type TestApp } from './helper.js'

const BOT_TOKEN = '7000000001:AAH-test-bot-token-for-the-widget'
const TG_ID = 512345678

type Fields = Record<string, string | number>

/** Telegram's documented algorithm, written out independently of the service's code. */
function sign (fields: Fields, token = BOT_TOKEN): Fields {
  const check = Object.entries(fields).filter(([k]) => k !== 'hash').sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${k}=${v}`).join('\n')
  const secret = createHash('sha256').update(token).digest()
  return { ...fields, hash: createHmac('sha256', secret).update(check).digest('hex') }
}

async function setup (t: Test, env: Record<string, string> = { TELEGRAM_BOT_TOKEN: BOT_TOKEN, TELEGRAM_BOT_USERNAME: 'alarm_bot' }): Promise<TestApp & { widget: (extra?: Fields) => Fields }> {
  const testApp = await build(t, { env, config: { RATE_LIMIT_AUTH_MAX: 1000 } })
  const now = () => Math.floor(testApp.clock.now() / 1000)
  // Object.assign keeps TestApp's `logs` getter live (a spread would copy today's lines once).
  return Object.assign(testApp, {
    widget: (extra: Fields = {}) => sign({ id: TG_ID, first_name: 'Tess', last_name: 'Gram', username: 'tessg', photo_url: 'https://t.me/i/userpic/320/tess.jpg', auth_date: now(), ...extra })
  })
}

const verify = (s: TestApp, payload: unknown, headers: Record<string, string> = {}) =>
  s.app.inject({ method: 'POST', url: '/api/auth/telegram/verify', headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(payload) })

function claimsOf (token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>
}

t.test('a correctly signed widget payload signs a registered user in', async (t) => {
  const s = await setup(t)
  await seedHuman(s, { id: String(TG_ID), type: 'telegram:user', name: 'Tess', profileName: 'Home' })
  const res = await verify(s, s.widget())
  t.equal(res.statusCode, 200)
  const body = res.json()
  t.same(body.user, {
    id: String(TG_ID),
    username: 'tessg',
    type: 'telegram:user',
    isAdmin: false,
    adminDisable: false,
    enabled: true,
    profileNo: 1,
    avatarUrl: 'https://t.me/i/userpic/320/tess.jpg',
    managedWebhooks: [],
    profileName: 'Home'
  })
  const claims = claimsOf(body.token)
  t.match(claims, { userId: String(TG_ID), type: 'telegram:user', username: 'tessg', isAdmin: 'false' })
  t.equal(claims.exp, Math.floor(s.clock.now() / 1000) + s.config.JWT_EXPIRATION_MINUTES * 60)
  const me = await s.app.inject({ method: 'GET', url: '/api/auth/me', headers: { authorization: `Bearer ${body.token}` } })
  t.equal(me.statusCode, 200, 'the token works')
  t.notOk(s.rawLogs().includes(String(s.widget().hash)), 'the hash is never logged')
})

t.test('ids and dates as digit strings, minimal fields, username fallbacks', async (t) => {
  const s = await setup(t)
  await seedHuman(s, { id: String(TG_ID), type: 'telegram:user' })
  const now = Math.floor(s.clock.now() / 1000)
  const minimal = sign({ id: String(TG_ID), first_name: 'Only', auth_date: String(now) })
  const res = await verify(s, minimal)
  t.equal(res.statusCode, 200)
  t.equal(res.json().user.username, 'Only', 'first name when there is no username')
  t.equal(res.json().user.avatarUrl, null)
  const bare = await verify(s, sign({ id: TG_ID, auth_date: now }))
  t.equal(bare.statusCode, 200)
  t.equal(bare.json().user.username, 'Unknown')
  const upper = s.widget()
  const res2 = await verify(s, { ...upper, hash: String(upper.hash).toUpperCase() })
  t.equal(res2.statusCode, 200, 'an upper-case hex hash is the same hash')
})

t.test('every tampered, dropped or foreign-signed field is a 401', async (t) => {
  const s = await setup(t)
  await seedHuman(s, { id: String(TG_ID), type: 'telegram:user' })
  await seedHuman(s, { id: '999', type: 'telegram:user' })
  const good = s.widget()
  const tampered: Record<string, Fields> = {
    id: { ...good, id: 999 },
    first_name: { ...good, first_name: 'Mallory' },
    last_name: { ...good, last_name: 'Other' },
    username: { ...good, username: 'admin' },
    photo_url: { ...good, photo_url: 'https://evil.example/x.png' },
    auth_date: { ...good, auth_date: Number(good.auth_date) - 1 },
    hash: { ...good, hash: `${String(good.hash).slice(0, 63)}${String(good.hash).endsWith('0') ? '1' : '0'}` },
    'dropped last_name': Object.fromEntries(Object.entries(good).filter(([k]) => k !== 'last_name')),
    'empty optional field added': { ...good, last_name: '' },
    'signed with another bot': sign({ ...good }, 'another:bot-token'),
    'signed without a token': sign({ ...good }, '')
  }
  for (const [name, payload] of Object.entries(tampered)) {
    const res = await verify(s, payload)
    t.equal(res.statusCode, 401, name)
    t.same(res.json(), { error: 'Telegram login data could not be verified.' }, `${name}: body`)
  }
})

t.test('auth_date: at most a day old, at most a minute ahead', async (t) => {
  const s = await setup(t)
  await seedHuman(s, { id: String(TG_ID), type: 'telegram:user' })
  const now = Math.floor(s.clock.now() / 1000)
  const at = (authDate: number) => verify(s, s.widget({ auth_date: authDate }))
  t.equal((await at(now - 86_400)).statusCode, 200, 'exactly one day old')
  const stale = await at(now - 86_401)
  t.equal(stale.statusCode, 401, 'older than a day')
  t.match(stale.json().error, /too old/)
  t.equal((await at(now + 60)).statusCode, 200, 'a minute of clock skew')
  const future = await at(now + 61)
  t.equal(future.statusCode, 401, 'from the future')
  t.match(future.json().error, /future/)

  const payload = s.widget()
  s.clock.advance(86_401_000)
  t.equal((await verify(s, payload)).statusCode, 401, 'the same payload goes stale as the service clock moves')
})

t.test('missing fields, non-object bodies and wrong types are a 400', async (t) => {
  const s = await setup(t)
  const good = s.widget()
  const without = (key: string) => Object.fromEntries(Object.entries(good).filter(([k]) => k !== key))
  const bad: Record<string, unknown> = {
    'no id': without('id'),
    'no hash': without('hash'),
    'no auth_date': without('auth_date'),
    'empty object': {},
    array: [good],
    string: 'id=1&hash=abc',
    null: null,
    number: 42,
    boolean: true,
    'id as object': { ...good, id: { $gt: 0 } },
    'id as boolean': { ...good, id: true },
    'id negative': { ...good, id: -5 },
    'id fractional': { ...good, id: 1.5 },
    'id not digits': { ...good, id: '12a' },
    'id empty': { ...good, id: '' },
    'auth_date not digits': { ...good, auth_date: 'yesterday' },
    'auth_date null': { ...good, auth_date: null },
    'hash too short': { ...good, hash: 'abcdef' },
    'hash not hex': { ...good, hash: 'z'.repeat(64) },
    'hash as number': { ...good, hash: 1 },
    'first_name as number': { ...good, first_name: 7 },
    'photo_url as array': { ...good, photo_url: ['a'] },
    'unknown field': { ...good, is_admin: true }
  }
  for (const [name, payload] of Object.entries(bad)) {
    const res = await verify(s, payload)
    t.equal(res.statusCode, 400, name)
    t.type(res.json().error, 'string', `${name}: JSON error`)
  }
  const notJson = await s.app.inject({ method: 'POST', url: '/api/auth/telegram/verify', headers: { 'content-type': 'application/json' }, payload: '{"id":' })
  t.equal(notJson.statusCode, 400, 'broken JSON')
  const form = await s.app.inject({ method: 'POST', url: '/api/auth/telegram/verify', headers: { 'content-type': 'text/plain' }, payload: 'id=1' })
  t.ok(form.statusCode >= 400 && form.statusCode < 500, `text body: ${form.statusCode}`)
  const empty = await s.app.inject({ method: 'POST', url: '/api/auth/telegram/verify' })
  t.ok(empty.statusCode >= 400 && empty.statusCode < 500, `no body: ${empty.statusCode}`)
})

t.test('identity pipeline: unregistered, blocked, the enable_telegram gate, engine down', async (t) => {
  const s = await setup(t)
  const unregistered = await verify(s, s.widget())
  t.equal(unregistered.statusCode, 403)
  t.same(unregistered.json(), { error: 'User not registered in Poracle.' })

  await seedHuman(s, { id: String(TG_ID), type: 'telegram:user', adminDisable: true })
  const blocked = await verify(s, s.widget())
  t.equal(blocked.statusCode, 403)
  t.same(blocked.json(), { error: 'This account has been blocked by an administrator.' })
  await s.app.engineDb.pool.query('UPDATE humans SET admin_disable = 0 WHERE id = ?', [String(TG_ID)])

  await s.app.siteSettings.set('enable_telegram', { value: 'false' }, {} as FastifyRequest)
  const gated = await verify(s, s.widget())
  t.equal(gated.statusCode, 400, 'non-admins are refused while the switch is off')
  t.match(gated.json(), { error: 'Telegram login is disabled by the administrator.', code: 'telegram_disabled' })
  s.engine.set({ admins: { discord: [], telegram: [String(TG_ID)] } })
  s.app.identity.evictRoles(String(TG_ID))
  const admin = await verify(s, s.widget())
  t.equal(admin.statusCode, 200, 'admins bypass the switch')
  t.match(admin.json().user, { isAdmin: true, managedWebhooks: null })

  await s.app.siteSettings.set('enable_roles', { value: 'true' }, {} as FastifyRequest)
  await s.app.siteSettings.set('allowed_role_ids', { value: '400000000000000001' }, {} as FastifyRequest)
  await s.app.engineDb.pool.query("UPDATE humans SET type = 'discord:user' WHERE id = ?", [String(TG_ID)])
  s.engine.set({ admins: { discord: [], telegram: [] } })
  s.app.identity.evictRoles(String(TG_ID))
  await s.app.siteSettings.set('enable_telegram', { value: 'true' }, {} as FastifyRequest)
  t.equal((await verify(s, s.widget())).statusCode, 200, 'no guild role gate for Telegram, whatever the stored type')

  s.engine.failWith({ path: /humans\/one/ })
  const down = await verify(s, s.widget())
  t.equal(down.statusCode, 503)
  t.same(down.json(), { error: 'The alarm engine is unreachable right now. Please try again in a moment.' })
})

t.test('not enabled: no bot token (even with TELEGRAM_ENABLED=true) is a 400', async (t) => {
  for (const env of [{}, { TELEGRAM_ENABLED: 'true', TELEGRAM_BOT_USERNAME: 'alarm_bot' }, { TELEGRAM_ENABLED: 'false', TELEGRAM_BOT_TOKEN: BOT_TOKEN, TELEGRAM_BOT_USERNAME: 'alarm_bot' }]) {
    const s = await setup(t, env)
    await seedHuman(s, { id: String(TG_ID), type: 'telegram:user' })
    const res = await verify(s, s.widget())
    t.equal(res.statusCode, 400, JSON.stringify(env))
    t.same(res.json(), { error: 'Telegram login is not enabled.' })
    const config = await s.app.inject({ method: 'GET', url: '/api/auth/telegram/config' })
    t.equal(config.json().enabled, false, 'and the login page is told so')
  }
})

t.test('GET /config: enabled follows the variables and enable_telegram; the bot name falls back to telegram_bot', async (t) => {
  const s = await setup(t)
  const get = async () => (await s.app.inject({ method: 'GET', url: '/api/auth/telegram/config' })).json()
  t.same(await get(), { enabled: true, botUsername: 'alarm_bot' })
  await s.app.siteSettings.set('enable_telegram', { value: 'false' }, {} as FastifyRequest)
  t.same(await get(), { enabled: false, botUsername: 'alarm_bot' })

  const fallback = await setup(t, { TELEGRAM_ENABLED: 'true', TELEGRAM_BOT_TOKEN: BOT_TOKEN })
  await fallback.app.siteSettings.set('telegram_bot', { value: '  @site_bot ' }, {} as FastifyRequest)
  t.same((await fallback.app.inject({ method: 'GET', url: '/api/auth/telegram/config' })).json(), { enabled: true, botUsername: 'site_bot' })
})

t.test('both endpoints share the per-IP auth limit', async (t) => {
  const s = await build(t, { env: { TELEGRAM_BOT_TOKEN: BOT_TOKEN, TELEGRAM_BOT_USERNAME: 'alarm_bot' }, config: { RATE_LIMIT_AUTH_MAX: 2 } })
  t.equal((await s.app.inject({ method: 'GET', url: '/api/auth/telegram/config' })).statusCode, 200)
  t.equal((await verify(s, {})).statusCode, 400)
  const limited = await verify(s, {})
  t.equal(limited.statusCode, 429)
  t.same(limited.json(), { error: 'Too many requests. Please try again later.' })
})
