import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import webPush from 'web-push'
import type { TSchema } from '@sinclair/typebox'
import { ConfigError, ConfigSchema, JWT_SECRET_PLACEHOLDER, loadConfig, mask, readDotEnv, summarize, type Config } from '../plugins/base/config.js'
import { JWT_SECRET } from './helper.js'

/** Two more strong values (`openssl rand -base64 48` and `-base64 32`). */
const OTHER_SECRET = 'zCQh4OqZ6iWWdKvCvbVwHRKMK5mdTXM8koH2Mo96q12KQGox1EqPCQFDiql++rp6'
const ENCRYPTION_KEY = 'xNvQyB0nbLPXz3piPbfyuWjxbqw6Us+MzOArHwuFyT8='

const REQUIRED = { JWT_SECRET, CORS_ORIGIN: 'https://alarms.example.org' }

function problems (env: Record<string, string>): string[] {
  try {
    loadConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) return error.problems
    throw error
  }
  return []
}

/** A value of the right type for a variable, different from its default. */
function sample (key: string, schema: TSchema): { raw: string, parsed: unknown } {
  if (schema.type === 'boolean') return { raw: schema.default === true ? 'false' : 'true', parsed: schema.default !== true }
  if (schema.type === 'integer') { const n = Math.max(7, (schema.minimum as number) + 1); return { raw: String(n), parsed: n } }
  if (key === 'OIDC_TOKEN_RETIRED_KEYS') return { raw: `${ENCRYPTION_KEY},tAUoyYAXE7CM6qPIpaqoDh89gFYzqoNeGrvdIhgqgro=`, parsed: [ENCRYPTION_KEY, 'tAUoyYAXE7CM6qPIpaqoDh89gFYzqoNeGrvdIhgqgro='] }
  if (schema.type === 'array') return key === 'CORS_ORIGIN' ? { raw: 'https://a.example,https://b.example', parsed: ['https://a.example', 'https://b.example'] } : { raw: '10.0.0.1, 10.0.0.2', parsed: ['10.0.0.1', '10.0.0.2'] }
  if (schema.anyOf) return { raw: 'client_secret_basic', parsed: 'client_secret_basic' }
  if (key === 'PUBLIC_URL') return { raw: 'https://alarms.example.org', parsed: 'https://alarms.example.org' }
  if (/URL|ADDRESS/.test(key) && key !== 'REDIS_URL') return { raw: 'https://example.org/path', parsed: 'https://example.org/path' }
  if (key === 'JWT_SECRET') return { raw: OTHER_SECRET, parsed: OTHER_SECRET }
  if (key === 'OIDC_TOKEN_ENCRYPTION_KEY') return { raw: ENCRYPTION_KEY, parsed: ENCRYPTION_KEY }
  if (key in VAPID) return { raw: VAPID[key] as string, parsed: VAPID[key] }
  return { raw: `value-of-${key}`, parsed: `value-of-${key}` }
}

/** Web Push's three values go together: each is read with the other two set. */
const VAPID: Record<string, string> = { ...Object.fromEntries(Object.entries(webPush.generateVAPIDKeys()).map(([k, v]) => [k === 'publicKey' ? 'VAPID_PUBLIC_KEY' : 'VAPID_PRIVATE_KEY', v])), VAPID_SUBJECT: 'mailto:admin@example.org' }

/** Defaults made from other variables when unset: VAPID_SUBJECT is the site's first https origin. */
const DERIVED: Partial<Record<keyof Config, unknown>> = { VAPID_SUBJECT: REQUIRED.CORS_ORIGIN }

t.test('every variable has its default, and both names set it', async (t) => {
  const defaults = loadConfig(REQUIRED)
  for (const [key, schema] of Object.entries(ConfigSchema.properties) as Array<[keyof Config, TSchema]>) {
    if (key in REQUIRED) continue
    if (key in DERIVED) t.same(defaults[key], DERIVED[key], `${key} defaults to ${JSON.stringify(DERIVED[key])} (made from the others)`)
    else if (schema.default !== undefined) t.same(defaults[key], schema.default, `${key} defaults to ${JSON.stringify(schema.default)}`)
    const { raw, parsed } = sample(key, schema)
    const together = key in VAPID ? VAPID : {}
    t.same(loadConfig({ ...REQUIRED, ...together, [key]: raw })[key], parsed, `${key} is read`)
    for (const alias of (schema as { alias?: string[] }).alias ?? []) {
      t.same(loadConfig({ ...REQUIRED, ...together, [alias]: raw })[key], parsed, `${alias} sets ${key}`)
    }
  }
})

