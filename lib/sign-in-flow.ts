import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Config } from '../schemas/config.js'
import { TtlCache } from './ttl-cache.js'
import { SignInError } from '../schemas/refusals.js'

/*
 * The state handling shared by the redirect sign-in flows (OIDC and the chat platform): a signed,
 * single-use cookie binding the callback to the browser that started the login, and the return origin.
 */

/** How long a started sign-in may take before its state is refused (the cookies live as long). */
export const TRANSACTION_SECONDS = 600
/** Redeemed states remembered at most (ten minutes of sign-ins at a very busy site). */
const REDEEMED_STATES_MAX = 100_000

/** What the login step remembers for the callback (OIDC keeps its PKCE verifier in a cookie of its own). */
export interface LoginTransaction {
  state: string
  /** Seconds since the epoch. */
  issuedAt: number
  /** The front-end origin to send the browser back to. */
  origin: string
}

/** 32 random bytes, base64url: the CSRF binding between login and callback. */
export const newState = (): string => randomBytes(32).toString('base64url')

export function encodeTransaction (t: LoginTransaction): string {
  return `${t.state}~${t.issuedAt}~${t.origin}`
}

export function decodeTransaction (value: string): LoginTransaction | null {
  const match = /^([A-Za-z0-9_-]{43})~(\d{1,12})~(https?:\/\/[^~\s]+)$/.exec(value)
  if (match === null) return null
  const [, state, issuedAt, origin] = match as unknown as [string, string, string, string]
  return { state, issuedAt: Number(issuedAt), origin }
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

/**
 * One redirect sign-in flow (OIDC or the chat platform) as its routes see it: signed, HttpOnly,
 * SameSite=Lax cookies scoped to the flow's path (Secure on https) that live as long as a transaction,
 * the single-use state check, and the redirects back to the front end.
 */
export function signInFlow (fastify: FastifyInstance, cookiePath: string) {
  const { clock, config, publicOrigin } = fastify
  /**
   * States already redeemed, kept until they would have expired anyway, so that a replayed callback
   * (same URL, same cookies) is refused although the browser could resend its copy of the cookie. Per
   * instance: a replay that reaches another instance still fails at the provider, whose codes are
   * single-use. Bounded: each entry needs a sign-in start, which the auth rate limit meters.
   */
  const redeemed = new TtlCache<string, true>(clock, REDEEMED_STATES_MAX)
  const nowSeconds = () => Math.floor(clock.now() / 1000)

  /** Records the state; false when it was redeemed before. */
  function redeemOnce (state: string): boolean {
    if (redeemed.get(state) === true) return false
    redeemed.set(state, true, TRANSACTION_SECONDS * 1000)
    return true
  }
  const secure = (request: FastifyRequest) => publicOrigin(request).startsWith('https:')
  /**
   * On https the cookies carry the `__Host-` prefix: the browser then accepts them only Secure, for this
   * exact host and path `/`, so neither a sibling subdomain nor plain http can plant or overwrite them.
   * The prefix demands path `/`; the flow-specific names keep the flows apart.
   */
  const cookieName = (request: FastifyRequest, name: string) => secure(request) ? `__Host-${name}` : name
  const cookieOptions = (request: FastifyRequest) =>
    ({ path: secure(request) ? '/' : cookiePath, httpOnly: true, sameSite: 'lax', secure: secure(request) }) as const

  function readCookie (request: FastifyRequest, name: string): string | null {
    // Optional chaining: an error handler may run for a request that failed before cookies were parsed.
    const raw = request.cookies?.[cookieName(request, name)]
    if (raw === undefined) return null
    const unsigned = request.unsignCookie(raw)
    return unsigned.valid ? unsigned.value : null
  }

  return {
    /** Starts a transaction for `state`: remembers it and the return origin in the state cookie. */
    begin (request: FastifyRequest, reply: FastifyReply, cookieName: string, state: string): void {
      const transaction = { state, issuedAt: nowSeconds(), origin: returnOrigin(request, config, publicOrigin(request)) }
      this.setCookie(request, reply, cookieName, encodeTransaction(transaction))
    },

    setCookie (request: FastifyRequest, reply: FastifyReply, name: string, value: string): void {
      reply.setCookie(cookieName(request, name), value, { ...cookieOptions(request), signed: true, maxAge: TRANSACTION_SECONDS })
    },

    clear (request: FastifyRequest, reply: FastifyReply, name: string): void {
      reply.clearCookie(cookieName(request, name), cookieOptions(request))
    },

    /** Reads a flow cookie and clears it: whatever happens next, it is used up. */
    take (request: FastifyRequest, reply: FastifyReply, name: string): string | null {
      const value = readCookie(request, name)
      this.clear(request, reply, name)
      return value
    },

    /**
     * The started transaction and where to send the browser. The origin is checked again: the allowed
     * origins may have changed since the login step.
     */
    takeTransaction (request: FastifyRequest, reply: FastifyReply, cookieName: string): { transaction: LoginTransaction | null, origin: string } {
      const value = this.take(request, reply, cookieName)
      const transaction = value === null ? null : decodeTransaction(value)
      const self = publicOrigin(request)
      const origin = transaction !== null && isReturnOrigin(config, transaction.origin, self) ? transaction.origin : self
      return { transaction, origin }
    },

    /** The callback's state matches the transaction's, in time, and was never redeemed before. */
    redeem (transaction: LoginTransaction | null, state: string | undefined): transaction is LoginTransaction {
      const now = nowSeconds()
      return transaction !== null && state !== undefined && sameSecret(transaction.state, state) &&
        transaction.issuedAt + TRANSACTION_SECONDS > now && redeemOnce(transaction.state)
    },

    /** Success: the token travels in the fragment, which no cache may keep. */
    succeed (reply: FastifyReply, url: string): FastifyReply {
      return reply.header('cache-control', 'no-store').redirect(url, 302)
    },

    fail (reply: FastifyReply, origin: string, code: string): FastifyReply {
      return reply.redirect(`${origin}/login#error=${encodeURIComponent(code)}`, 302)
    },

    /**
     * A sign-in that threw: a refusal logs itself and sends its reason to the login page; anything else is
     * `server_error`, logged by kind only (messages of database or library errors may quote tokens or codes).
     */
    failWith (request: FastifyRequest, reply: FastifyReply, origin: string, method: string, error: unknown): FastifyReply {
      if (error instanceof SignInError) {
        error.logTo(request.log, method)
        return this.fail(reply, origin, error.reason)
      }
      const { name, code } = error as { name?: unknown, code?: unknown }
      request.log.error({ kind: name, code }, `${method} sign-in failed unexpectedly`)
      return this.fail(reply, origin, 'server_error')
    }
  }
}
