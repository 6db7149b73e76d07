import type { Static } from '@sinclair/typebox'
import type { FieldProblemSchema } from '../../../schemas/common'
import type { RefreshResponseSchema } from '../../../schemas/refresh-sessions'
import { markSpent, storageMovedPast, wasSpent, withRefreshLock } from '../cross-tab'
import { clearSession, getRefreshToken, getSignInMethod, getToken, msUntilExpiry, storeTokens } from '../session'

/** Refresh this long before the JWT expires, so no request leaves with a token that dies in flight. */
const REFRESH_AHEAD_MS = 60_000

/** One field the server refused, as in a 400's `details` (`field` is a JSON pointer such as `/min_iv`). */
export type FieldProblem = Static<typeof FieldProblemSchema>

export class ApiError extends Error {
  /** `body` is the whole error answer, for routes that explain more than `details` holds. */
  constructor (readonly status: number, message: string, readonly details: FieldProblem[] = [], readonly body?: unknown) {
    super(message)
    this.name = 'ApiError'
  }
}

export interface RequestOptions {
  method?: string
  json?: unknown
  signal?: AbortSignal | undefined
}

type RefreshResponse = Static<typeof RefreshResponseSchema>

async function send (path: string, options: RequestOptions, token: string | null): Promise<Response> {
  const headers = new Headers({ Accept: 'application/json' })
  if (token !== null) headers.set('Authorization', `Bearer ${token}`)
  // Answers are per user and per moment: never from the HTTP cache, which would also make identical
  // requests from several tabs wait for one another.
  const init: RequestInit = { method: options.method ?? 'GET', headers, cache: 'no-store' }
  if (options.json !== undefined) {
    headers.set('Content-Type', 'application/json')
    init.body = JSON.stringify(options.json)
  }
  if (options.signal !== undefined) init.signal = options.signal
  try {
    return await fetch(path, init)
  } catch (err) {
    if (options.signal?.aborted === true) throw err
    throw new ApiError(0, 'The server could not be reached. Check your connection and try again.')
  }
}

async function parse<T> (res: Response): Promise<T> {
  const body: unknown = res.status === 204 ? undefined : await res.json().catch(() => undefined)
  if (!res.ok) {
    const { error, details } = (body ?? {}) as { error?: unknown, details?: unknown }
    throw new ApiError(res.status, typeof error === 'string' ? error : `Request failed (${res.status})`, Array.isArray(details) ? details as FieldProblem[] : [], body)
  }
  return body as T
}

/** A request outside the session: no bearer token, no refresh (sign-in options, sign-out). */
export async function publicApi<T> (path: string, options: RequestOptions = {}): Promise<T> {
  return await parse<T>(await send(path, options, null))
}

let refreshing: Promise<string | null> | null = null

/** The first wait after a refresh the server could not do now (an engine outage: 503), doubled up to the cap. */
const RETRY_FIRST_MS = 2_000
const RETRY_CAP_MS = 60_000
/** While set, a refresh failed for a moment: no new attempt before `at`, and one is made then by itself. */
let backoff: { at: number, delayMs: number, timer: ReturnType<typeof setTimeout> } | null = null

/**
 * A refresh the server could not do now (429, 5xx: the alarm engine down or hanging): the member stays
 * signed in, and the refresh is tried again by itself after the server's Retry-After or the next step of
 * the backoff (2 s, 4 s, ... up to a minute), so a page left open renews as soon as the server can.
 */
function retryLater (res: Response): ApiError {
  const asked = Number(res.headers.get('retry-after')) * 1000
  const delayMs = Math.min(RETRY_CAP_MS, Math.max(Number.isFinite(asked) ? asked : 0, backoff === null ? RETRY_FIRST_MS : backoff.delayMs * 2))
  if (backoff !== null) clearTimeout(backoff.timer)
  backoff = { at: Date.now() + delayMs, delayMs, timer: setTimeout(retryNow, delayMs) }
  return new ApiError(res.status, 'Your session could not be renewed right now.')
}

/** The backoff's own attempt: its window is over, whatever the timer's precision. */
function retryNow (): void {
  if (backoff !== null) backoff.at = 0
  void refreshSession(getToken()).catch(() => undefined)
}

function renewed (): void {
  if (backoff !== null) clearTimeout(backoff.timer)
  backoff = null
}

/**
 * Rotates the tokens. Resolves to the JWT to use, or null when the session cannot go on. Throws an
 * ApiError for temporary failures (network, rate limit, server error), which keep the session.
 */