t.test('spec defaults', async (t) => {
  const c = loadConfig(REQUIRED)
  t.equal(c.OIDC_SCOPES, 'openid profile email')
  t.equal(c.OIDC_IDENTITY_CLAIM, 'chat_id')
  t.equal(c.OIDC_USERNAME_CLAIM, 'preferred_username')
  t.equal(c.OIDC_AVATAR_CLAIM, 'picture')
  t.equal(c.OIDC_IDENTITY_TYPE, 'chat:user')
  t.equal(c.OIDC_USE_PKCE, true)
  t.equal(c.AUTH_FORCE_LOCAL, false)
  t.equal(c.OIDC_USE_REFRESH_TOKENS, false)
  t.equal(c.OIDC_ACCESS_TOKEN_MINUTES, 30)
  t.equal(c.OIDC_REFRESH_TOKEN_LIFETIME_DAYS, 30)
  t.equal(c.OIDC_SESSION_REVOKED_RETENTION_DAYS, 2)
  t.equal(c.OIDC_OFFLINE_ACCESS_SCOPE, 'offline_access')
  t.equal(c.OIDC_TOKEN_AUTH_METHOD, 'client_secret_post')
  t.equal(c.JWT_EXPIRATION_MINUTES, 1440)
  t.equal(c.PORT, 8082)
  t.equal(c.RATE_LIMIT_AUTH_MAX, 30)
  t.equal(c.RATE_LIMIT_AUTH_READ_MAX, 120)
  t.equal(c.PUBLIC_URL, undefined)
  t.equal(c.OIDC_ENABLED, false)
  t.equal(c.TELEGRAM_ENABLED, false)
  t.same(c.PROXY_KNOWN_PROXIES, [])
})

t.test('the .env name wins over the hierarchical name', async (t) => {
  const c = loadConfig({ ...REQUIRED, OIDC_CLIENT_ID: 'short', Oidc__ClientId: 'long', Oidc__AccessTokenMinutes: '15', OIDC_ACCESS_TOKEN_MINUTES: '45' })
  t.equal(c.OIDC_CLIENT_ID, 'short')
  t.equal(c.OIDC_ACCESS_TOKEN_MINUTES, 45)
})

t.test('booleans accept true/false/1/0 in any case, and nothing else', async (t) => {
  for (const [raw, value] of [['true', true], ['TRUE', true], ['True', true], ['1', true], ['false', false], ['FALSE', false], ['0', false], [' fAlSe ', false]] as const) {
    t.equal(loadConfig({ ...REQUIRED, OIDC_USE_PKCE: raw }).OIDC_USE_PKCE, value, `"${raw}"`)
  }
  for (const raw of ['yes', 'no', 'on', '2', 'tru']) {
    t.match(problems({ ...REQUIRED, AUTH_FORCE_LOCAL: raw }), [/AUTH_FORCE_LOCAL must be true, false, 1 or 0/], `"${raw}" refused`)
  }
})

t.test('integers must be whole numbers within range', async (t) => {
  t.match(problems({ ...REQUIRED, OIDC_ACCESS_TOKEN_MINUTES: 'thirty' }), [/OIDC_ACCESS_TOKEN_MINUTES must be a whole number/])
  t.match(problems({ ...REQUIRED, PORT: '1.5' }), [/PORT must be a whole number/])
  t.match(problems({ ...REQUIRED, PORT: '70000' }), [/PORT must be at most 65535/])
  t.match(problems({ ...REQUIRED, OIDC_ACCESS_TOKEN_MINUTES: '0' }), [/OIDC_ACCESS_TOKEN_MINUTES must be at least 1/])
})

