import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import type { ParameterizedContext } from 'koa'
import Provider, {
  type Adapter,
  type AdapterPayload,
  type ClientMetadata,
  type Configuration,
  type JWK,
} from 'oidc-provider'

/**
 * The real `oidc-provider` (panva) on 127.0.0.1 as the identity provider of the service's tests, with
 * the knobs those tests need: mutable accounts, switchable refresh-token rules, strict client
 * authentication, recorded token/userinfo/revocation requests and answers that can be replaced.
 */

export type TokenEndpointAuthMethod = 'client_secret_post' | 'client_secret_basic'

/** How a request to the token or revocation endpoint presented the client secret. */
export type PresentedAuthMethod = 'basic' | 'post' | 'none'

/**
 * Claims of one account, `sub` excepted: oidc-provider always answers the account id as `sub`. A
 * provider that changes the subject is modelled with `userinfoOverride`.
 */
export type AccountClaims = Record<string, unknown>

/** A replacement answer for an endpoint. `body` objects are sent as JSON. */
export interface HttpOverride {
  status?: number
  body?: string | object
  contentType?: string
}

export interface TokenRequestRecord {
  grantType: string
  authMethod: PresentedAuthMethod
  codeVerifier?: string
  /** The whole form body as received, secrets included. */
  params: URLSearchParams
  /** The status the provider (or an override or the auth-method check) answered with. */
  status: number
}

export interface RevocationRecord {
  token: string
  tokenTypeHint?: string
  authMethod: PresentedAuthMethod
  status: number
}

export interface UserinfoRecord {
  /** The bearer token presented, if any. */
  accessToken?: string
  status: number
}

export interface GrantErrorRecord {
  error: string
  /** oidc-provider's internal reason (for example "refresh token already used"); never sent to the client. */
  detail?: string
}

export interface OidcProviderOptions {
  clientId?: string
  clientSecret?: string
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod
  /** Registered redirect URIs, compared exactly. Can be changed later through the handle. */
  redirectUris: string[]
  postLogoutRedirectUris?: string[]
  /** Initial accounts: account id → claims. */
  accounts?: Record<string, AccountClaims>
  /** Claim names beyond the built-in ones (`chat_id` and the standard profile/email claims) that userinfo may return. */
  customClaims?: string[]
  /** Account logged in when the authorization request carries no `login_hint`. */
  nextAccount?: string
  /** Access-token lifetime in seconds (default 3600). */
  accessTokenTtl?: number
  /** Refresh-token lifetime in seconds (default 14 days). */
  refreshTokenTtl?: number
  /** Issue refresh tokens for `offline_access` requests (default true). */
  issueRefreshTokens?: boolean
  /** Rotate refresh tokens on every use (default true). */
  rotateRefreshTokens?: boolean
  /** The client's registered back-channel logout URI (OpenID Connect Back-Channel Logout 1.0). */
  backchannelLogoutUri?: string
}

export interface OidcProviderHandle {
  readonly provider: Provider
  readonly issuer: string
  readonly authorizationUrl: string
  readonly tokenUrl: string
  readonly userinfoUrl: string
  readonly endSessionUrl: string
  readonly revocationUrl: string
  readonly clientId: string
  readonly clientSecret: string
  /** The registered method; the token and revocation endpoints refuse the other one. */
  tokenEndpointAuthMethod: TokenEndpointAuthMethod
  redirectUris: string[]
  postLogoutRedirectUris: string[]
  readonly accounts: Map<string, AccountClaims>
  nextAccount: string | undefined
  accessTokenTtl: number
  refreshTokenTtl: number
  issueRefreshTokens: boolean
  rotateRefreshTokens: boolean
  /** Where the provider posts logout tokens for this client; changeable live. */
  backchannelLogoutUri: string | undefined
  userinfoOverride: HttpOverride | null
  tokenOverride: HttpOverride | null
  /** Query parameters of every authorization request, as the client sent them. */
  readonly authorizationRequests: URLSearchParams[]
  readonly tokenRequests: TokenRequestRecord[]
  readonly userinfoRequests: UserinfoRecord[]
  readonly revocations: RevocationRecord[]
  readonly grantErrors: GrantErrorRecord[]
  readonly serverErrors: Error[]
  /** From now on the account is unknown to the provider: login, refresh and userinfo fail. */
  disableAccount(accountId: string): void
  enableAccount(accountId: string): void
  /** Revokes every grant of the account with all its tokens; returns how many grants there were. */
  revokeGrantsOf(accountId: string): number
  close(): Promise<void>
}

