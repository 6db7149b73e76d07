import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { forbidden, notFound } from '../../../plugins/edge/errors.js'
import { REASON } from '../../../plugins/domain/refresh-sessions.js'
import { isFamilySid } from '../../../plugins/domain/session-ends.js'
import { addressNetwork, deviceLabel } from '../../../lib/devices.js'
import { errors } from '../../../schemas/common.js'
import { DeviceSessionsSchema, EndOthersQuerySchema, EndedSessionsSchema, SessionIdParamsSchema, type DeviceSession } from '../../../schemas/devices.js'

/** The id of a sign-in without a family that predates session ids: the token itself, as "this device". */
const LEGACY_CURRENT = 'current'

const iso = (ms: number) => new Date(ms).toISOString()

/**
 * My devices (`/api/auth/sessions`): the caller's signed-in sessions (one per refresh family, plus this
 * device's sign-in when it has none) and ending one of them or all the others. An impersonation sees
 * and ends nothing: the account's sessions are its owner's.
 */
const sessionRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, refreshSessions, sessionEnds, config, clock, rateLimits } = fastify

  fastify.addHook('onRequest', auth.authenticate)
  fastify.addHook('preHandler', async (request) => {
    if (request.user.impersonatedBy !== undefined) throw forbidden('The account\'s sessions are its owner\'s to see and end.')
  })

  /** This request's sign-in when it is not a refresh family: its token is the whole session. */
  function tokenSession (request: FastifyRequest): DeviceSession | null {
    const { sid, iat, exp } = request.user
    if (sid !== undefined && isFamilySid(sid)) return null
    return {
      id: sid ?? LEGACY_CURRENT,
      kind: 'token',
      device: deviceLabel(request.headers['user-agent']),
      firstUsedAt: iso(iat * 1000),
      lastUsedAt: iso(clock.now()),
      expiresAt: iso(exp * 1000),
      network: config.SESSIONS_SHOW_NETWORK ? addressNetwork(request.ip) : null,
      current: true
    }
  }

  fastify.get('/', {
    config: { rateLimit: rateLimits.authRead },
    schema: { tags: ['auth'], summary: 'The caller\'s signed-in sessions, most recently used first', response: { 200: DeviceSessionsSchema, ...errors(401, 403, 429) } }
  }, async (request, reply) => {
    reply.header('cache-control', 'no-store')
    const families = await refreshSessions.listForUser(request.user.userId)
    const sessions: DeviceSession[] = families.map((f) => ({
      id: f.familyId,
      kind: 'refresh' as const,
      device: deviceLabel(f.userAgent),
      firstUsedAt: iso(f.firstUsedAt),
      lastUsedAt: iso(f.lastUsedAt),
      expiresAt: iso(f.expiresAt),
      network: config.SESSIONS_SHOW_NETWORK ? addressNetwork(f.ipAddress) : null,
      current: f.familyId === request.user.sid
    }))
    const own = tokenSession(request)
    if (own !== null) sessions.unshift(own)
    return { sessions }
  })

  fastify.delete('/:id', {
    config: { rateLimit: rateLimits.authRead },
    schema: { tags: ['auth'], summary: 'Ends one of the caller\'s sessions at once, on every instance', params: SessionIdParamsSchema, response: { 200: EndedSessionsSchema, ...errors(400, 401, 403, 404, 429) } }
  }, async (request) => {
    const { id } = request.params
    const { userId, sid } = request.user
    if (id === LEGACY_CURRENT && sid === undefined) {
      await sessionEnds.endUserTokens(userId)
      return { ended: 1 }
    }
    if (!isFamilySid(id)) {
      // The only sign-in without a family the caller can name is its own.
      if (id !== sid) throw notFound('No such session.')
      await sessionEnds.endSid(id)
      return { ended: 1 }
    }
    if (!await refreshSessions.endFamily(userId, id, REASON.userEnded)) throw notFound('No such session.')
    return { ended: 1 }
  })

  fastify.delete('/', {
    config: { rateLimit: rateLimits.authRead },
    schema: { tags: ['auth'], summary: 'Ends every session of the caller but this one', querystring: EndOthersQuerySchema, response: { 200: EndedSessionsSchema, ...errors(400, 401, 403, 429) } }
  }, async (request) => {
    const { userId, sid } = request.user
    const ended = await refreshSessions.endOthers(userId, sid, REASON.userEnded)
    // Sign-ins without a family cannot be listed one by one: a cutoff ends all of them but this one (a
    // token from before session ids cannot be told from the others, so it spares them all).
    if (sid !== undefined) await sessionEnds.endUserTokens(userId, sid)
    return { ended }
  })
}

export default sessionRoutes