async function rotate (staleToken: string | null): Promise<string | null> {
  const current = getToken()
  // Another request of this tab, or another tab, rotated the tokens while this one waited.
  if (current !== null && current !== staleToken) return current
  const refreshToken = getRefreshToken()
  if (current === null || refreshToken === null) return null
  if (await wasSpent(refreshToken)) {
    await storageMovedPast(refreshToken)
    return getRefreshToken() === refreshToken ? null : getToken()
  }
  const res = await send('/api/auth/oidc/refresh', { method: 'POST', json: { refreshToken } }, null)
  if (res.status === 429 || res.status >= 500) throw retryLater(res)
  if (!res.ok) return null
  const body = await parse<RefreshResponse>(res)
  storeTokens(body.token, body.refreshToken)
  await markSpent(refreshToken)
  renewed()
  return body.token
}

/**
 * One refresh for every caller that needs one now; concurrent 401s wait for the same rotation. Inside a
 * backoff window no request is sent (the timer of `retryLater` makes the next one): the caller keeps
 * its token, or is told the session could not be renewed right now.
 */
function refreshSession (staleToken: string | null): Promise<string | null> {
  if (backoff !== null && Date.now() < backoff.at && refreshing === null) {
    return Promise.reject(new ApiError(503, 'Your session could not be renewed right now.'))
  }
  refreshing ??= withRefreshLock(async () => await rotate(staleToken)).finally(() => { refreshing = null })
  return refreshing
}

/** The login address the page is leaving for, once a request has ended the session. */
let leavingFor: string | null = null

/**
 * The session is over (refresh refused, a 401 that no refresh can fix, or the account was blocked):
 * back to the login page, which explains `reason` when there is one.
 */
function endSession (reason?: string): never {
  clearSession()
  const to = reason === undefined ? '/login' : `/login#error=${reason}`
  // Requests in flight together end the session together: the page leaves once, since a second navigation
  // cancels the first, unless a later one knows why the session ended and the first did not.
  if (leavingFor === null || (leavingFor === '/login' && to !== leavingFor)) {
    leavingFor = to
    window.location.replace(to)
  }
  throw new ApiError(401, 'Your session has ended. Please sign in again.')
}

/**
 * A request in the session: bearer token, a proactive refresh shortly before the JWT expires (when a
 * refresh token is stored), and on a 401 one refresh and one retry.
 */
export async function api<T> (path: string, options: RequestOptions = {}): Promise<T> {
  let token = getToken()
  const expiresIn = token === null ? null : msUntilExpiry(token)
  if (token !== null && getRefreshToken() !== null && expiresIn !== null && expiresIn < REFRESH_AHEAD_MS) {
    // After a temporary failure the current token is still good for up to a minute.
    token = await refreshSession(token).catch(() => token)
    if (token === null) endSession()
  }
  let res = await send(path, options, token)
  if (res.status === 401 && token !== null) {
    token = await refreshSession(token)
    if (token === null) endSession()
    res = await send(path, options, token)
    if (res.status === 401) endSession()
  }
  // The server's code for a 403 that ends the session (see plugins/blocked-accounts.ts).
  if (res.status === 403 && (await res.clone().json().catch(() => undefined) as { code?: unknown } | undefined)?.code === 'account_blocked') {
    endSession('account_blocked')
  }
  return await parse<T>(res)
}

/**
 * Signs out: revokes the refresh session, forgets the tokens, and for SSO sign-ins lets the server
 * end the provider's session too (it lands on the signed-out page either way).
 */
export async function signOut (): Promise<void> {
  const refreshToken = getRefreshToken()
  const token = getToken()
  const sso = getSignInMethod() === 'oidc'
  if (token !== null) {
    // Ends this sign-in on the server (its refresh family, or its token), so a copy of it is dead too.
    await fetch('/api/auth/logout', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(refreshToken !== null ? { refreshToken } : {})
    }).catch(() => undefined)
  }
  if (refreshToken !== null) {
    await publicApi('/api/auth/oidc/refresh/revoke', { method: 'POST', json: { refreshToken } }).catch(() => undefined)
  }
  clearSession()
  window.location.assign(sso ? '/api/auth/oidc/logout' : '/login?loggedout=1')
}

/** A query as a caller builds it: any parameter may be left undefined. */
export type Query<T> = { [K in keyof T]?: T[K] | undefined }

/** `path` with `params` as its query string; undefined values are left out. */
export function withQuery (path: string, params: Record<string, string | number | boolean | undefined>): string {
  const query = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) if (value !== undefined) query.set(key, String(value))
  const text = query.toString()
  return text === '' ? path : `${path}?${text}`
}

/** One path segment taken from data (an id, a key): escaped, so it cannot reach another route. */
export const segment = (value: string | number): string => encodeURIComponent(String(value))
