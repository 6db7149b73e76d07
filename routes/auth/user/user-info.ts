import type { FastifyBaseLogger } from 'fastify'
import { AppError } from '../../../plugins/errors.js'
import type { EngineClient, EngineHuman } from '../../../plugins/engine.js'
import type { TokenClaims } from '../../../plugins/auth.js'
import type { UserInfo } from '../../../schemas/session-user.js'

/** Sign-in and "who am I" cannot work without the engine; say so plainly instead of a generic 500. */
export const engineUnavailable = () =>
  new AppError(503, 'The alarm engine is unreachable right now. Please try again in a moment.', {}, true)

/** The active profile's name, best effort: a display nicety must not fail the request. */
export async function activeProfileName (engine: EngineClient, human: EngineHuman, log: FastifyBaseLogger): Promise<string | null> {
  try {
    const profiles = await engine.profiles.list(human.id)
    return profiles.find((p) => p.profile_no === human.current_profile_no)?.name ?? null
  } catch (error) {
    log.info({ reason: (error as Error).message }, 'profile name unavailable')
    return null
  }
}

/** The UserInfo answer from the (current) claims and the live engine row. */
export function userInfo (
  claims: TokenClaims,
  human: EngineHuman,
  managedWebhooks: string[] | null,
  profileName: string | null
): UserInfo {
  return {
    id: claims.userId,
    username: claims.username,
    type: claims.type,
    isAdmin: claims.isAdmin,
    adminDisable: human.admin_disable === 1,
    enabled: human.enabled === 1 && human.admin_disable === 0,
    profileNo: human.current_profile_no,
    avatarUrl: claims.avatarUrl ?? null,
    managedWebhooks: claims.isAdmin ? null : managedWebhooks ?? [],
    profileName
  }
}