const STANDARD_CLAIMS = {
  profile: [
    'name', 'family_name', 'given_name', 'middle_name', 'nickname', 'preferred_username', 'profile',
    'picture', 'website', 'gender', 'birthdate', 'zoneinfo', 'locale', 'updated_at',
  ],
  email: ['email', 'email_verified'],
}

type Ctx = ParameterizedContext

/** The service's settings that point it at this provider as its OIDC client (refresh tokens on). */
export function oidcClientEnv (op: OidcProviderHandle): Record<string, string> {
  return {
    OIDC_CLIENT_ID: op.clientId,
    OIDC_CLIENT_SECRET: op.clientSecret,
    OIDC_AUTHORIZATION_URL: op.authorizationUrl,
    OIDC_TOKEN_URL: op.tokenUrl,
    OIDC_USERINFO_URL: op.userinfoUrl,
    OIDC_USE_REFRESH_TOKENS: 'true'
  }
}

/** Where oidc-provider serves each endpoint, with its default routes, for an issuer at the server root. */
export function oidcProviderEndpoints (issuer: string) {
  return {
    issuer,
    authorizationUrl: `${issuer}/auth`,
    tokenUrl: `${issuer}/token`,
    userinfoUrl: `${issuer}/me`,
    endSessionUrl: `${issuer}/session/end`,
    revocationUrl: `${issuer}/token/revocation`
  }
}

export async function startOidcProvider (opts: OidcProviderOptions): Promise<OidcProviderHandle> {
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const { port } = server.address() as AddressInfo
  const issuer = `http://127.0.0.1:${port}`

  const store = new TokenStore()
  const disabled = new Set<string>()
  const account = (id: string): AccountClaims | undefined => disabled.has(id) ? undefined : handle.accounts.get(id)

  const configuration: Configuration = {
    // The client is read from the adapter on every lookup, so tests can change its registration live.
    adapter: (model: string) => model === 'Client' ? clientAdapter(() => handle) : store.adapter(model),
    jwks: { keys: [signingKey()] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    // Opaque tokens are otherwise accepted 15 s past their expiry, which would hide short-TTL behaviour.
    clockTolerance: 0,
    pkce: { required: () => true },
    scopes: ['openid', 'offline_access', 'profile', 'email'],
    claims: {
      openid: ['sub', 'chat_id', ...(opts.customClaims ?? [])],
      ...STANDARD_CLAIMS,
    },
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true, allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId },
      rpInitiatedLogout: { enabled: true },
      backchannelLogout: { enabled: true },
    },
    // The provider refuses to call special-use addresses (its SSRF guard, an undici dispatcher); the
    // service it notifies here listens on 127.0.0.1, so its calls go out without that dispatcher.
    fetch: async (input: string | URL | Request, init?: RequestInit) => {
      const options: RequestInit & { dispatcher?: unknown } = { ...init }
      delete options.dispatcher
      return await fetch(input, options)
    },
    findAccount: (_ctx, id) => {
      const claims = account(id)
      return claims && { accountId: id, claims: () => ({ ...claims, sub: id }) }
    },
    // Plain text, so a test that ends on an error page can read the reason.
    renderError: (ctx, out) => {
      ctx.type = 'text/plain; charset=utf-8'
      ctx.body = `${out.error}: ${out.error_description ?? ''}`
    },
    // oidc-provider's own rule, plus the switch for a provider that issues no refresh tokens at all.
    issueRefreshToken: (_ctx, client, code) =>
      handle.issueRefreshTokens && client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
    rotateRefreshToken: () => handle.rotateRefreshTokens,
    ttl: {
      AccessToken: () => handle.accessTokenTtl,
      RefreshToken: () => handle.refreshTokenTtl,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 600,
      Session: 86400,
      Grant: 14 * 86400,
    },
  }
  const provider = new Provider(issuer, configuration)

  const handle: OidcProviderHandle = {
    provider,
    ...oidcProviderEndpoints(issuer),
    clientId: opts.clientId ?? 'alarm-web',
    clientSecret: opts.clientSecret ?? randomBytes(24).toString('base64url'),
    tokenEndpointAuthMethod: opts.tokenEndpointAuthMethod ?? 'client_secret_post',
    redirectUris: [...opts.redirectUris],
    postLogoutRedirectUris: [...(opts.postLogoutRedirectUris ?? [])],
    accounts: new Map(Object.entries(opts.accounts ?? {})),
    nextAccount: opts.nextAccount,
    accessTokenTtl: opts.accessTokenTtl ?? 3600,
    refreshTokenTtl: opts.refreshTokenTtl ?? 14 * 86400,
    issueRefreshTokens: opts.issueRefreshTokens ?? true,
    rotateRefreshTokens: opts.rotateRefreshTokens ?? true,
    backchannelLogoutUri: opts.backchannelLogoutUri,
    userinfoOverride: null,
    tokenOverride: null,
    authorizationRequests: [],
    tokenRequests: [],
    userinfoRequests: [],
    revocations: [],
    grantErrors: [],
    serverErrors: [],
    disableAccount: (id) => { disabled.add(id) },
    enableAccount: (id) => { disabled.delete(id) },
    revokeGrantsOf: (id) => store.revokeGrantsOf(id),
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }

  provider.on('grant.error', (_ctx, err) => {
    handle.grantErrors.push({ error: err.error, ...(err.error_detail !== undefined && { detail: err.error_detail }) })
  })
  provider.on('server_error', (_ctx, err) => { handle.serverErrors.push(err) })

  // Koa composes the stack when callback() is called, so every use() must come before it.
  provider.use((ctx, next) => authorizationRequest(handle, ctx, next))
  provider.use((ctx, next) => autoLogin(handle, account, ctx, next))
  provider.use((ctx, next) => clientAuthenticatedEndpoints(handle, ctx, next))
  provider.use((ctx, next) => userinfo(handle, ctx, next))
  server.on('request', provider.callback())

  return handle
}

