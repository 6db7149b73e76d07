import { randomUUID } from 'node:crypto'
import fp from 'fastify-plugin'
import jwt from '@fastify/jwt'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { forbidden, notFound, unauthorized } from './errors.js'
import { TtlCache } from '../../lib/ttl-cache.js'

/** The signed-in user as the service sees it (typed view of the JWT claims). */
export interface SessionUser {
  userId: string
  username: string
  type: string
  isAdmin: boolean
  enabled: boolean
  profileNo: number
  avatarUrl?: string
  managedWebhooks?: string[]
  impersonatedBy?: string
  /**
   * The sign-in this token belongs to: a refresh family's id, or `t.<uuid>` for a sign-in without one
   * (chat platform, Telegram, SSO without refresh, impersonation). Absent on tokens minted before it existed.
   */
  sid?: string
  /** For an impersonation: the session of the person acting, which must still be live. */
  impersonatorSid?: string
  /**
   * Set while the request runs, never signed: the id the caller knows this account by when it is not the
   * engine's. A delegate acting for a webhook holds a token naming the webhook's handle, and the request
   * runs as the webhook's address (plugins/domain/delegate-view.ts).
   */
  shownAs?: string
  /** Expiry, seconds since the epoch. */
  exp: number
  /** Issue time, seconds since the epoch. */
  iat: number
}

export type TokenClaims = Omit<SessionUser, 'exp' | 'iat'>

/** A session id for a sign-in without a refresh family. */
export const newTokenSid = (): string => `t.${randomUUID()}`

/**
 * The wire form of the claims: every value a string, as the reference's clients expect
 * (`isAdmin: "true"`, `profileNo: "2"`, `managedWebhooks` comma-joined).
 */
interface WireClaims {
  userId: string
  username: string
  type: string
  isAdmin: string
  enabled: string
  profileNo: string
  avatarUrl?: string
  managedWebhooks?: string
  impersonatedBy?: string
  sid?: string
  isid?: string
  iat: number
  exp: number
  nbf?: number
  iss?: string
  aud?: string | string[]
}

declare module '@fastify/jwt' {
  interface FastifyJWT {
    payload: WireClaims
    user: SessionUser
  }
}

function toWire (claims: TokenClaims, exp: number, iat: number): WireClaims {
  const wire: WireClaims = {
    userId: claims.userId,
    username: claims.username,
    type: claims.type,
    isAdmin: String(claims.isAdmin),
    enabled: String(claims.enabled),
    profileNo: String(claims.profileNo),
    iat,
    exp
  }
  if (claims.avatarUrl) wire.avatarUrl = claims.avatarUrl
  if (claims.managedWebhooks && claims.managedWebhooks.length > 0) wire.managedWebhooks = claims.managedWebhooks.join(',')
  if (claims.impersonatedBy) wire.impersonatedBy = claims.impersonatedBy
  if (claims.sid) wire.sid = claims.sid
  if (claims.impersonatorSid) wire.isid = claims.impersonatorSid
  return wire
}

function fromWire (wire: WireClaims): SessionUser {
  const user: SessionUser = {
    userId: String(wire.userId),
    username: String(wire.username ?? ''),
    type: String(wire.type ?? ''),
    isAdmin: wire.isAdmin === 'true',
    enabled: wire.enabled === 'true',
    profileNo: Number.parseInt(wire.profileNo, 10) || 1,
    exp: wire.exp,
    iat: wire.iat
  }
  if (wire.avatarUrl) user.avatarUrl = wire.avatarUrl
  if (wire.managedWebhooks) user.managedWebhooks = wire.managedWebhooks.split(',').filter((w) => w !== '')
  if (wire.impersonatedBy) user.impersonatedBy = wire.impersonatedBy
  if (typeof wire.sid === 'string' && wire.sid !== '') user.sid = wire.sid
  if (typeof wire.isid === 'string' && wire.isid !== '') user.impersonatorSid = wire.isid
  return user
}

/** Tolerated clock difference between this service and the browser's view of expiry. */
export const CLOCK_TOLERANCE_SECONDS = 30

/** Verified tokens kept at most (each until its own expiry): a few MB at most, whatever the traffic. */
const VERIFIED_TOKENS_MAX = 10_000

const isTime = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value)

export interface MintedToken {
  token: string
  /** Seconds since the epoch. */
  expiresAt: number
  /** Lifetime in seconds. */
  expiresIn: number
}

