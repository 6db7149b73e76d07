import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { REASON } from '../../plugins/domain/refresh-sessions.js'
import { isFamilySid } from '../../plugins/domain/session-ends.js'
import { unauthorized } from '../../plugins/edge/errors.js'
import { BLOCKED_MESSAGE } from '../../schemas/refusals.js'
import type { TokenClaims } from '../../plugins/edge/auth.js'
import { userInfo } from '../../plugins/domain/identity.js'
import { errors } from '../../schemas/common.js'
import { AlertsToggleSchema, MessageSchema, UserInfoSchema } from '../../schemas/session-user.js'

const ACCOUNT_GONE = 'This account no longer exists.'

/** The signed-in user: who they are right now (`/me`), pausing their alerts, and logging out. */
const sessionUserRoutes: FastifyPluginAsyncTypebox = async (fastify) => {
  const { auth, identity, rateLimits, refreshSessions, sessionEnds, auditLog } = fastify

  fastify.get('/me', {
    onRequest: auth.authenticate,
    config: { rateLimit: rateLimits.authRead },
    schema: { tags: ['auth'], summary: 'The signed-in user, read live; re-issues the token when the active profile changed', response: { 200: UserInfoSchema, ...errors(401, 429, 503) } }
  }, async (request, reply) => {
    // Who is signed in, and maybe a re-issued token: per user and per moment, never from a cache.
    reply.header('cache-control', 'no-store')
    const user = request.user
    const human = await identity.liveHuman(user.userId, () => unauthorized(ACCOUNT_GONE))
    const impersonating = user.impersonatedBy !== undefined
    // An admin looking at a blocked account sees the block as data; the owner is signed out.
    if (human.admin_disable === 1 && !impersonating) throw unauthorized(BLOCKED_MESSAGE)

    let isAdmin = user.isAdmin
    let managedWebhooks: string[] | null = user.managedWebhooks ?? []
    let freshIsAdmin: boolean | undefined
    // An impersonation token is never elevated and its delegation is not re-resolved: it acts as
    // exactly the account it names.
    if (!impersonating) {
      const roles = await identity.roles(user.userId)
      if (roles.resolved) {
        isAdmin = freshIsAdmin = roles.isAdmin
        managedWebhooks = roles.managedWebhooks
      } else {
        // Partial answer during an outage: keep the claim's rights (never demote) plus whatever was learnt.
        managedWebhooks = [...new Set([...(user.managedWebhooks ?? []), ...(roles.managedWebhooks ?? [])])].sort()
      }
    }

    const claims: TokenClaims = { ...user, isAdmin }
    const info = userInfo(claims, human, identity.shownWebhooks(managedWebhooks), await identity.activeProfileName(human, request.log))
    // The engine changes the active profile behind the service's back (active hours, bot commands):
    // hand out a token with the new profile, keeping the original expiry.
    if (human.current_profile_no !== user.profileNo) {
      info.token = auth.reissue(request, {
        profileNo: human.current_profile_no,
        ...(freshIsAdmin !== undefined && { isAdmin: freshIsAdmin })
      }).token
    }
    return info
  })

  fastify.post('/alerts/toggle', {
    onRequest: auth.authenticate,
    config: { rateLimit: rateLimits.authRead },
    schema: { tags: ['auth'], summary: 'Pauses or resumes the caller\'s own alert delivery', response: { 200: AlertsToggleSchema, ...errors(400, 401, 404, 429, 503) } }
  }, async (request) => {
    return { enabled: await identity.toggleAlerts(request.user.userId) }
  })

  fastify.post('/logout', {
    onRequest: auth.authenticate,
    config: { rateLimit: rateLimits.authRead },
    schema: {
      tags: ['auth'],
      summary: 'Signs out: this sign-in ends on the server (its refresh family, or its token), on every instance',
      body: Type.Optional(Type.Union([Type.Object({ refreshToken: Type.Optional(Type.String({ maxLength: 200 })) }, { additionalProperties: false }), Type.Null()])),
      response: { 200: MessageSchema, ...errors(400, 401, 429) }
    }
  }, async (request) => {
    const { sid, userId, impersonatedBy } = request.user
    const refreshToken = request.body?.refreshToken
    if (refreshToken !== undefined && refreshToken !== '') await refreshSessions.revoke(refreshToken)
    if (sid !== undefined && isFamilySid(sid)) {
      await refreshSessions.endFamily(userId, sid, REASON.logout)
    } else if (sid !== undefined) {
      await sessionEnds.endSid(sid)
    }
    if (impersonatedBy !== undefined) await auditLog.record(request, 'impersonation.end', userId)
    return { message: 'Logged out successfully.' }
  })
}

export default sessionUserRoutes