/**
 * Records the authorization request and lets `offline_access` through without `prompt=consent`.
 * oidc-provider drops that scope unless consent is explicitly prompted (OIDC Core 11); providers such
 * as Keycloak or Auth0 grant it without, and the service sends no prompt. The auto-login answers the
 * consent prompt anyway, so asking for it changes nothing else.
 */
async function authorizationRequest (handle: OidcProviderHandle, ctx: Ctx, next: () => Promise<unknown>): Promise<void> {
  if (ctx.method === 'GET' && ctx.path === '/auth') {
    const query = new URLSearchParams(ctx.querystring)
    handle.authorizationRequests.push(new URLSearchParams(query))
    const scopes = (query.get('scope') ?? '').split(' ')
    const prompts = new Set((query.get('prompt') ?? '').split(' ').filter(Boolean))
    if (scopes.includes('offline_access') && !prompts.has('consent') && !prompts.has('none')) {
      prompts.add('consent')
      query.set('prompt', [...prompts].join(' '))
      ctx.querystring = query.toString()
    }
  }
  await next()
}

/**
 * Finishes login and consent in one step for `login_hint`, else `handle.nextAccount`. An unknown or
 * disabled account is refused with `access_denied`, as a provider refuses a user who cannot sign in.
 */
async function autoLogin (
  handle: OidcProviderHandle,
  account: (id: string) => AccountClaims | undefined,
  ctx: Ctx,
  next: () => Promise<unknown>
): Promise<void> {
  if (ctx.method !== 'GET' || !/^\/interaction\/[^/]+$/.test(ctx.path)) {
    await next()
    return
  }
  const { provider } = handle
  const details = await provider.interactionDetails(ctx.req, ctx.res)
  const hint = details.params['login_hint']
  const accountId = typeof hint === 'string' && hint !== '' ? hint : handle.nextAccount
  ctx.respond = false
  if (accountId === undefined || account(accountId) === undefined) {
    await provider.interactionFinished(ctx.req, ctx.res, {
      error: 'access_denied',
      error_description: accountId === undefined ? 'no account chosen' : 'account cannot sign in',
    }, { mergeWithLastSubmission: false })
    return
  }
  const grant = new provider.Grant({ accountId, clientId: String(details.params['client_id']) })
  const scope = details.params['scope']
  if (typeof scope === 'string') grant.addOIDCScope(scope)
  const grantId = await grant.save()
  await provider.interactionFinished(ctx.req, ctx.res, {
    login: { accountId },
    consent: { grantId },
  }, { mergeWithLastSubmission: false })
}

