import { Type, type Static } from '@sinclair/typebox'

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
  FETCH_ALLOWED_HOSTS: list({ description: 'Comma list of host names or IP addresses that fetches of admin-given addresses (the icon-set check) may reach although they are (or resolve to) loopback, private, link-local or unique-local addresses' }),
  REDIS_URL: optStr({ secret: true, description: 'redis://host:6379 to share rate-limit counters and cache evictions (blocks, delegate grants) between instances' }),
  RATE_LIMIT_AUTH_MAX: int({ default: 30, minimum: 1, description: 'Sign-in requests per IP per 60 s (policy auth)' }),
  RATE_LIMIT_AUTH_READ_MAX: int({ default: 120, minimum: 1, description: 'Auth read requests per IP per 60 s (policy auth-read)' }),
  RATE_LIMIT_BACKCHANNEL_LOGOUT_MAX: int({ default: 600, minimum: 1, description: 'Back-channel logout posts per IP per 60 s (policy backchannel-logout: the provider ending many sessions, apart from members\' sign-ins)' }),
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
  GAME_DATA_TIMEOUT_MS: int({ default: 30000, minimum: 100, description: 'Timeout of a game master file or icon-set index download (a member\'s picker waits for the first one)' }),
  MAP_IMAGE_TIMEOUT_MS: int({ default: 15000, minimum: 100, description: 'Timeout of a review post\'s map image download from the engine\'s tileserver, body included (the post links the map instead when it is slower)' }),
  GOLBAT_TIMEOUT_MS: int({ default: 10000, minimum: 100, description: 'Timeout of the pokemon availability call' }),
  ESTIMATE_WINDOW_HOURS: int({ default: 1, minimum: 1, maximum: 24, description: 'Alarm estimates: hours of the scanner\'s live tables an estimate counts (keep within the scanner\'s pokemon retention); the pokemon of that window are kept in memory, about 70 bytes each' }),
  ESTIMATE_TIMEOUT_MS: int({ default: 2000, minimum: 100, description: 'Alarm estimates: longest wait for the scanner database before answering "unavailable" (a read of the live pokemon table goes on behind it, for the next answer)' }),
  ESTIMATE_RATE_MAX: int({ default: 60, minimum: 1, description: 'Alarm estimates: requests per 60 s per signed-in member' }),
  EXPLAIN_RATE_MAX: int({ default: 30, minimum: 1, description: 'Alert explanations ("why didn\'t I get that alert?"): requests per 60 s per signed-in member, and as many pages of the recent list in a window of their own (admins asking about a member count as themselves)' }),
  EXPLAIN_MEMBER_SECONDS: int({ default: 60, minimum: 0, maximum: 3600, description: 'Alert explanations: how long a member\'s alarms, profiles and settings are answered from memory after one engine read (anything written through this site forgets them at once, on every instance; a change made with the chat bot shows after it); 0: read on every question' }),

  // Web Push (docs/push.md): on once SCANNER_WEBHOOK_TOKEN or PUSH_VALIDATION_TOKEN is set
  VAPID_PUBLIC_KEY: str({ description: 'Web Push: the VAPID public key (base64url, uncompressed P-256 point), from `npx web-push generate-vapid-keys`; unset (with VAPID_PRIVATE_KEY): the service makes a pair on first start and keeps it in its database' }),
  VAPID_PRIVATE_KEY: str({ secret: true, description: 'Web Push: the VAPID private key (base64url) matching VAPID_PUBLIC_KEY; never change one without the other (every device would have to subscribe again)' }),
  VAPID_SUBJECT: str({ description: 'Web Push: a contact the push services may reach the operator at, mailto:admin@example.org or https://alarms.example.org; unset: PUBLIC_URL, else the first CORS_ORIGIN, when https' }),
  PUSH_ENDPOINT_HOSTS: list({ description: 'Web Push: comma list of host:port (or host) that subscription endpoints may name although they are (or resolve to) loopback or private addresses: a private push service. Its certificate is trusted with NODE_EXTRA_CA_CERTS' }),
  PUSH_CONCURRENCY: int({ default: 16, minimum: 1, maximum: 256, description: 'Web Push: messages handed to push services at the same time' }),
  PUSH_QUEUE_MAX: int({ default: 20000, minimum: 1, maximum: 1_000_000, description: 'Web Push: messages waiting to be sent at most; past it the oldest waiting message is dropped (and counted)' }),
  PUSH_FEED_BACKLOG_MAX: int({ default: 50000, minimum: 1, maximum: 1_000_000, description: 'Web Push (scanner feed): events waiting to be matched at most; none is lost below it, past it the oldest are dropped first (and counted)' }),
  PUSH_RETRIES: int({ default: 3, minimum: 0, maximum: 10, description: 'Web Push: retries of a message the push service answered 429 or 5xx (after its Retry-After) or could not be reached for' }),
  SCANNER_WEBHOOK_TOKEN: str({ secret: true, description: 'Web Push from the scanner\'s own feed (PoracleJS sites): the secret path part of the webhook target to add to the scanner, https://<site>/api/scanner-webhook/<token>; unset: no feed' }),
  PUSH_VALIDATION_TOKEN: str({ secret: true, description: 'Web Push through PoracleNG\'s validation hook: the secret path part of its [validation] url, https://<site>/api/push/validation/<token>; unset: no hook' }),
  PUSH_MAP_URL: str({ description: 'Web Push: the link a tapped notification opens, with {lat} and {lon} (e.g. a ReactMap https://map.example.org/@/{lat}/{lon}/16); unset: the site itself' }),
  PUSH_RATE_MAX: int({ default: 20, minimum: 1, maximum: 1000, description: 'Web Push: notifications per member within PUSH_RATE_WINDOW_SECONDS (the engines\' default); past it one "you are being rate-limited" notice, then none until the window frees' }),
  PUSH_RATE_WINDOW_SECONDS: int({ default: 240, minimum: 1, maximum: 86400, description: 'Web Push: the window of PUSH_RATE_MAX' }),
  PUSH_MEMBER_REFRESH_SECONDS: int({ default: 300, minimum: 5, maximum: 86400, description: 'Web Push (scanner feed): how long a member\'s alarms are matched from memory before they are read again (a member\'s own change refreshes them at once, on every instance)' }),
  PUSH_TIMEOUT_MS: int({ default: 10000, minimum: 100, maximum: 120000, description: 'Web Push: timeout of one call to a push service' }),
  INSIGHTS_ALERT_LIMIT: int({ default: 20, minimum: 1, maximum: 100000, description: 'Admin insights: the alarm engine\'s alert limit per member (its alertLimits.dmLimit), alerts per INSIGHTS_ALERT_LIMIT_SECONDS; members whose estimated rate is above it are marked "likely to be stopped"' }),
  INSIGHTS_ALERT_LIMIT_SECONDS: int({ default: 240, minimum: 1, maximum: 86400, description: 'Admin insights: the time span of INSIGHTS_ALERT_LIMIT, in seconds (the engine\'s alertLimits.timingPeriod; its defaults are 20 alerts per 240 s)' }),
  INSIGHTS_NOISE_MEMBERS: int({ default: 200, minimum: 1, maximum: 5000, description: 'Admin insights: members whose alerts are estimated for the noise panel, those with the most alarms in their active profile first (each costs one engine read and a pass over the scanner\'s recent rows, every 10 minutes while admins look)' }),

  // Maps
  MAP_TILE_URL: str({ default: 'https://tile.openstreetmap.org/{z}/{x}/{y}.png', description: 'Map tile URL template ({z}/{x}/{y}, optional {s}); its origin is added to the CSP img-src' }),
  MAP_TILE_ATTRIBUTION: str({ default: '© OpenStreetMap contributors', description: 'Attribution shown on the map, as the tile provider requires' }),
  GEOCODER_TIMEOUT_MS: int({ default: 10000, minimum: 100, description: 'Timeout of an address search or lookup at the geocoder the alarm engine names (its providerURL)' })
})

export type Config = Static<typeof ConfigSchema>
export type ConfigKey = keyof Config
