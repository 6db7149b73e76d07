import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseEnv } from 'node:util'
import fp from 'fastify-plugin'
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

/**
 * Every variable of the service, in one TypeBox schema. The `.env` name is the property name; each
 * property carries its hierarchical alias(es) in `alias`, whether it is a secret in `secret`, and the
 * `.env.example` group in `group`. Types, defaults and the parser are all derived from this object.
 */
interface VarOptions {
  alias?: string[]
  secret?: boolean
  /** An empty value is normally "unset"; for a few variables empty is a meaningful value. */
  emptyIsValue?: boolean
  default?: unknown
  description: string
}

const str = (o: VarOptions & { default?: string }) => Type.String({ default: '', ...o })
const optStr = (o: VarOptions) => Type.Optional(Type.String(o))
const int = (o: VarOptions & { default: number; minimum?: number; maximum?: number }) =>
  Type.Integer({ minimum: 0, ...o })
const bool = (o: VarOptions & { default: boolean }) => Type.Boolean(o)
const list = (o: VarOptions) => Type.Array(Type.String(), { default: [], ...o })

export const ConfigSchema = Type.Object({
  // Server
  NODE_ENV: str({ default: 'production', description: 'development relaxes CORS_ORIGIN; anything else is production' }),
  HOST: str({ default: '0.0.0.0', description: 'Address to listen on' }),
  PORT: int({ default: 8082, maximum: 65535, alias: ['Server__Port'], description: 'Port to listen on' }),
  UPSTREAM_MAX_BYTES: int({ default: 16 * 1024 * 1024, minimum: 65536, description: 'Largest answer read from a peer without a limit of its own (Golbat, geocoder, game master file, chat platform), in bytes; past it the connection is dropped' }),
  LOG_LEVEL: str({ default: 'info', description: 'fatal, error, warn, info, debug or trace' }),
  DATA_DIR: str({ default: './data', description: 'Folder where earlier versions kept the provider-token key file; read if present, never written' }),
  SHUTDOWN_GRACE_MS: int({ default: 10000, minimum: 0, description: 'On SIGTERM or SIGINT: how long requests in flight may take to finish before the process exits anyway' }),
  METRICS_TOKEN: str({ secret: true, description: 'Bearer token that GET /metrics (Prometheus) requires; unset, /metrics is 404' }),
  PUBLIC_URL: optStr({ alias: ['PublicUrl', 'Site__PublicUrl'], description: 'Public origin (https://alarms.example.org); redirect URIs are built from it' }),
  CORS_ORIGIN: list({ alias: ['Cors__AllowedOrigins'], description: 'Comma list of browser origins allowed to call the API; required outside development' }),
  PROXY_KNOWN_PROXIES: list({ alias: ['Proxy__KnownProxies'], description: 'Comma list of reverse-proxy addresses whose X-Forwarded-* headers are trusted' }),
  PROXY_KNOWN_NETWORKS: list({ alias: ['Proxy__KnownNetworks'], description: 'Comma list of reverse-proxy CIDR ranges whose X-Forwarded-* headers are trusted' }),
  HSTS_MAX_AGE: int({ default: 31_536_000, description: 'Strict-Transport-Security max-age in seconds on https answers (directly or through a trusted proxy); 0 sends none' }),
  REDIS_URL: optStr({ secret: true, description: 'redis://host:6379 to share rate-limit counters and cache evictions (blocks, delegate grants) between instances' }),
  RATE_LIMIT_AUTH_MAX: int({ default: 30, minimum: 1, description: 'Sign-in requests per IP per 60 s (policy auth)' }),
  RATE_LIMIT_AUTH_READ_MAX: int({ default: 120, minimum: 1, description: 'Auth read requests per IP per 60 s (policy auth-read)' }),
  BUILD_VERSION: str({ default: 'unknown', description: 'Shown by /api/version' }),
  BUILD_REVISION: str({ default: 'unknown', description: 'Shown by /api/version' }),
  BUILD_DATE: str({ default: 'unknown', description: 'Shown by /api/version' }),

  // Internal JWT
  JWT_SECRET: str({ alias: ['Jwt__Secret'], secret: true, description: 'HS256 signing secret (required): openssl rand -base64 48; weak or published values are refused' }),
  JWT_ISSUER: str({ default: 'PoracleWeb', alias: ['Jwt__Issuer'], description: 'iss of minted tokens' }),
  JWT_AUDIENCE: str({ default: 'PoracleWeb.App', alias: ['Jwt__Audience'], description: 'aud of minted tokens' }),
  JWT_EXPIRATION_MINUTES: int({ default: 1440, minimum: 1, alias: ['Jwt__ExpirationMinutes'], description: 'Lifetime of every token except refresh-backed SSO sessions' }),

  // Service database (this service's own tables)
  WEB_DB_HOST: str({ default: '127.0.0.1', description: 'Service database host' }),
  WEB_DB_PORT: int({ default: 3306, maximum: 65535, description: 'Service database port' }),
  WEB_DB_NAME: str({ default: 'poracle_web', description: 'Service database name (created when missing)' }),
  WEB_DB_USER: str({ default: 'root', description: 'Service database user' }),
  WEB_DB_PASSWORD: str({ secret: true, description: 'Service database password' }),
  USER_WRITE_LOCK_WAIT_MS: int({ default: 10000, minimum: 100, maximum: 120000, description: 'How long a change waits for the same user\'s change in progress (any instance) before answering 409' }),

  // Alarm engine database (owned by the engine; only the direct operations the spec lists)
  DB_HOST: str({ default: '127.0.0.1', description: 'Engine database host' }),
  DB_PORT: int({ default: 3306, maximum: 65535, description: 'Engine database port' }),
  DB_NAME: str({ default: 'poracle', description: 'Engine database name' }),
  DB_USER: str({ default: 'root', description: 'Engine database user' }),
  DB_PASSWORD: str({ secret: true, description: 'Engine database password' }),

  // Scanner database (optional, read-only)
  SCANNER_DB_CONNECTION: optStr({ alias: ['ConnectionStrings__ScannerDb'], secret: true, description: 'mysql://user:pass@host:3306/golbat; or use SCANNER_DB_HOST and friends' }),
  SCANNER_DB_HOST: optStr({ description: 'Scanner database host (optional)' }),
  SCANNER_DB_PORT: int({ default: 3306, maximum: 65535, description: 'Scanner database port' }),
  SCANNER_DB_NAME: str({ default: 'golbat', description: 'Scanner database name' }),
  SCANNER_DB_USER: str({ default: 'root', description: 'Scanner database user' }),
  SCANNER_DB_PASSWORD: str({ secret: true, description: 'Scanner database password' }),

  // Alarm engine API
  PORACLE_API_ADDRESS: str({ alias: ['Poracle__ApiAddress'], description: 'Base URL of the alarm engine API, e.g. http://poracle:3030' }),
  PORACLE_API_SECRET: str({ alias: ['Poracle__ApiSecret'], secret: true, description: 'Shared secret sent as X-Poracle-Secret' }),
  PORACLE_ADMIN_IDS: list({ alias: ['Poracle__AdminIds'], description: 'Comma list of user ids that are always admins' }),
  ENGINE_TIMEOUT_MS: int({ default: 10000, minimum: 100, description: 'Timeout of every alarm engine call' }),
  ENGINE_BREAKER_SECONDS: int({ default: 5, description: 'After the alarm engine did not answer, calls fail at once with 503 for this long; 0 never' }),
  ENGINE_MAX_BYTES: int({ default: 32 * 1024 * 1024, minimum: 65536, description: 'Largest alarm engine answer read (bytes); past it the connection is dropped and the request answers 502' }),
  DTS_SOURCE_DIR: str({ description: 'The alarm engine\'s config folder, mounted read-only; its local.json (or config/local.json) key delegateAdministration lists the webhook delegates set in the engine' }),

  // Chat platform (Discord) sign-in
  DISCORD_CLIENT_ID: str({ alias: ['Discord__ClientId'], description: 'OAuth2 client id (optional on SSO-only sites)' }),
  DISCORD_CLIENT_SECRET: str({ alias: ['Discord__ClientSecret'], secret: true, description: 'OAuth2 client secret' }),
  DISCORD_BOT_TOKEN: str({ alias: ['Discord__BotToken'], secret: true, description: 'Bot token for guild role checks and geofence review posts' }),
  DISCORD_GUILD_ID: str({ alias: ['Discord__GuildId'], description: 'Guild whose roles gate sign-in' }),
  DISCORD_GEOFENCE_FORUM_CHANNEL_ID: str({ alias: ['Discord__GeofenceForumChannelId'], description: 'Forum channel where each geofence submitted for review gets a thread (needs DISCORD_BOT_TOKEN)' }),
  DISCORD_API_URL: str({ default: 'https://discord.com/api', alias: ['Discord__ApiUrl'], description: 'Chat platform API base URL' }),

  // Telegram sign-in
  TELEGRAM_ENABLED: Type.Optional(Type.Boolean({ alias: ['Telegram__Enabled'], description: 'Defaults to true when the bot token and username are set' })),
  TELEGRAM_BOT_TOKEN: str({ alias: ['Telegram__BotToken'], secret: true, description: 'Bot token used to verify the login widget' }),
  TELEGRAM_BOT_USERNAME: str({ alias: ['Telegram__BotUsername'], description: 'Bot username shown by the login widget' }),

  // External OIDC sign-in
  OIDC_ENABLED: Type.Optional(Type.Boolean({ alias: ['Oidc__Enabled'], description: 'Master switch; defaults to true when the client id and the three URLs are set' })),
  OIDC_PROVIDER_NAME: str({ alias: ['Oidc__ProviderName'], description: 'Label of the login button' }),
  OIDC_AUTHORIZATION_URL: str({ alias: ['Oidc__AuthorizationUrl'], description: 'Browser-facing authorize endpoint' }),
  OIDC_TOKEN_URL: str({ alias: ['Oidc__TokenUrl'], description: 'Token endpoint' }),
  OIDC_USERINFO_URL: str({ alias: ['Oidc__UserInfoUrl'], description: 'Userinfo endpoint' }),
  OIDC_END_SESSION_URL: str({ alias: ['Oidc__EndSessionUrl'], description: 'Optional end-session endpoint (single logout)' }),
  OIDC_REVOCATION_URL: str({ alias: ['Oidc__RevocationUrl'], description: 'Optional RFC 7009 revocation endpoint, called when a refresh session is revoked' }),
  OIDC_ISSUER: str({ alias: ['Oidc__Issuer'], description: 'Optional exact issuer; else the callback iss parameter is used. Its discovery document is read for RFC 9207 and the JWKS' }),
  OIDC_JWKS_URL: str({ description: 'The provider\'s JWKS for back-channel logout tokens; else the jwks_uri of OIDC_ISSUER\'s discovery document' }),
  OIDC_CLIENT_ID: str({ alias: ['Oidc__ClientId'], description: 'Client id' }),
  OIDC_CLIENT_SECRET: str({ alias: ['Oidc__ClientSecret'], secret: true, description: 'Client secret (never stored in the database)' }),
  OIDC_SCOPES: str({ default: 'openid profile email', alias: ['Oidc__Scopes'], description: 'Space-separated scopes' }),
  OIDC_IDENTITY_CLAIM: str({ default: 'chat_id', alias: ['Oidc__IdentityClaim'], description: 'Userinfo claim with the user id; falls back to sub' }),
  OIDC_USERNAME_CLAIM: str({ default: 'preferred_username', alias: ['Oidc__UsernameClaim'], description: 'Display-name claim' }),
  OIDC_AVATAR_CLAIM: str({ default: 'picture', alias: ['Oidc__AvatarClaim'], description: 'Avatar URL claim' }),
  OIDC_IDENTITY_TYPE: str({ default: 'chat:user', alias: ['Oidc__IdentityType'], description: 'JWT type claim for SSO logins' }),
  OIDC_USE_PKCE: bool({ default: true, alias: ['Oidc__UsePkce'], description: 'PKCE with S256' }),
  OIDC_TOKEN_AUTH_METHOD: Type.Union([Type.Literal('client_secret_post'), Type.Literal('client_secret_basic')], {
    default: 'client_secret_post', alias: ['Oidc__TokenEndpointAuthMethod'], description: 'client_secret_post or client_secret_basic'
  }),
  AUTH_FORCE_LOCAL: bool({ default: false, alias: ['Auth__ForceLocal'], description: 'Break-glass: always show the local login page' }),
  OIDC_USE_REFRESH_TOKENS: bool({ default: false, alias: ['Oidc__UseRefreshTokens'], description: 'Opt-in refresh-backed SSO sessions' }),
  OIDC_ACCESS_TOKEN_MINUTES: int({ default: 30, minimum: 1, alias: ['Oidc__AccessTokenMinutes'], description: 'JWT lifetime of refresh-backed SSO sessions' }),
  OIDC_REFRESH_TOKEN_LIFETIME_DAYS: int({ default: 30, minimum: 1, alias: ['Oidc__RefreshTokenLifetimeDays'], description: 'Absolute cap of a refresh family' }),
  OIDC_SESSION_REVOKED_RETENTION_DAYS: int({ default: 2, alias: ['Oidc__RevokedRetentionDays'], description: 'Days revoked/rotated session rows are kept' }),
  OIDC_OFFLINE_ACCESS_SCOPE: str({ default: 'offline_access', emptyIsValue: true, alias: ['Oidc__OfflineAccessScope'], description: 'Scope appended when refresh sessions are on; empty never appends' }),
  SESSIONS_SHOW_NETWORK: bool({ default: false, description: 'Show members the network (/24 or /48) their signed-in devices last used, on the devices page' }),
  AUDIT_RETENTION_DAYS: int({ default: 365, minimum: 1, description: 'Days admin audit entries are kept' }),
  OIDC_TOKEN_ENCRYPTION_KEY: str({ alias: ['Oidc__TokenEncryptionKey'], secret: true, description: 'base64 32-byte key for provider tokens at rest; else one derived from JWT_SECRET' }),
  OIDC_TOKEN_RETIRED_KEYS: list({ alias: ['Oidc__TokenRetiredKeys'], secret: true, description: 'Comma list of base64 32-byte keys that still decrypt provider tokens (after a key change)' }),

  // Geofences and optional APIs
  KOJI_API_ADDRESS: str({ alias: ['Koji__ApiAddress'], description: 'Koji geofence server URL' }),
  KOJI_BEARER_TOKEN: str({ alias: ['Koji__BearerToken'], secret: true, description: 'Koji bearer token' }),
  KOJI_PROJECT_ID: int({ default: 0, alias: ['Koji__ProjectId'], description: 'Koji project id' }),
  KOJI_PROJECT_NAME: str({ alias: ['Koji__ProjectName'], description: 'Koji project name; admin geofences are read only when it is set' }),
  KOJI_TIMEOUT_MS: int({ default: 10000, minimum: 100, description: 'Timeout of every Koji call' }),
  KOJI_MAX_BYTES: int({ default: 32 * 1024 * 1024, minimum: 65536, description: 'Largest Koji answer read (bytes); past it the connection is dropped' }),
  GEOFENCE_FEED_TOKEN: str({ secret: true, description: 'Optional bearer token the engine must send to /api/geofence-feed' }),
  USER_GEOFENCE_MAX_AREA_KM2: int({ default: 2500, minimum: 1, description: 'Largest area a member-drawn geofence may cover, in square kilometres' }),
  GOLBAT_API_ADDRESS: str({ alias: ['Golbat__ApiAddress'], description: 'Pokemon availability API (enabled with its secret)' }),
  GOLBAT_API_SECRET: str({ alias: ['Golbat__ApiSecret'], secret: true, description: 'Pokemon availability API secret' }),
  MASTERFILE_URL: str({
    default: 'https://raw.githubusercontent.com/WatWowMap/Masterfile-Generator/master/master-latest-poracle.json',
    description: 'Game master file (species, forms, types, grunts, English move and item names), read at most daily; stands in when the alarm engine cannot answer'
  }),
  UICONS_URL: str({
    default: 'https://raw.githubusercontent.com/WatWowMap/wwm-uicons-webp/main',
    description: 'UICONS icon set (folder holding index.json) for every category without its own uicons_* site setting'
  }),
  GOLBAT_TIMEOUT_MS: int({ default: 10000, minimum: 100, description: 'Timeout of the pokemon availability call' }),
  ESTIMATE_WINDOW_HOURS: int({ default: 1, minimum: 1, maximum: 24, description: 'Alarm estimates: hours of the scanner\'s live tables an estimate counts (keep within the scanner\'s pokemon retention)' }),
  ESTIMATE_TIMEOUT_MS: int({ default: 2000, minimum: 100, description: 'Alarm estimates: longest wait for the scanner database before answering "unavailable"' }),
  ESTIMATE_RATE_MAX: int({ default: 60, minimum: 1, description: 'Alarm estimates: requests per 60 s per signed-in member' }),

  // Maps
  MAP_TILE_URL: str({ default: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png', description: 'Map tile URL template ({z}/{x}/{y}, optional {s}); its origin is added to the CSP img-src' }),
  MAP_TILE_ATTRIBUTION: str({ default: '© OpenStreetMap contributors', description: 'Attribution shown on the map, as the tile provider requires' }),
  GEOCODER_TIMEOUT_MS: int({ default: 10000, minimum: 100, description: 'Timeout of an address search or lookup at the geocoder the alarm engine names (its providerURL)' })
})

export type Config = Static<typeof ConfigSchema>
export type ConfigKey = keyof Config

/** Extra, non-aliased names: `Cors__AllowedOrigins__0..N` (the .NET array binding form). */
const INDEXED_ALIASES: Partial<Record<ConfigKey, string>> = { CORS_ORIGIN: 'Cors__AllowedOrigins' }

export class ConfigError extends Error {
  constructor (readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}

type Env = Record<string, string | undefined>

interface Meta { alias?: string[], secret?: boolean, emptyIsValue?: boolean }
const meta = (schema: TSchema): Meta => schema as Meta

function rawValue (env: Env, key: string, schema: TSchema): string | undefined {
  const { emptyIsValue } = meta(schema)
  for (const name of [key, ...(meta(schema).alias ?? [])]) {
    const value = env[name]
    if (value === undefined) continue
    if (value.trim() === '' && !emptyIsValue) continue
    return value
  }
  const indexed = INDEXED_ALIASES[key as ConfigKey]
  if (indexed) {
    const items: string[] = []
    for (let i = 0; env[`${indexed}__${i}`] !== undefined; i++) items.push(env[`${indexed}__${i}`] as string)
    if (items.length > 0) return items.join(',')
  }
  return undefined
}

function parseValue (key: string, raw: string, schema: TSchema, problems: string[]): unknown {
  const value = raw.trim()
  if (schema.type === 'boolean') {
    const lower = value.toLowerCase()
    if (lower === 'true' || lower === '1') return true
    if (lower === 'false' || lower === '0') return false
    problems.push(`${key} must be true, false, 1 or 0 (got "${value}")`)
    return undefined
  }
  if (schema.type === 'integer') {
    if (!/^-?\d+$/.test(value)) {
      problems.push(`${key} must be a whole number (got "${value}")`)
      return undefined
    }
    const n = Number(value)
    if (schema.minimum !== undefined && n < schema.minimum) problems.push(`${key} must be at least ${schema.minimum as number}`)
    else if (schema.maximum !== undefined && n > schema.maximum) problems.push(`${key} must be at most ${schema.maximum as number}`)
    return n
  }
  if (schema.type === 'array') return value.split(',').map((s) => s.trim()).filter((s) => s !== '')
  if (schema.anyOf) {
    const allowed = (schema.anyOf as TSchema[]).map((s) => s.const as string)
    if (!allowed.includes(value)) problems.push(`${key} must be one of ${allowed.join(', ')} (got "${value}")`)
    return value
  }
  return value
}

function isOrigin (value: string): boolean {
  try {
    const url = new URL(value)
    return (url.protocol === 'http:' || url.protocol === 'https:') && value.replace(/\/$/, '') === url.origin
  } catch {
    return false
  }
}

/**
 * The CSP img-src entry that admits the tiles of a tile URL template and nothing else of the web: its
 * origin, with a `{s}` subdomain placeholder widened to a wildcard (`https://*.tile.example.org`).
 * Undefined when the template is not an absolute http(s) URL.
 */
export function tileImageSource (template: string): string | undefined {
  try {
    const url = new URL(template.replaceAll('{s}', 'tile-subdomain').replace(/\{[a-z]+\}/g, '0'))
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined
    return url.origin.replace('tile-subdomain', '*')
  } catch {
    return undefined
  }
}

/** The placeholder `.env.example` shows for JWT_SECRET: public, so never a usable secret. */
export const JWT_SECRET_PLACEHOLDER = 'change-me-to-at-least-32-random-characters'

/** The nearest folder with a package.json: the same answer from `plugins/` and from `dist/plugins/`. */
function projectRoot (): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
  return dir
}

let publishedText: string | undefined
/**
 * The project's published texts (README, docs/, .env.example) where they ship with the code (a source
 * checkout; the container image carries none of them): any value found there is public.
 */
function published (): string {
  if (publishedText !== undefined) return publishedText
  const root = projectRoot()
  const files = root === undefined
    ? []
    : [join(root, 'README.md'), join(root, '.env.example'),
        ...(existsSync(join(root, 'docs')) ? readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join(root, 'docs', f)) : [])]
  publishedText = files.filter((f) => existsSync(f)).map((f) => readFileSync(f, 'utf8')).join('\n')
  return publishedText
}

/**
 * Placeholder-looking values ("change-me…", "your-secret-here", "replace with…", "example"), in any
 * case and with anything around them: an operator who edits the example a little still has a public value.
 */
const PLACEHOLDER = /change[\s_-]*me|replace[\s_-]*(?:me|with|this)|your[\s_-]*(?:own[\s_-]*)?(?:secret|key|token)|(?:secret|key)[\s_-]*here|placeholder|example|xxxxxx/i

/** Short values are refused by the other rules; searching the docs for them would only find words. */
const isPublished = (value: string): boolean =>
  PLACEHOLDER.test(value) || value.toLowerCase().includes(JWT_SECRET_PLACEHOLDER) ||
  (value.length >= 16 && published().toLowerCase().includes(value.toLowerCase()))

/**
 * Why a secret is too weak to sign or encrypt with, or null. Refused: a published value, one repeated
 * character, fewer than 8 different characters, or fewer than `minimum` entropy-bearing characters (a
 * character that repeats the one before it bears none).
 */
export function weakSecretReason (value: string | Buffer, minimum: number): string | null {
  const units = typeof value === 'string' ? [...value] : [...value].map(String)
  if (typeof value === 'string' && isPublished(value)) return 'is a value published with this project (an example or placeholder)'
  if (units.every((u) => u === units[0])) return 'is one repeated character'
  if (new Set(units).size < 8) return 'uses fewer than 8 different characters'
  const bearing = units.filter((u, i) => i === 0 || u !== units[i - 1]).length
  if (bearing < minimum) return `has fewer than ${minimum} entropy-bearing characters`
  return null
}

/** Rules that span variables or need more than a type. */
function crossCheck (config: Config, problems: string[]): void {
  const jwtWeakness = config.JWT_SECRET === '' ? 'is required' : weakSecretReason(config.JWT_SECRET, 32)
  if (jwtWeakness !== null) {
    problems.push(`JWT_SECRET ${jwtWeakness}: anyone who knows it can sign in as any user, admins included. Generate one with: openssl rand -base64 48`)
  }
  if (config.NODE_ENV !== 'development' && config.CORS_ORIGIN.length === 0) {
    problems.push('CORS_ORIGIN is required when NODE_ENV is not development (the browser origin of this site, e.g. https://alarms.example.org)')
  }
  for (const origin of config.CORS_ORIGIN) {
    if (!isOrigin(origin)) problems.push(`CORS_ORIGIN entry "${origin}" must be an http(s) origin without a path`)
  }
  if (config.PUBLIC_URL !== undefined && !isOrigin(config.PUBLIC_URL)) {
    problems.push('PUBLIC_URL must be an absolute http(s) origin without path, query or fragment (e.g. https://alarms.example.org)')
  }
  for (const key of ['OIDC_AUTHORIZATION_URL', 'OIDC_TOKEN_URL', 'OIDC_USERINFO_URL', 'OIDC_END_SESSION_URL', 'OIDC_REVOCATION_URL', 'PORACLE_API_ADDRESS', 'DISCORD_API_URL', 'KOJI_API_ADDRESS', 'GOLBAT_API_ADDRESS'] as const) {
    const value = config[key]
    if (value === '') continue
    try {
      const url = new URL(value)
      if (url.protocol !== 'http:' && url.protocol !== 'https:') problems.push(`${key} must be an http(s) URL`)
    } catch {
      problems.push(`${key} must be an absolute URL (got "${value}")`)
    }
  }
  if (tileImageSource(config.MAP_TILE_URL) === undefined) {
    problems.push(`MAP_TILE_URL must be an absolute http(s) URL template such as https://tile.openstreetmap.org/{z}/{x}/{y}.png (got "${config.MAP_TILE_URL}")`)
  }
  if (config.OIDC_TOKEN_ENCRYPTION_KEY !== '') {
    const key = Buffer.from(config.OIDC_TOKEN_ENCRYPTION_KEY, 'base64')
    const weakness = key.length !== 32
      ? 'must be 32 bytes, base64-encoded'
      : isPublished(config.OIDC_TOKEN_ENCRYPTION_KEY) ? weakSecretReason(config.OIDC_TOKEN_ENCRYPTION_KEY, 0) : weakSecretReason(key, 0)
    if (weakness !== null) problems.push(`OIDC_TOKEN_ENCRYPTION_KEY ${weakness}. Generate one with: openssl rand -base64 32`)
  }
  config.OIDC_TOKEN_RETIRED_KEYS.forEach((value, i) => {
    if (Buffer.from(value, 'base64').length !== 32) problems.push(`OIDC_TOKEN_RETIRED_KEYS entry ${i + 1} must be 32 bytes, base64-encoded`)
  })
}

/**
 * Builds the configuration from an environment-like record. Throws one ConfigError naming every bad
 * variable, so an operator fixes them all in one go.
 */
export function loadConfig (env: Env): Config {
  const problems: string[] = []
  const values: Record<string, unknown> = {}
  for (const [key, schema] of Object.entries(ConfigSchema.properties) as Array<[string, TSchema]>) {
    const raw = rawValue(env, key, schema)
    if (raw !== undefined) values[key] = parseValue(key, raw, schema, problems)
    else if (schema.default !== undefined) values[key] = structuredClone(schema.default)
  }
  const config = values as Config
  if (config.OIDC_ENABLED === undefined) {
    config.OIDC_ENABLED = [config.OIDC_CLIENT_ID, config.OIDC_AUTHORIZATION_URL, config.OIDC_TOKEN_URL, config.OIDC_USERINFO_URL].every((v) => v !== '')
  }
  if (config.TELEGRAM_ENABLED === undefined) {
    config.TELEGRAM_ENABLED = config.TELEGRAM_BOT_TOKEN !== '' && config.TELEGRAM_BOT_USERNAME !== ''
  }
  if (config.PUBLIC_URL !== undefined) config.PUBLIC_URL = config.PUBLIC_URL.replace(/\/$/, '')
  config.CORS_ORIGIN = config.CORS_ORIGIN.map((o) => o.replace(/\/$/, ''))
  if (problems.length === 0) crossCheck(config, problems)
  if (problems.length === 0 && !Value.Check(ConfigSchema, config)) {
    for (const error of Value.Errors(ConfigSchema, config)) problems.push(`${error.path.slice(1)} ${error.message}`)
  }
  if (problems.length > 0) throw new ConfigError(problems)
  return config
}

/** The variables of a `.env` file (Node's own parser), or none when there is no file; real environment variables win over it. */
export function readDotEnv (path = resolve(process.cwd(), '.env')): Env {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return {}
  }
  return parseEnv(text) as Env
}

export function configFromProcess (): Config {
  return loadConfig({ ...readDotEnv(), ...process.env })
}

/** Masks a secret for display: that it is set, never any part of it. */
export function mask (value: string): string {
  return value === '' ? '' : '••••••••'
}

/** Identifiers that are not secrets but need not be shown whole: the ends stay recognisable. */
export function maskPartly (value: string): string {
  if (value === '') return ''
  return value.length > 8 ? `${value.slice(0, 4)}••••••••${value.slice(-4)}` : '••••••••'
}

/** The start-up summary: every variable that differs from its default, secrets masked. */
export function summarize (config: Config): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, schema] of Object.entries(ConfigSchema.properties) as Array<[ConfigKey, TSchema]>) {
    const value = config[key]
    if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) continue
    out[key] = meta(schema).secret ? mask(String(value)) : value
  }
  return out
}

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
  }
}

export default fp<{ config: Config }>(async (fastify, opts) => {
  fastify.decorate('config', opts.config)
}, { name: 'config', fastify: '5.x' })