/**
 * Token and revocation endpoints: records each request, applies `tokenOverride`, and refuses a client
 * secret presented with the unregistered method. oidc-provider itself accepts Basic and form-body
 * secrets interchangeably; strict providers answer `invalid_client`, which is what the service's
 * OIDC_TOKEN_AUTH_METHOD handling must be tested against.
 */
async function clientAuthenticatedEndpoints (
  handle: OidcProviderHandle,
  ctx: Ctx,
  next: () => Promise<unknown>
): Promise<void> {
  const endpoint = ctx.method === 'POST' && ctx.path === '/token'
    ? 'token'
    : ctx.method === 'POST' && ctx.path === '/token/revocation' ? 'revocation' : undefined
  if (endpoint === undefined) {
    await next()
    return
  }
  const body = await readAll(ctx.req)
  ctx.req = replayable(ctx.req, body)
  const params = new URLSearchParams(body.toString('utf8'))
  const authMethod: PresentedAuthMethod = /^basic /i.test(ctx.get('authorization'))
    ? 'basic'
    : params.has('client_secret') ? 'post' : 'none'

  const record = endpoint === 'token'
    ? pushed(handle.tokenRequests, {
      grantType: params.get('grant_type') ?? '',
      authMethod,
      ...optional('codeVerifier', params.get('code_verifier')),
      params,
      status: 0,
    })
    : pushed(handle.revocations, {
      token: params.get('token') ?? '',
      ...optional('tokenTypeHint', params.get('token_type_hint')),
      authMethod,
      status: 0,
    })

  if (endpoint === 'token' && handle.tokenOverride !== null) {
    record.status = sendOverride(ctx, handle.tokenOverride)
    return
  }
  const registered = handle.tokenEndpointAuthMethod === 'client_secret_basic' ? 'basic' : 'post'
  if (authMethod !== 'none' && authMethod !== registered) {
    const description = `client is registered for ${handle.tokenEndpointAuthMethod}`
    // RFC 6749 5.2: a failed attempt through the Authorization header gets a Basic challenge.
    const challenge = authMethod === 'basic'
      ? { 'www-authenticate': `Basic realm="${handle.issuer}", error="invalid_client", error_description="${description}"` }
      : undefined
    record.status = send(ctx, 401, JSON.stringify({ error: 'invalid_client', error_description: description }),
      'application/json; charset=utf-8', challenge)
    return
  }
  await next()
  record.status = ctx.status
}

/** Userinfo (`/me`): records each request and applies `userinfoOverride`. */
async function userinfo (handle: OidcProviderHandle, ctx: Ctx, next: () => Promise<unknown>): Promise<void> {
  if (ctx.path !== '/me') {
    await next()
    return
  }
  const bearer = /^bearer (.+)$/i.exec(ctx.get('authorization'))?.[1]
  const record = pushed(handle.userinfoRequests, { ...optional('accessToken', bearer), status: 0 })
  if (handle.userinfoOverride !== null) {
    record.status = sendOverride(ctx, handle.userinfoOverride)
    return
  }
  await next()
  record.status = ctx.status
}

function sendOverride (ctx: Ctx, override: HttpOverride): number {
  const { status = 200, body = '', contentType } = override
  return typeof body === 'string'
    ? send(ctx, status, body, contentType ?? 'text/plain; charset=utf-8')
    : send(ctx, status, JSON.stringify(body), contentType ?? 'application/json; charset=utf-8')
}

/** Answers directly on the Node response, bypassing Koa, so the bytes are exactly what the test asked for. */
function send (ctx: Ctx, status: number, body: string, contentType: string, headers?: Record<string, string>): number {
  ctx.respond = false
  ctx.res.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', ...headers })
  ctx.res.end(body)
  return status
}

