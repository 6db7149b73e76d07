import * as oauth from 'oauth4webapi'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { SignInError } from '../../schemas/refusals.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { TtlCache } from '../../lib/ttl-cache.js'
import { mapIdentity, type MappedIdentity } from './oidc-client/identity-claims.js'
import { createLogoutTokens } from './oidc-client/logout-tokens.js'

/** How long one call to the provider may take before it counts as failed. */
const PROVIDER_TIMEOUT_MS = 10_000

export type OidcCallFailure = 'oidc_token_exchange_failed' | 'oidc_userinfo_failed'

/**
 * A failed call to the provider. Every field is safe to log: `failure` names what went wrong
 * (`timeout`, `unreachable`, `status`, an oauth4webapi error code, ...), `providerError` is the OAuth
 * error the provider answered (`invalid_grant`, `invalid_client`, ...). Tokens, codes and response
 * bodies are never kept on it.
 */
export class OidcClientError extends SignInError {
  constructor (
    code: OidcCallFailure,
    readonly failure: string,
    readonly status?: number,
    readonly providerError?: string,
    /** A timeout, network error, 5xx or 429: worth retrying later, unlike a refusal. */
    readonly transient = false
  ) {
    super(code, `${code}: ${failure}${status !== undefined ? ` (HTTP ${status})` : ''}${providerError !== undefined ? ` ${providerError}` : ''}`)
    this.name = 'OidcClientError'
  }

  /** A failure at the provider is worth a warning: the provider or its configuration may be at fault. */
  override logTo (log: FastifyBaseLogger, method: string): void {
    log.warn({ code: this.reason, failure: this.failure, status: this.status, providerError: this.providerError }, `${method} sign-in failed at the provider`)
  }
}

/** The tokens of a completed code exchange; the access token is for userinfo only and then dropped. */
export interface CodeExchange {
  accessToken: string
  refreshToken?: string
  /** `sub` of the id_token, when the provider sent one. */
  idTokenSubject?: string
  /** `sid` of the id_token: the provider's session, named again by back-channel logout. */
  idTokenSid?: string
  /** The issuer in use for this sign-in ('' when the provider never named one); kept for refresh. */
  issuer: string
}

const OAUTH_ERROR = /^[\w.-]{1,64}$/
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Top-level members whose value is an integer literal beyond 2^53, exactly as written. JSON.parse
 * rounds them (chat-platform ids are 18-20 digits), which would sign a user in as a different id.
 * Runs only on text JSON.parse has accepted, so a simple token walk is enough.
 */
function bigIntegerMembers (text: string): Map<string, string> {
  const found = new Map<string, string>()
  const tokens = text.match(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|[{}[\]:,]|true|false|null/g) ?? []
  let depth = 0
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as string
    if (token === '{' || token === '[') depth++
    else if (token === '}' || token === ']') depth--
    else if (depth === 1 && token.startsWith('"') && tokens[i + 1] === ':') {
      const value = tokens[i + 2] ?? ''
      if (/^-?\d+$/.test(value) && !Number.isSafeInteger(Number(value))) found.set(JSON.parse(token) as string, value)
    }
  }
  return found
}

/** The parts of an unverified id_token the processing needs before it can check the rest. */
function idTokenHints (body: unknown): { alg?: string, iss?: string } {
  const idToken = isObject(body) ? body.id_token : undefined
  if (typeof idToken !== 'string') return {}
  const decode = (part: string | undefined): Record<string, unknown> => {
    try {
      const value: unknown = JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8'))
      return isObject(value) ? value : {}
    } catch {
      return {}
    }
  }
  const [header, payload] = idToken.split('.')
  const { alg } = decode(header)
  const { iss } = decode(payload)
  return { ...(typeof alg === 'string' && { alg }), ...(typeof iss === 'string' && iss !== '' && { iss }) }
}

function failure (code: OidcCallFailure, error: unknown): OidcClientError {
  if (error instanceof OidcClientError) return error
  if (error instanceof oauth.ResponseBodyError) {
    return new OidcClientError(code, 'error_response', error.status, OAUTH_ERROR.test(error.error) ? error.error : 'invalid', error.status >= 500 || error.status === 429)
  }
  if (error instanceof oauth.WWWAuthenticateChallengeError) {
    const challenged = error.cause[0]?.parameters.error
    return new OidcClientError(code, 'challenge', error.response.status, typeof challenged === 'string' && OAUTH_ERROR.test(challenged) ? challenged : undefined)
  }
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return new OidcClientError(code, 'timeout', undefined, undefined, true)
  if (error instanceof oauth.OperationProcessingError) {
    const status = error.cause instanceof Response ? error.cause.status : undefined
    return new OidcClientError(code, error.code ?? 'invalid_response', status, undefined, status !== undefined && (status >= 500 || status === 429))
  }
  if (error instanceof TypeError && error.message === 'fetch failed') return new OidcClientError(code, 'unreachable', undefined, undefined, true)
  const named = error as { code?: unknown, name?: unknown }
  return new OidcClientError(code, typeof named.code === 'string' ? named.code : typeof named.name === 'string' ? named.name : 'unknown')
}