t.test('an empty value means unset, except the offline-access scope', async (t) => {
  const c = loadConfig({ ...REQUIRED, OIDC_SCOPES: '', OIDC_ACCESS_TOKEN_MINUTES: '  ', OIDC_USE_PKCE: '', OIDC_OFFLINE_ACCESS_SCOPE: '' })
  t.equal(c.OIDC_SCOPES, 'openid profile email')
  t.equal(c.OIDC_ACCESS_TOKEN_MINUTES, 30)
  t.equal(c.OIDC_USE_PKCE, true)
  t.equal(c.OIDC_OFFLINE_ACCESS_SCOPE, '', 'empty means never append')
  t.equal(loadConfig({ ...REQUIRED, Oidc__OfflineAccessScope: '' }).OIDC_OFFLINE_ACCESS_SCOPE, '', 'also through the hierarchical name')
})

t.test('CORS_ORIGIN is a comma list, also as Cors__AllowedOrigins__N', async (t) => {
  t.same(loadConfig({ JWT_SECRET: REQUIRED.JWT_SECRET, CORS_ORIGIN: 'https://a.example, https://b.example/' }).CORS_ORIGIN, ['https://a.example', 'https://b.example'])
  t.same(loadConfig({ JWT_SECRET: REQUIRED.JWT_SECRET, Cors__AllowedOrigins__0: 'https://a.example', Cors__AllowedOrigins__1: 'https://b.example' }).CORS_ORIGIN, ['https://a.example', 'https://b.example'])
  t.match(problems({ JWT_SECRET: REQUIRED.JWT_SECRET, CORS_ORIGIN: 'https://a.example/app' }), [/CORS_ORIGIN entry "https:\/\/a.example\/app" must be an http\(s\) origin/])
})

t.test('OIDC_TOKEN_AUTH_METHOD is an enum', async (t) => {
  t.match(problems({ ...REQUIRED, OIDC_TOKEN_AUTH_METHOD: 'private_key_jwt' }), [/OIDC_TOKEN_AUTH_METHOD must be one of client_secret_post, client_secret_basic/])
})

t.test('OIDC is auto-enabled only when the client id and the three URLs are set', async (t) => {
  const urls = { OIDC_CLIENT_ID: 'web', OIDC_AUTHORIZATION_URL: 'https://idp.example/auth', OIDC_TOKEN_URL: 'https://idp.example/token', OIDC_USERINFO_URL: 'https://idp.example/me' }
  t.equal(loadConfig({ ...REQUIRED, ...urls }).OIDC_ENABLED, true)
  for (const missing of Object.keys(urls)) {
    const env: Record<string, string> = { ...REQUIRED, ...urls }
    delete env[missing]
    t.equal(loadConfig(env).OIDC_ENABLED, false, `not without ${missing}`)
  }
  t.equal(loadConfig({ ...REQUIRED, ...urls, OIDC_ENABLED: 'false' }).OIDC_ENABLED, false, 'an explicit false wins')
  t.equal(loadConfig({ ...REQUIRED, Oidc__Enabled: 'true' }).OIDC_ENABLED, true, 'an explicit true is kept')
})

t.test('Telegram is enabled when its token and username are set; chat platform settings are optional', async (t) => {
  t.equal(loadConfig({ ...REQUIRED, TELEGRAM_BOT_TOKEN: '1:abc', TELEGRAM_BOT_USERNAME: 'bot' }).TELEGRAM_ENABLED, true)
  t.equal(loadConfig({ ...REQUIRED, TELEGRAM_BOT_TOKEN: '1:abc' }).TELEGRAM_ENABLED, false)
  t.equal(loadConfig(REQUIRED).DISCORD_CLIENT_ID, '', 'an SSO-only site starts without chat platform settings')
})