async function readAll (req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/**
 * The request as oidc-provider's body parser sees it: the original message whose stream reads the
 * bytes already consumed here. Without this the parser falls back to `req.body` and warns.
 */
function replayable (req: IncomingMessage, body: Buffer): IncomingMessage {
  const replay = Readable.from([body])
  return new Proxy(req, {
    get (target, property) {
      if (property === 'readable') return replay.readable
      if (property === 'iterator') return replay.iterator.bind(replay)
      const value: unknown = Reflect.get(target, property, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

function pushed<T> (list: T[], item: T): T {
  list.push(item)
  return item
}

function optional<K extends string> (key: K, value: string | null | undefined): { [P in K]?: string } {
  return value === null || value === undefined ? {} : { [key]: value } as { [P in K]: string }
}

let cachedKey: JWK | undefined

/** One RSA key per process: generating it costs more than starting a provider. */
function signingKey (): JWK {
  cachedKey ??= {
    ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }),
    kid: randomUUID(),
    use: 'sig',
    alg: 'RS256',
  } as JWK
  return cachedKey
}

function clientAdapter (current: () => OidcProviderHandle): Adapter {
  const ignore = async (): Promise<undefined> => undefined
  return {
    find: async (id) => {
      const handle = current()
      if (id !== handle.clientId) return undefined
      const metadata: ClientMetadata = {
        client_id: handle.clientId,
        client_secret: handle.clientSecret,
        token_endpoint_auth_method: handle.tokenEndpointAuthMethod,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: [...handle.redirectUris],
        post_logout_redirect_uris: [...handle.postLogoutRedirectUris],
        ...(handle.backchannelLogoutUri !== undefined && { backchannel_logout_uri: handle.backchannelLogoutUri, backchannel_logout_session_required: true }),
      }
      return metadata
    },
    upsert: ignore,
    findByUid: ignore,
    findByUserCode: ignore,
    consume: ignore,
    destroy: ignore,
    revokeByGrantId: ignore,
  }
}

interface Entry {
  model: string
  payload: AdapterPayload
  expiresAt: number
}

/**
 * In-memory storage for every model but the client. A store of our own (instead of the built-in
 * development adapter) lets `revokeGrantsOf` find an account's grants.
 */
class TokenStore {
  private readonly entries = new Map<string, Entry>()

  adapter (model: string): Adapter {
    const key = (id: string) => `${model}:${id}`
    return {
      upsert: async (id, payload, expiresIn) => {
        this.entries.set(key(id), {
          model,
          payload,
          expiresAt: expiresIn === undefined ? Infinity : Date.now() + expiresIn * 1000,
        })
      },
      find: async (id) => this.get(key(id)),
      findByUid: async (uid) => this.findWhere(model, (p) => p.uid === uid),
      findByUserCode: async (userCode) => this.findWhere(model, (p) => p.userCode === userCode),
      consume: async (id) => {
        const payload = this.get(key(id))
        if (payload) payload.consumed = Math.floor(Date.now() / 1000)
      },
      destroy: async (id) => { this.entries.delete(key(id)) },
      revokeByGrantId: async (grantId) => { this.deleteWhere((e) => e.model === model && e.payload.grantId === grantId) },
    }
  }

  revokeGrantsOf (accountId: string): number {
    const grantIds = [...this.entries.entries()]
      .filter(([, e]) => e.model === 'Grant' && e.payload.accountId === accountId)
      .map(([key]) => key.slice('Grant:'.length))
    for (const grantId of grantIds) {
      this.entries.delete(`Grant:${grantId}`)
      this.deleteWhere((e) => e.payload.grantId === grantId)
    }
    return grantIds.length
  }

  private get (key: string): AdapterPayload | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    if (entry.expiresAt <= Date.now()) {
      this.entries.delete(key)
      return undefined
    }
    return entry.payload
  }

  private findWhere (model: string, match: (payload: AdapterPayload) => boolean): AdapterPayload | undefined {
    for (const [key, entry] of this.entries) {
      if (entry.model === model && match(entry.payload)) return this.get(key)
    }
    return undefined
  }

  private deleteWhere (match: (entry: Entry) => boolean): void {
    for (const [key, entry] of this.entries) {
      if (match(entry)) this.entries.delete(key)
    }
  }
}