/** How long the provider's discovery document is reused (a failed read is retried after a minute). */
const DISCOVERY_TTL_MS = 3_600_000
const DISCOVERY_RETRY_MS = 60_000

/** What the service reads from the provider's discovery document. */
export interface ProviderMetadata {
  /** RFC 9207: the provider puts `iss` on every authorization response, so one without it is refused. */
  issParameterSupported: boolean
  jwksUri?: string
  backchannelLogoutSupported: boolean
}

function createOidcClient (fastify: FastifyInstance) {
  const { config, clock, log } = fastify
  const client: oauth.Client = { client_id: config.OIDC_CLIENT_ID }
  const discovered = new TtlCache<string, ProviderMetadata>(clock, 1)

  /**
   * OIDC_ISSUER's discovery document, when an issuer is configured (without one there is no trusted
   * place to read it from). Unreadable: nothing is announced, and the read is tried again a minute later.
   */
  async function metadata (): Promise<ProviderMetadata> {
    const none: ProviderMetadata = { issParameterSupported: false, backchannelLogoutSupported: false }
    if (config.OIDC_ISSUER === '') return none
    return discovered.getOrLoad('issuer', async () => {
      try {
        const issuer = new URL(config.OIDC_ISSUER)
        const response = await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...httpOptions(config.OIDC_ISSUER) })
        const as = await oauth.processDiscoveryResponse(issuer, response)
        return {
          value: {
            issParameterSupported: as.authorization_response_iss_parameter_supported === true,
            ...(typeof as.jwks_uri === 'string' && { jwksUri: as.jwks_uri }),
            backchannelLogoutSupported: (as as Record<string, unknown>).backchannel_logout_supported === true
          },
          ttlMs: DISCOVERY_TTL_MS
        }
      } catch (error) {
        log.warn({ kind: (error as { code?: string }).code ?? (error as Error).name }, 'the provider\'s discovery document could not be read')
        return { value: none, ttlMs: DISCOVERY_RETRY_MS }
      }
    })
  }

  /**
   * The provider as oauth4webapi sees it. The library needs an issuer for every call, even where
   * nothing is compared with it; the token endpoint stands in then.
   */
  function server (issuer: string): oauth.AuthorizationServer {
    return {
      issuer: issuer !== '' ? issuer : config.OIDC_TOKEN_URL,
      authorization_endpoint: config.OIDC_AUTHORIZATION_URL,
      token_endpoint: config.OIDC_TOKEN_URL,
      userinfo_endpoint: config.OIDC_USERINFO_URL,
      ...(config.OIDC_REVOCATION_URL !== '' && { revocation_endpoint: config.OIDC_REVOCATION_URL })
    }
  }

  /** A timeout on every call; plain http only where the operator configured an http:// URL. */
  function httpOptions (url: string) {
    return { signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS), ...(url.startsWith('http:') && { [oauth.allowInsecureRequests]: true }) }
  }

  function clientAuth (): oauth.ClientAuth {
    if (config.OIDC_CLIENT_SECRET === '') return oauth.None()
    return config.OIDC_TOKEN_AUTH_METHOD === 'client_secret_basic'
      ? oauth.ClientSecretBasic(config.OIDC_CLIENT_SECRET)
      : oauth.ClientSecretPost(config.OIDC_CLIENT_SECRET)
  }

  /** OIDC_ISSUER wins; else the issuer recorded at sign-in; else the one the id_token names. */
  const issuerFor = (recorded: string) => config.OIDC_ISSUER !== '' ? config.OIDC_ISSUER : recorded

  /**
   * Validates a token response with oauth4webapi. An id_token is not signature-checked (the spec relies
   * on the token and userinfo endpoints only; it comes straight from the configured token endpoint,
   * OIDC Core 3.1.3.7), but its iss, aud and expiry are, against the algorithm it declares. With no
   * issuer known yet, the id_token's own `iss` becomes the issuer.
   */
  async function processTokens (
    recorded: string,
    response: Response,
    process: (as: oauth.AuthorizationServer, client: oauth.Client, response: Response) => Promise<oauth.TokenEndpointResponse>
  ): Promise<{ tokens: oauth.TokenEndpointResponse, issuer: string }> {
    const hints = idTokenHints(await response.clone().json().catch(() => undefined))
    const known = issuerFor(recorded)
    const issuer = known !== '' ? known : hints.iss ?? ''
    const checked: oauth.Client = hints.alg !== undefined ? { ...client, id_token_signed_response_alg: hints.alg } : client
    return { tokens: await process(server(issuer), checked, response), issuer }
  }

  function missingConfiguration (): string[] {
    const missing: string[] = []
    if (!config.OIDC_ENABLED) missing.push('OIDC_ENABLED is false')
    for (const key of ['OIDC_CLIENT_ID', 'OIDC_AUTHORIZATION_URL', 'OIDC_TOKEN_URL', 'OIDC_USERINFO_URL'] as const) {
      if (config[key] === '') missing.push(key)
    }
    return missing
  }

  /** OIDC_SCOPES, plus the offline-access scope when refresh sessions are on and it is not there yet. */
  function scope (): string {
    const scopes = config.OIDC_SCOPES.split(/\s+/).filter((s) => s !== '')
    const offline = config.OIDC_OFFLINE_ACCESS_SCOPE.trim()
    if (config.OIDC_USE_REFRESH_TOKENS && offline !== '' && !scopes.includes(offline)) scopes.push(offline)
    return scopes.length > 0 ? scopes.join(' ') : 'openid'
  }

  /** OIDC_ENABLED plus the client id and the three endpoint URLs. */
  const isConfigured = (): boolean => missingConfiguration().length === 0

  return {
    metadata,
    isConfigured,

    /**
     * SSO mode: the login page sends everyone to the provider. Opt-in (only an explicit "true" of
     * enable_oidc), and AUTH_FORCE_LOCAL overrides it so that a broken provider cannot lock admins out.
     * The two admin switches read the site settings when asked: the provider client itself needs none.
     */
    async ssoEnabledByAdmin (): Promise<boolean> {
      return !config.AUTH_FORCE_LOCAL && await fastify.siteSettings.isTrue('enable_oidc')
    },

    /** Single logout: OIDC configured, an end-session URL, and enable_oidc_slo not explicitly "false". */
    async singleLogoutAvailable (): Promise<boolean> {
      return isConfigured() && config.OIDC_END_SESSION_URL !== '' && await fastify.siteSettings.isNotFalse('enable_oidc_slo')
    },

    /** What keeps OIDC from being configured, for the operator ('OIDC_TOKEN_URL', ...). */
    missingConfiguration,
    scope,

    /**
     * A new authorization request: the provider URL (its own query string kept) with a fresh state and,
     * with OIDC_USE_PKCE, an S256 challenge whose verifier the caller keeps for the callback.
     */
    async startLogin (redirectUri: string): Promise<{ url: string, state: string, verifier?: string }> {
      const state = oauth.generateRandomState()
      const url = new URL(config.OIDC_AUTHORIZATION_URL)
      url.searchParams.set('client_id', config.OIDC_CLIENT_ID)
      url.searchParams.set('redirect_uri', redirectUri)
      url.searchParams.set('response_type', 'code')
      url.searchParams.set('scope', scope())
      url.searchParams.set('state', state)
      if (!config.OIDC_USE_PKCE) return { url: url.href, state }
      const verifier = oauth.generateRandomCodeVerifier()
      url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier))
      url.searchParams.set('code_challenge_method', 'S256')
      return { url: url.href, state, verifier }
    },

    /**
     * Checks the callback parameters (RFC 9207 `iss`, duplicates, state, no implicit-flow leftovers).
     * The issuer is OIDC_ISSUER, else the callback's `iss`, else still unknown (''). Throws
     * SignInError('oidc_provider_error') for anything the provider should not have sent.
     */
    async validateCallback (params: URLSearchParams, expectedState: string): Promise<{ params: URLSearchParams, issuer: string }> {
      const issuer = config.OIDC_ISSUER !== '' ? config.OIDC_ISSUER : params.get('iss') ?? ''
      const announced = await metadata()
      const as = { ...server(issuer), ...(announced.issParameterSupported && { authorization_response_iss_parameter_supported: true }) }
      try {
        return { params: oauth.validateAuthResponse(as, client, params, expectedState), issuer }
      } catch (error) {
        throw new SignInError('oidc_provider_error', `callback refused: ${(error as { code?: string }).code ?? 'invalid'}`)
      }
    },

    /** The authorization-code grant at OIDC_TOKEN_URL with OIDC_TOKEN_AUTH_METHOD. */
    async exchangeCode (params: URLSearchParams, options: { issuer: string, redirectUri: string, verifier?: string }): Promise<CodeExchange> {
      try {
        const response = await oauth.authorizationCodeGrantRequest(server(options.issuer), client, clientAuth(), params,
          options.redirectUri, options.verifier ?? oauth.nopkce, httpOptions(config.OIDC_TOKEN_URL))
        const { tokens, issuer } = await processTokens(options.issuer, response, oauth.processAuthorizationCodeResponse)
        const idClaims = oauth.getValidatedIdTokenClaims(tokens)
        const subject = idClaims?.sub
        const sid = typeof idClaims?.sid === 'string' && idClaims.sid !== '' ? idClaims.sid : undefined
        return {
          accessToken: tokens.access_token,
          issuer,
          ...(sid !== undefined && { idTokenSid: sid }),
          ...(tokens.refresh_token !== undefined && { refreshToken: tokens.refresh_token }),
          ...(subject !== undefined && { idTokenSubject: subject })
        }
      } catch (error) {
        throw failure('oidc_token_exchange_failed', error)
      }
    },

    /**
     * The refresh-token grant, same client authentication. `issuer` is the one recorded at sign-in.
     * The answer's refresh token is absent when the provider does not rotate.
     */
    async refresh (providerRefreshToken: string, issuer: string): Promise<{ accessToken: string, refreshToken?: string, idTokenSubject?: string }> {
      try {
        const response = await oauth.refreshTokenGrantRequest(server(issuerFor(issuer)), client, clientAuth(), providerRefreshToken,
          httpOptions(config.OIDC_TOKEN_URL))
        const { tokens } = await processTokens(issuer, response, oauth.processRefreshTokenResponse)
        const subject = oauth.getValidatedIdTokenClaims(tokens)?.sub
        return {
          accessToken: tokens.access_token,
          ...(tokens.refresh_token !== undefined && { refreshToken: tokens.refresh_token }),
          ...(subject !== undefined && { idTokenSubject: subject })
        }
      } catch (error) {
        throw failure('oidc_token_exchange_failed', error)
      }
    },

    /**
     * GET OIDC_USERINFO_URL with the bearer token. Any answer but a 200 with a JSON object fails. A
     * numeric `sub` becomes text and integers too large for a JavaScript number keep their exact digits
     * (as text). A `sub` that differs from `expectedSubject` fails (OIDC Core 5.3.2); a body without
     * `sub` is left to the identity mapping.
     */
    async userinfo (accessToken: string, expectedSubject?: string): Promise<Record<string, unknown>> {
      let text: string
      try {
        const response = await oauth.userInfoRequest(server(''), client, accessToken, httpOptions(config.OIDC_USERINFO_URL))
        if (response.status !== 200) {
          await response.body?.cancel()
          throw new OidcClientError('oidc_userinfo_failed', 'status', response.status, undefined, response.status >= 500 || response.status === 429)
        }
        text = await response.text()
      } catch (error) {
        throw failure('oidc_userinfo_failed', error)
      }
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        throw new OidcClientError('oidc_userinfo_failed', 'not_json', 200)
      }
      if (!isObject(body)) throw new OidcClientError('oidc_userinfo_failed', 'not_an_object', 200)
      for (const [name, digits] of bigIntegerMembers(text)) body[name] = digits
      if (typeof body.sub === 'number') body.sub = String(body.sub)
      if (expectedSubject !== undefined && body.sub !== undefined && body.sub !== expectedSubject) {
        throw new OidcClientError('oidc_userinfo_failed', 'subject_mismatch', 200)
      }
      return body
    },

    /** Who the userinfo says the user is (`oidc-client/identity-claims.ts`). */
    mapIdentity: (userinfo: Record<string, unknown>): MappedIdentity => mapIdentity(config, userinfo),

    /** RFC 7009 revocation of a provider refresh token at OIDC_REVOCATION_URL; nothing without one. */
    async revoke (providerRefreshToken: string): Promise<void> {
      if (config.OIDC_REVOCATION_URL === '') return
      try {
        const response = await oauth.revocationRequest(server(''), client, clientAuth(), providerRefreshToken, {
          ...httpOptions(config.OIDC_REVOCATION_URL),
          additionalParameters: { token_type_hint: 'refresh_token' }
        })
        await oauth.processRevocationResponse(response)
      } catch (error) {
        throw failure('oidc_token_exchange_failed', error)
      }
    },

    /** Verifies a back-channel logout token (`oidc-client/logout-tokens.ts`); throws LogoutTokenRefused. */
    verifyLogoutToken: createLogoutTokens(fastify, metadata, PROVIDER_TIMEOUT_MS),

    /** RP-initiated logout: the end-session URL (its own query string kept) for this client. */
    endSessionUrl (postLogoutRedirectUri: string): string {
      const url = new URL(config.OIDC_END_SESSION_URL)
      url.searchParams.set('post_logout_redirect_uri', postLogoutRedirectUri)
      url.searchParams.set('client_id', config.OIDC_CLIENT_ID)
      return url.href
    }
  }
}

export type OidcClient = ReturnType<typeof createOidcClient>

declare module 'fastify' {
  interface FastifyInstance {
    /** The relying party's side of external OIDC sign-in: every call to the provider goes through it. */
    oidcClient: OidcClient
  }
}

export default decoratorPlugin('oidc-client', createOidcClient, ['config', 'clock'])