t.test('start-up failures name every bad variable at once', async (t) => {
  const all = problems({ NODE_ENV: 'production', JWT_SECRET: 'short', PUBLIC_URL: 'https://alarms.example.org/app', OIDC_USE_PKCE: 'maybe', PORT: 'http' })
  t.match(all.join('\n'), /OIDC_USE_PKCE must be true, false, 1 or 0/)
  t.match(all.join('\n'), /PORT must be a whole number/)
  const second = problems({ NODE_ENV: 'production', JWT_SECRET: 'short', PUBLIC_URL: 'https://alarms.example.org/app' })
  t.match(second.join('\n'), /JWT_SECRET uses fewer than 8 different characters/)
  t.match(second.join('\n'), /CORS_ORIGIN is required when NODE_ENV is not development/)
  t.match(second.join('\n'), /PUBLIC_URL must be an absolute http\(s\) origin without path/)
  t.match(problems({ CORS_ORIGIN: 'https://a.example' }), [/JWT_SECRET is required/])
  t.same(problems({ NODE_ENV: 'development', JWT_SECRET }), [], 'development needs no CORS_ORIGIN')
  t.match(problems({ ...REQUIRED, PUBLIC_URL: 'ftp://alarms.example.org' }), [/PUBLIC_URL must be an absolute http\(s\) origin/])
  t.match(problems({ ...REQUIRED, PUBLIC_URL: 'https://alarms.example.org?x=1' }), [/PUBLIC_URL/])
  t.match(problems({ ...REQUIRED, OIDC_TOKEN_URL: 'not a url' }), [/OIDC_TOKEN_URL must be an absolute URL/])
  t.match(problems({ ...REQUIRED, OIDC_TOKEN_ENCRYPTION_KEY: 'c2hvcnQ=' }), [/OIDC_TOKEN_ENCRYPTION_KEY must be 32 bytes/])
  t.equal(loadConfig({ ...REQUIRED, PUBLIC_URL: 'https://alarms.example.org/' }).PUBLIC_URL, 'https://alarms.example.org', 'a trailing slash is tolerated')
})

t.test('the start-up summary masks every secret', async (t) => {
  const c = loadConfig({ ...REQUIRED, OIDC_CLIENT_SECRET: 'super-secret-value-1234', PORACLE_API_SECRET: 'engine-secret-abcd', DB_PASSWORD: 'pw' })
  const text = JSON.stringify(summarize(c))
  t.notMatch(text, /super-secret-value|engine-secret|xxxxxxxx/)
  t.match(summarize(c), { OIDC_CLIENT_SECRET: '••••••••', DB_PASSWORD: '••••••••', CORS_ORIGIN: ['https://alarms.example.org'] })
  t.notMatch(text, /1234|abcd/, 'no part of a secret, not even its end')
  t.notOk(JSON.stringify(summarize(loadConfig(REQUIRED))).includes(REQUIRED.JWT_SECRET.slice(-4)), 'nor of JWT_SECRET')
  t.equal(mask(''), '')
})

t.test('placeholder secrets are refused by their look, not only verbatim', async (t) => {
  for (const secret of [
    JWT_SECRET_PLACEHOLDER.toUpperCase(),
    `${JWT_SECRET_PLACEHOLDER}!`,
    `x${JWT_SECRET_PLACEHOLDER}-2`,
    'Change_Me_Please_0123456789abcdefghijklmnopq',
    'your-secret-here-0123456789abcdefghijklmnopqrstu',
    'REPLACE WITH a long random value 0123456789abcdef'
  ]) {
    t.match(problems({ ...REQUIRED, JWT_SECRET: secret }), [/JWT_SECRET is a value published with this project/], secret)
  }
  t.same(problems(REQUIRED), [], 'a random secret passes')
})

t.test('.env files are read and real variables win', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-env-'))
  writeFileSync(join(dir, '.env'), '# comment\nJWT_SECRET="abcdefghijklmnopqrstuvwxyz0123456789"\nexport PORT=9000\nCORS_ORIGIN=https://a.example\n\nBROKEN LINE\n')
  t.same(readDotEnv(join(dir, '.env')), { JWT_SECRET: 'abcdefghijklmnopqrstuvwxyz0123456789', PORT: '9000', CORS_ORIGIN: 'https://a.example' })
  t.same(readDotEnv(join(dir, 'missing.env')), {})
  const c = loadConfig({ ...readDotEnv(join(dir, '.env')), PORT: '9100' })
  t.equal(c.PORT, 9100)
})