function createAuth (fastify: import('fastify').FastifyInstance) {
  const { clock } = fastify
  /**
   * Tokens already verified, each kept until the moment it would be refused as expired: a hit skips the
   * HMAC, the decoding and the claim checks, and answers exactly what verifying again would answer (a
   * changed JWT_SECRET takes a restart, which empties it). Whether the token's sign-in was ended since is
   * not a property of the token: the session-ends plugin checks that on every request.
   */
  const verifiedTokens = new TtlCache<string, { user: SessionUser, notBefore: number }>(clock, VERIFIED_TOKENS_MAX)

  function verified (token: string): SessionUser {
    const nowSeconds = clock.now() / 1000
    const known = verifiedTokens.get(token)
    if (known !== undefined && known.notBefore <= nowSeconds) return known.user
    let claims: WireClaims
    try {
      claims = fastify.jwt.verify<WireClaims>(token)
    } catch {
      throw unauthorized('Invalid or expired token.')
    }
    // The library checks presence, iss and aud; the times are checked here, as numbers, on the service's clock.
    if (!isTime(claims.exp) || !isTime(claims.iat) || (claims.nbf !== undefined && !isTime(claims.nbf))) throw unauthorized('Invalid or expired token.')
    const notBefore = claims.nbf === undefined ? -Infinity : claims.nbf - CLOCK_TOLERANCE_SECONDS
    if (claims.exp + CLOCK_TOLERANCE_SECONDS <= nowSeconds || notBefore > nowSeconds) throw unauthorized('Invalid or expired token.')
    const user = Object.freeze(fromWire(claims))
    verifiedTokens.setUntil(token, { user, notBefore }, (claims.exp + CLOCK_TOLERANCE_SECONDS) * 1000)
    return user
  }

  /** onRequest/preHandler hook: 401 unless a valid, unexpired bearer token is presented. */
  async function authenticate (request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    request.user = verified(bearerToken(request.headers.authorization))
  }

  /** Hook for admin-only routes; run after `authenticate`. */
  async function requireAdmin (request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    if (!request.user?.isAdmin) throw forbidden('Administrator rights are required.')
  }

  /** For admin routes about a member: to anyone else the member's data does not exist (404, not 403). */
  async function requireAdminUnseen (request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    if (!request.user?.isAdmin) throw notFound('User not found.')
  }

  function sign (claims: TokenClaims, exp: number): MintedToken {
    const iat = Math.floor(clock.now() / 1000)
    return { token: fastify.jwt.sign(toWire(claims, exp, iat)), expiresAt: exp, expiresIn: exp - iat }
  }

  return {
    /** Mints a token for `claims` that lives `minutes` from now. */
    mint (claims: TokenClaims, minutes: number): MintedToken {
      return sign(claims, Math.floor(clock.now() / 1000) + minutes * 60)
    },

    /**
     * Re-issues the caller's token with some claims changed, keeping its original expiry: a 30-minute
     * SSO token must never turn into a 24-hour one through a profile switch.
     */
    reissue (request: FastifyRequest, changes: Partial<TokenClaims>): MintedToken {
      const { exp, iat: _iat, shownAs, ...claims } = request.user
      // The token goes on naming the account as its holder knows it.
      return sign({ ...claims, ...(shownAs !== undefined && { userId: shownAs }), ...changes }, exp)
    },

    authenticate,

    requireAdmin,
    requireAdminUnseen,

    /**
     * The one way a route is made admin-only: `...auth.adminOnly` in its options (a signed-in token, then
     * admin rights). test/route-folders.test.ts checks every `/api/admin` route but the member ones has it.
     */
    adminOnly: { onRequest: [authenticate, requireAdmin] },
    /** `adminOnly` for a route about one member, where a non-admin learns nothing: 404 instead of 403. */
    adminOnlyUnseen: { onRequest: [authenticate, requireAdminUnseen] }
  }
}

export type Auth = ReturnType<typeof createAuth>

declare module 'fastify' {
  interface FastifyInstance {
    auth: Auth
  }
}

const BEARER = /^Bearer\s+(\S+)$/i

/** `Authorization: Bearer <token>`, or a 401. */
function bearerToken (header: string | undefined): string {
  const token = header === undefined ? undefined : BEARER.exec(header)?.[1]
  if (token === undefined) throw unauthorized()
  return token
}

/**
 * The internal JWT: HS256 with `JWT_SECRET`; `exp`, `iat`, `iss` and `aud` required, issuer and audience
 * checked, `nbf` honoured. Times are checked against `fastify.clock` (not the library's own clock) so
 * that every time rule of the service moves together.
 */
export default fp(async (fastify) => {
  const { config } = fastify
  await fastify.register(jwt, {
    secret: config.JWT_SECRET,
    sign: { algorithm: 'HS256', iss: config.JWT_ISSUER, aud: config.JWT_AUDIENCE },
    verify: {
      algorithms: ['HS256'],
      allowedIss: config.JWT_ISSUER,
      allowedAud: config.JWT_AUDIENCE,
      requiredClaims: ['exp', 'iat', 'iss', 'aud'],
      ignoreExpiration: true,
      ignoreNotBefore: true
    },
    formatUser: (payload) => fromWire(payload)
  })
  fastify.decorate('auth', createAuth(fastify))
}, { name: 'auth', fastify: '5.x', dependencies: ['config', 'clock'] })
