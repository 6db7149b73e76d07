import t from 'tap'
import { build, bearer } from './helper.js'
import { isBelow } from '../plugins/domain/server-profile.js'

const ADMIN = '100000000000000001'
const admin = (app: Parameters<typeof bearer>[0]) => bearer(app, { userId: ADMIN, isAdmin: true })

t.test('the server profile reports the engine, its schema version and this service, cached 5 minutes', async (t) => {
  const s = await build(t, { env: { BUILD_VERSION: '1.2.3', BUILD_REVISION: 'abc123' } })
  const get = async (query = '') => {
    const res = await s.app.inject({ method: 'GET', url: `/api/admin/server-profile${query}`, headers: admin(s.app) })
    t.equal(res.statusCode, 200)
    return res.json() as Record<string, unknown>
  }
  const first = await get()
  t.match(first, {
    engine: 'PoracleNG',
    generation: 'ng',
    reachable: true,
    version: '5.1.0',
    schemaVersion: '5',
    minimumSupported: '5.1.0',
    belowMinimum: false,
    capabilities: { fortChanges: true, userCreation: true },
    web: { version: '1.2.3', revision: 'abc123', buildDate: null }
  })

  s.engine.set({ version: '5.0.9' })
  await s.app.engineDb.pool.query('UPDATE schema_migrations SET version = 6')
  t.teardown(() => s.app.engineDb.pool.query('UPDATE schema_migrations SET version = 5'))
  t.same(await get(), first, 'cached')
  s.clock.advance(4 * 60_000)
  t.same(await get(), first, 'still cached after four minutes')
  const refreshed = await get('?refresh=true')
  t.match(refreshed, { version: '5.0.9', schemaVersion: '6', belowMinimum: true }, 'a manual refresh asks again')

  s.engine.hang()
  s.clock.advance(5 * 60_000 + 1)
  t.match(await get(), { reachable: false, engine: null, version: null, schemaVersion: '6', capabilities: { fortChanges: false } }, 'expired: asked again; the database still answers')
  t.equal((await s.app.inject({ method: 'GET', url: '/api/admin/server-profile?refresh=maybe', headers: admin(s.app) })).statusCode, 400)
})

t.test('a build that states no version, revision or date reports null for each, as the schema documents', async (t) => {
  const s = await build(t)
  const res = await s.app.inject({ method: 'GET', url: '/api/admin/server-profile', headers: admin(s.app) })
  t.equal(res.statusCode, 200)
  t.same((res.json() as { web: unknown }).web, { version: null, revision: null, buildDate: null }, 'null, not the word "unknown"')
  const doc = (await s.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as { paths: Record<string, unknown> }
  t.match(JSON.stringify(doc.paths['/api/admin/server-profile']), /BUILD_VERSION; null when the build did not set it/, 'the OpenAPI document says what null means')
})

t.test('on PoracleJS the schema version is the last knex migration', async (t) => {
  const s = await build(t, { engineMode: 'js' })
  await s.app.engineDb.pool.query('CREATE TABLE IF NOT EXISTS migrations (id int unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY, name varchar(255), batch int, migration_time timestamp NULL)')
  await s.app.engineDb.pool.query("INSERT INTO migrations (name, batch) VALUES ('v17_size.js', 1), ('v18_fort.js', 1)")
  t.teardown(() => s.app.engineDb.pool.query('DROP TABLE IF EXISTS migrations'))
  const res = await s.app.inject({ method: 'GET', url: '/api/admin/server-profile', headers: admin(s.app) })
  t.match(res.json(), { engine: 'PoracleJS', version: '4.8.3', schemaVersion: 'v18_fort.js', belowMinimum: false, capabilities: { userCreation: false } })
})

t.test('version comparison tolerates prefixes and suffixes and treats 0.0.0 as unknown', async (t) => {
  t.ok(isBelow('5.0.9', '5.1.0'))
  t.ok(isBelow('v4.9', '5.1.0'))
  t.notOk(isBelow('5.1.0-rc1', '5.1.0'))
  t.notOk(isBelow('5.10.0', '5.1.0'))
  t.notOk(isBelow('0.0.0-dev', '5.1.0'))
  t.notOk(isBelow('unknown', '5.1.0'))
})

t.test('the chat platform and Telegram cards are admin-only and masked', async (t) => {
  const s = await build(t, {
    env: {
      DISCORD_CLIENT_ID: '123456789012345678',
      DISCORD_CLIENT_SECRET: 'client-secret-value-9876',
      DISCORD_BOT_TOKEN: 'bot-token-value-abcd',
      DISCORD_GUILD_ID: '876543210987654321',
      PORACLE_ADMIN_IDS: ADMIN,
      TELEGRAM_BOT_TOKEN: '12345:telegram-secret-wxyz',
      TELEGRAM_BOT_USERNAME: 'alarm_bot'
    }
  })
  for (const url of ['/api/settings/discord-config', '/api/settings/telegram-config']) {
    t.equal((await s.app.inject({ method: 'GET', url })).statusCode, 401, url)
    t.equal((await s.app.inject({ method: 'GET', url, headers: bearer(s.app, { userId: '5' }) })).statusCode, 403, url)
  }
  const discord = await s.app.inject({ method: 'GET', url: '/api/settings/discord-config', headers: admin(s.app) })
  t.same(discord.json(), {
    clientId: '1234••••••••5678',
    clientSecret: '••••••••',
    botToken: '••••••••',
    guildId: '8765••••••••4321',
    geofenceForumChannelId: '',
    apiUrl: 'https://discord.com/api',
    adminIds: [ADMIN]
  })
  const telegram = await s.app.inject({ method: 'GET', url: '/api/settings/telegram-config', headers: admin(s.app) })
  t.same(telegram.json(), { botToken: '••••••••', botUsername: 'alarm_bot', enabled: true })
  t.notOk(discord.body.includes('client-secret') || telegram.body.includes('telegram-secret'), 'no secret in the bodies')
  t.notOk(['9876', 'abcd', 'wxyz'].some((tail) => discord.body.includes(tail) || telegram.body.includes(tail)), 'not even the last characters of a secret')
})
