/**
 * The browser session lives in localStorage so that every open tab shares one: the app JWT, the
 * optional opaque refresh token (refresh-backed SSO sessions only), and how the user signed in,
 * because signing out of an SSO session also ends the provider's session.
 */
const TOKEN_KEY = 'aw.token'
const REFRESH_TOKEN_KEY = 'aw.refreshToken'
const SIGN_IN_KEY = 'aw.signIn'
/** An administrator's own tokens, put aside while they view the site as someone else. */
export const VIEW_AS_KEY = 'aw.viewAs.adminTokens'

export type SignInMethod = 'oidc' | 'discord' | 'telegram'

export const getToken = (): string | null => localStorage.getItem(TOKEN_KEY)
export const getRefreshToken = (): string | null => localStorage.getItem(REFRESH_TOKEN_KEY)
export const getSignInMethod = (): SignInMethod | null => localStorage.getItem(SIGN_IN_KEY) as SignInMethod | null

/**
 * Starts a new session. A sign-in without a refresh token removes any stored one, so a chat-platform
 * sign-in never inherits an earlier SSO session's refresh token.
 */
export function startSession (method: SignInMethod, token: string, refreshToken: string | null): void {
  localStorage.setItem(SIGN_IN_KEY, method)
  storeTokens(token, refreshToken)
}

/** Replaces the tokens of the current session (after a refresh, or a re-issued JWT). */
export function storeTokens (token: string, refreshToken: string | null): void {
  localStorage.setItem(TOKEN_KEY, token)
  if (refreshToken === null) localStorage.removeItem(REFRESH_TOKEN_KEY)
  else localStorage.setItem(REFRESH_TOKEN_KEY, refreshToken)
}

export function clearSession (): void {
  for (const key of [TOKEN_KEY, REFRESH_TOKEN_KEY, SIGN_IN_KEY, VIEW_AS_KEY]) localStorage.removeItem(key)
}

/** Milliseconds until the JWT's `exp` claim; null when the token carries none. */
export function msUntilExpiry (token: string, now = Date.now()): number | null {
  const payload = token.split('.')[1]
  if (payload === undefined) return null
  try {
    const claims = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: unknown }
    return typeof claims.exp === 'number' ? claims.exp * 1000 - now : null
  } catch {
    return null
  }
}

/**
 * Calls `listener` when another tab signs in or out. Token rotations are not reported: every request
 * reads the current token from storage anyway.
 */
export function onOtherTabSignInChange (listener: (signedIn: boolean) => void): () => void {
  const handler = (event: StorageEvent): void => {
    if (event.storageArea !== localStorage || event.key !== TOKEN_KEY) return
    if ((event.oldValue === null) !== (event.newValue === null)) listener(event.newValue !== null)
  }
  window.addEventListener('storage', handler)
  return () => window.removeEventListener('storage', handler)
}

/** The value this tab keeps from the moment it starts a redirect sign-in (OIDC, the chat platform). */
const SIGN_IN_BINDING_KEY = 'aw.signInBinding'

/**
 * The address that starts a redirect sign-in, bound to this tab: a fresh random value is kept in
 * sessionStorage and sent along; the server echoes it in the success fragment, and only a fragment
 * carrying it is accepted (`takeSignInBinding`). A link holding someone else's tokens signs nobody in.
 */
export function boundSignInUrl (url: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24))
  const binding = btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
  sessionStorage.setItem(SIGN_IN_BINDING_KEY, binding)
  return `${url}?binding=${binding}`
}

/** Whether `binding` is the value this tab kept for the sign-in it started; the kept value is used up either way. */
export function takeSignInBinding (binding: string | null): boolean {
  const kept = sessionStorage.getItem(SIGN_IN_BINDING_KEY)
  sessionStorage.removeItem(SIGN_IN_BINDING_KEY)
  return kept !== null && binding !== null && kept === binding
}

const RETURN_KEY = 'aw.signIn.returnTo'
/** Only a shared set's link is a place to come back to after signing in: never an address from elsewhere. */
const RETURNABLE = /^\/s\/[A-Za-z0-9_-]{22}$/

/** A signed-out visitor opened a shared set's link: after signing in, this tab lands back on it. */
export function rememberReturnPath (path: string): void {
  if (RETURNABLE.test(path)) sessionStorage.setItem(RETURN_KEY, path)
}

/** Where a fresh sign-in goes: the remembered link (once), else home. */
export function takeReturnPath (): string {
  const path = sessionStorage.getItem(RETURN_KEY)
  sessionStorage.removeItem(RETURN_KEY)
  return path !== null && RETURNABLE.test(path) ? path : '/'
}
