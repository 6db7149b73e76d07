import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import {
  REDEEMED_STATES_MAX, TRANSACTION_SECONDS, decodeTransaction, encodeTransaction, isReturnOrigin, returnOrigin, sameSecret,
  type LoginTransaction
} from '../../lib/sign-in-flow.js'
import { TtlCache } from '../../lib/ttl-cache.js'
import { SignInError } from '../../schemas/refusals.js'

/**
 * One redirect sign-in flow (OIDC or the chat platform) as its routes see it: signed, HttpOnly,
 * SameSite=Lax cookies scoped to the flow's path (Secure on https) that live as long as a transaction,
 * the single-use state check, and the redirects back to the front end.
 */
function createFlow (fastify: FastifyInstance, cookiePath: string) {
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
    /** Starts a transaction for `state`: remembers it, the return origin and the browser's binding value in the state cookie. */
    begin (request: FastifyRequest, reply: FastifyReply, cookieName: string, state: string, binding = ''): void {
      const transaction = { state, issuedAt: nowSeconds(), origin: returnOrigin(request, config, publicOrigin(request)), binding }
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

function createSignInFlows (fastify: FastifyInstance) {
  return {
    /**
     * A flow for the routes under `cookiePath` (its cookies are scoped there on plain http), with its own
     * record of redeemed states: each sign-in route folder makes one when it registers.
     */
    create (cookiePath: string): SignInFlow {
      return createFlow(fastify, cookiePath)
    }
  }
}

export type SignInFlow = ReturnType<typeof createFlow>
export type SignInFlows = ReturnType<typeof createSignInFlows>

declare module 'fastify' {
  interface FastifyInstance {
    /** The redirect sign-in flows (OIDC and the chat platform): state cookies, single-use states, redirects. */
    signInFlows: SignInFlows
  }
}

/** The state handling every redirect sign-in shares, one flow per sign-in route folder. */
export default decoratorPlugin('sign-in-flows', createSignInFlows, ['clock', 'config', 'proxy-trust', 'cookies'])