t.test('bad configuration stops the server with exit code 1 and one readable message', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'aw-start-'))
  const result = spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), join(import.meta.dirname, '..', 'server.ts')], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', JWT_SECRET: 'short', OIDC_USE_PKCE: 'perhaps' },
    encoding: 'utf8',
    timeout: 30_000
  })
  t.equal(result.status, 1)
  t.match(result.stderr, /Invalid configuration:/)
  t.match(result.stderr, /OIDC_USE_PKCE must be true, false, 1 or 0/)
  t.notMatch(result.stderr, /\n\s+at /, 'no stack trace')
})

t.test('.env.example lists every variable and is current', async (t) => {
  const { readFileSync } = await import('node:fs')
  const { renderEnvExample } = await import('../scripts/env-example.js')
  const text = readFileSync(join(import.meta.dirname, '..', '.env.example'), 'utf8')
  t.equal(text, renderEnvExample(), 'regenerate with npm run env:example')
  for (const key of Object.keys(ConfigSchema.properties)) t.match(text, new RegExp(`^${key}=`, 'm'), key)
})

t.test('the README configuration table is current', async (t) => {
  const { readFileSync } = await import('node:fs')
  const { withConfigTable } = await import('../scripts/env-example.js')
  const readme = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8')
  t.equal(readme, withConfigTable(readme), 'regenerate with npm run env:example')
})

t.test('weak, published or placeholder secrets refuse to start, naming the variable and the fix', async (t) => {
  const weak = {
    'the .env.example placeholder': JWT_SECRET_PLACEHOLDER,
    'one repeated character': 'x'.repeat(64),
    'a short pattern repeated': 'abcabcabcabcabcabcabcabcabcabcabcabc',
    'too few entropy-bearing characters': 'aabbccddeeffgghhiijjkkllmmnnoopp',
    'shorter than 32 characters': 'Zq3!vR8#pL2@xW7$'
  }
  for (const [what, secret] of Object.entries(weak)) {
    const found = problems({ ...REQUIRED, JWT_SECRET: secret }).join('\n')
    t.match(found, /^JWT_SECRET /, what)
    t.match(found, /openssl rand -base64 48/, what)
  }
  t.same(problems({ ...REQUIRED, JWT_SECRET: OTHER_SECRET }), [], 'a generated secret starts')

  const published = readFileSync(join(import.meta.dirname, '..', '.env.example'), 'utf8')
  const example = /^JWT_SECRET=(.+)$/m.exec(published)?.[1] ?? ''
  t.ok(example !== '', '.env.example shows a JWT_SECRET value')
  t.match(problems({ ...REQUIRED, JWT_SECRET: example }), [/JWT_SECRET is a value published with this project/])
  const decisions = readFileSync(join(import.meta.dirname, '..', 'docs', 'decisions.md'), 'utf8')
  const quoted = (decisions.split('\n').find((line) => line.length > 60) ?? '').slice(0, 48)
  t.match(problems({ ...REQUIRED, JWT_SECRET: quoted }), [/JWT_SECRET is a value published with this project/], 'a phrase from docs/')

  for (const key of [Buffer.alloc(32, 7).toString('base64'), Buffer.alloc(32, 0).toString('base64'), Buffer.from('ab'.repeat(16)).toString('base64')]) {
    t.match(problems({ ...REQUIRED, OIDC_TOKEN_ENCRYPTION_KEY: key }), [/OIDC_TOKEN_ENCRYPTION_KEY .*openssl rand -base64 32/], key)
  }
  t.same(problems({ ...REQUIRED, OIDC_TOKEN_ENCRYPTION_KEY: ENCRYPTION_KEY }), [])
})

t.test('retired provider-token keys must be 32-byte keys', async (t) => {
  t.throws(() => loadConfig({ ...REQUIRED, OIDC_TOKEN_RETIRED_KEYS: `${ENCRYPTION_KEY},c2hvcnQ=` }), /OIDC_TOKEN_RETIRED_KEYS entry 2 must be 32 bytes, base64-encoded/)
})
