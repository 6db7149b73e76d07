import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import type { Config } from '../schemas/config.js'

/*
 * The state handling shared by the redirect sign-in flows (OIDC and the chat platform): a signed,
 * single-use cookie binding the callback to the browser that started the login, and the return origin.
 */

/** How long a started sign-in may take before its state is refused (the cookies live as long). */
export const TRANSACTION_SECONDS = 600
/** Redeemed states remembered at most (ten minutes of sign-ins at a very busy site). */
export const REDEEMED_STATES_MAX = 100_000

/** What the login step remembers for the callback (OIDC keeps its PKCE verifier in a cookie of its own). */
export interface LoginTransaction {
  state: string
  /** Seconds since the epoch. */
  issuedAt: number
  /** The front-end origin to send the browser back to. */
  origin: string
  /**
   * The value the browser kept when it started this sign-in (`?binding=`, in its sessionStorage), echoed
   * in the success fragment: the callback page accepts only a fragment carrying its own value, so a link
   * with someone else's tokens signs nobody in (login CSRF). '' when the start named none.
   */
  binding: string
}

/** 32 random bytes, base64url: the CSRF binding between login and callback. */
export const newState = (): string => randomBytes(32).toString('base64url')

export function encodeTransaction (t: LoginTransaction): string {
  return `${t.state}~${t.issuedAt}~${t.origin}~${t.binding}`
}

export function decodeTransaction (value: string): LoginTransaction | null {
  const match = /^([A-Za-z0-9_-]{43})~(\d{1,12})~(https?:\/\/[^~\s]+)(?:~([A-Za-z0-9_-]{0,64}))?$/.exec(value)
  if (match === null) return null
  // A cookie written before bindings existed has none: its sign-in still finishes, and the page refuses it.
  const [, state, issuedAt, origin, binding = ''] = match as unknown as [string, string, string, string, string | undefined]
  return { state, issuedAt: Number(issuedAt), origin, binding }
}

/** The success fragment: the tokens, and the browser's binding value when the start named one. */
export function successFragment (transaction: LoginTransaction, tokens: Record<string, string>): string {
  const fragment = new URLSearchParams(tokens)
  if (transaction.binding !== '') fragment.set('binding', transaction.binding)
  return fragment.toString()
}

/** Constant-time comparison of two secrets of possibly different length. */
export function sameSecret (expected: string, given: string): boolean {
  const a = Buffer.from(expected)
  const b = Buffer.from(given)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** Whether the browser may be sent back to `origin`: a CORS origin, or with none configured this service. */
export function isReturnOrigin (config: Pick<Config, 'CORS_ORIGIN'>, origin: string, self: string): boolean {
  return config.CORS_ORIGIN.length > 0 ? config.CORS_ORIGIN.includes(origin) : origin === self
}

/**
 * Where the browser goes back to after signing in or out: the Referer's origin when it is allowed
 * (see isReturnOrigin), otherwise this service's own origin. Never anything else: the flows must not
 * become an open redirect that hands a token to a stranger.
 */
export function returnOrigin (request: FastifyRequest, config: Pick<Config, 'CORS_ORIGIN'>, self: string): string {
  const referer = request.headers.referer
  if (typeof referer !== 'string' || referer === '') return self
  let url: URL
  try {
    url = new URL(referer)
  } catch {
    return self
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return self
  return isReturnOrigin(config, url.origin, self) ? url.origin : self
}
