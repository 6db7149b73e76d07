import { eq } from 'drizzle-orm'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import { signIns, webhookDelegates } from '../../db/schema/service.js'
import { toSqlTime } from '../../db/client.js'
import { EngineError, type EngineHuman } from '../data/engine.js'
import { badRequest, engineUnavailable, notFound, type CataloguedError } from '../edge/errors.js'
import type { TokenClaims } from '../edge/auth.js'
import type { UserInfo } from '../../schemas/session-user.js'
import { TtlCache } from '../../lib/ttl-cache.js'
import { SignInError } from '../../schemas/refusals.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { webhookHandles } from '../../lib/webhook-handle.js'

/** How long a cleanly resolved admin/delegation answer is reused. */
const ROLES_TTL_MS = 60_000
/** Users whose roles are remembered at most; past that the oldest are resolved again. */
const ROLES_MAX_USERS = 10_000

/** The engine's type for chat-platform accounts: role gating applies to these only. */
export const CHAT_PLATFORM_TYPE = 'discord:user'

export type SignInMethod = 'oidc' | 'discord' | 'telegram'

export interface Roles {
  isAdmin: boolean
  /** Webhooks the user may manage; null for admins (they manage everything). */
  managedWebhooks: string[] | null
  /** False when a source could not be asked: callers must not demote anyone on such an answer. */
  resolved: boolean
}

/** The site setting that switches each sign-in method for non-admins, and whether it is opt-in. */
const METHOD_GATES: Record<SignInMethod, { key: string, optIn: boolean }> = {
  // SSO is opt-in: only an explicit "true" lets non-admins in.
  oidc: { key: 'enable_oidc', optIn: true },
  discord: { key: 'enable_discord', optIn: false },
  telegram: { key: 'enable_telegram', optIn: false }
}

/** Role ids as admins type them: commas, spaces and quotes (straight or typographic) tolerated. */
export function parseRoleIds (raw: string): { valid: string[], ignored: string[] } {
  const entries = raw.split(',').map((e) => e.trim().replace(/^["'“”‘’`]+|["'“”‘’`]+$/g, '').trim()).filter((e) => e !== '')
  return { valid: entries.filter((e) => /^\d+$/.test(e)), ignored: entries.filter((e) => !/^\d+$/.test(e)) }
}

function createIdentity (fastify: FastifyInstance) {
  const { engine, db, siteSettings, chatPlatform, config, clock, log, cacheEviction } = fastify
  const rolesCache = new TtlCache<string, Roles>(clock, ROLES_MAX_USERS)
  const handles = webhookHandles(config.JWT_SECRET)
  // A grant change or block published by any instance takes effect here at once.
  cacheEviction.on('roles', (userId) => { rolesCache.delete(userId) })

  async function engineAdmins (): Promise<string[]> {
    const { admins } = await engine.config.poracleWeb()
    return [...admins.discord, ...admins.telegram].filter((id) => id.trim() !== '')
  }

  /** The engine's delegated administration: root or chat-platform admin, plus the webhooks it hands out. */
  async function administrationRoles (userId: string): Promise<{ isAdmin: boolean, webhooks: string[] }> {
    const admin = await engine.humans.administrationRoles(userId) as { isAdmin?: unknown, discord?: { isAdmin?: unknown, webhooks?: unknown } }
    const webhooks = Array.isArray(admin.discord?.webhooks) ? admin.discord.webhooks.map(String) : []
    return { isAdmin: admin.isAdmin === true || admin.discord?.isAdmin === true, webhooks }
  }

  async function resolveRoles (userId: string): Promise<Roles> {
    if (config.PORACLE_ADMIN_IDS.includes(userId)) return { isAdmin: true, managedWebhooks: null, resolved: true }
    const [admins, delegated, delegates] = await Promise.allSettled([
      engineAdmins(),
      administrationRoles(userId),
      db.db.select({ webhookId: webhookDelegates.webhookId }).from(webhookDelegates).where(eq(webhookDelegates.userId, userId))
    ])
    const resolved = admins.status === 'fulfilled' && delegated.status === 'fulfilled' && delegates.status === 'fulfilled'
    const isAdmin = (admins.status === 'fulfilled' && admins.value.includes(userId)) ||
      (delegated.status === 'fulfilled' && delegated.value.isAdmin)
    if (isAdmin) return { isAdmin: true, managedWebhooks: null, resolved }
    const webhooks = new Set([
      ...(delegated.status === 'fulfilled' ? delegated.value.webhooks : []),
      ...(delegates.status === 'fulfilled' ? delegates.value.map((d) => d.webhookId) : [])
    ])
    return { isAdmin: false, managedWebhooks: [...webhooks].sort(), resolved }
  }

  /** Admin rights and delegated webhooks, cached a minute; an outage is reported, never cached. */
  async function roles (userId: string): Promise<Roles> {
    return rolesCache.getOrLoad(userId, async () => {
      const answer = await resolveRoles(userId)
      return { value: answer, ttlMs: answer.resolved ? ROLES_TTL_MS : 0 }
    })
  }

  /**
   * Role gating for chat-platform ids (site settings `enable_roles` and `allowed_role_ids`). Fails closed:
   * no usable role id, or no bot token or guild id to ask with, refuses sign-in.
   */
  async function checkGuildRoles (userId: string): Promise<void> {
    if (!await siteSettings.isTrue('enable_roles')) return
    const raw = await siteSettings.get('allowed_role_ids') ?? ''
    if (raw.trim() === '') return
    const { valid, ignored } = parseRoleIds(raw)
    if (ignored.length > 0) log.warn({ ignored }, 'allowed_role_ids has entries that are not role ids; they are ignored')
    if (valid.length === 0) {
      log.warn('role gating is on but allowed_role_ids holds no usable role id: every non-admin sign-in is refused')
      throw new SignInError('role_check_failed')
    }
    if (config.DISCORD_BOT_TOKEN === '' || config.DISCORD_GUILD_ID === '') {
      log.warn('role gating is on but DISCORD_BOT_TOKEN or DISCORD_GUILD_ID is missing: every non-admin sign-in is refused')
      throw new SignInError('role_check_failed')
    }
    let member
    try {
      member = await chatPlatform.guildMember(config.DISCORD_GUILD_ID, userId)
    } catch (error) {
      log.warn({ reason: (error as Error).message }, 'guild role check failed')
      throw new SignInError('role_check_failed')
    }
    if (member === null) throw new SignInError('not_in_guild')
    if (!member.roles.some((role) => valid.includes(role))) throw new SignInError('missing_required_role')
  }

  async function findHuman (userId: string): Promise<EngineHuman> {
    let human: EngineHuman | null
    try {
      human = await engine.humans.find(userId)
    } catch (error) {
      log.warn({ kind: error instanceof EngineError ? error.kind : 'unknown' }, 'the alarm engine could not be asked during sign-in')
      throw new SignInError('engine_unavailable')
    }
    if (human === null) throw new SignInError('user_not_registered')
    return human
  }

  /** The JWT `type` each sign-in method mints. */
  function typeFor (method: SignInMethod): string {
    return method === 'oidc' ? config.OIDC_IDENTITY_TYPE : method === 'telegram' ? 'telegram:user' : 'chat:user'
  }

  /** A user's engine row; a missing account (`whenMissing`) and an engine outage (503) are told apart. */
  async function liveHuman (userId: string, whenMissing: () => CataloguedError): Promise<EngineHuman> {
    let human: EngineHuman | null
    try {
      human = await engine.humans.find(userId)
    } catch {
      throw engineUnavailable()
    }
    if (human === null) throw whenMissing()
    return human
  }

  /** Statistics must not cost a member their sign-in: a failed write is logged and the sign-in goes on. */
  async function recordSignIn (userId: string, method: SignInMethod): Promise<void> {
    try {
      await db.db.insert(signIns).values({ userId, method, at: toSqlTime(clock.now()) })
    } catch (err) {
      log.warn({ reason: (err as { code?: string }).code ?? (err as Error).message }, 'sign-in not recorded')
    }
  }

  return {
    roles,
    liveHuman,

    /** The active profile's name, best effort: a display nicety must not fail the request. */
    async activeProfileName (human: EngineHuman, requestLog: FastifyBaseLogger): Promise<string | null> {
      try {
        const profiles = await engine.profiles.list(human.id)
        return profiles.find((p) => p.profile_no === human.current_profile_no)?.name ?? null
      } catch (error) {
        requestLog.info({ reason: (error as Error).message }, 'profile name unavailable')
        return null
      }
    },

    /** Pauses the member's alert delivery when it runs, resumes it when paused; answers the new state. */
    async toggleAlerts (userId: string): Promise<boolean> {
      const human = await liveHuman(userId, () => notFound('User not found.'))
      if (human.admin_disable === 1) throw badRequest('Your account has been disabled by an administrator.')
      const enable = human.enabled !== 1
      try {
        if (enable) await engine.humans.start(human.id)
        else await engine.humans.stop(human.id)
      } catch (error) {
        if (error instanceof EngineError && error.kind === 'not_found') throw notFound('User not found.')
        throw engineUnavailable()
      }
      return enable
    },

    /** The names delegates know webhooks by (lib/webhook-handle.ts): never the address itself. */
    webhookHandles: handles,
    /** A delegation list as the delegate may see it: handles; an entry already a handle (a token's claim) stays. */
    shownWebhooks (webhookIds: string[] | null): string[] | null {
      return webhookIds === null ? null : [...new Set(webhookIds.map((id) => handles.isHandle(id) ? id : handles.handleOf(id)))].sort()
    },
    evictRoles (userId: string): void { rolesCache.delete(userId) },
    checkGuildRoles,
    typeFor,

    /**
     * The shared sign-in pipeline: the identity must be an existing engine user (never created here),
     * not blocked by an admin; non-admins must pass the method's site switch and, for chat-platform ids,
     * role gating. Returns the claims to mint; throws SignInError with the code to show.
     * A completed sign-in is recorded (`sign_ins`, read by the admin insights); a renewal (`renewal: true`,
     * the refresh of a running session) is not a new sign-in.
     */
    async signIn (input: { userId: string, method: SignInMethod, username?: string, avatarUrl?: string, renewal?: boolean }): Promise<{ human: EngineHuman, roles: Roles, claims: TokenClaims }> {
      const human = await findHuman(input.userId)
      const userRoles = await roles(input.userId)
      if (human.admin_disable === 1) throw new SignInError('account_blocked')
      if (!userRoles.isAdmin) {
        const gate = METHOD_GATES[input.method]
        const allowed = gate.optIn ? await siteSettings.isTrue(gate.key) : await siteSettings.isNotFalse(gate.key)
        if (!allowed) throw new SignInError(`${input.method}_disabled`)
        // The Telegram widget proves a Telegram identity, which guild roles say nothing about.
        if (input.method !== 'telegram' && human.type === CHAT_PLATFORM_TYPE) await checkGuildRoles(input.userId)
      }
      const claims: TokenClaims = {
        userId: human.id,
        username: input.username ?? human.name ?? human.id,
        type: typeFor(input.method),
        isAdmin: userRoles.isAdmin,
        enabled: human.enabled === 1 && human.admin_disable === 0,
        profileNo: human.current_profile_no
      }
      if (input.avatarUrl) claims.avatarUrl = input.avatarUrl
      if (userRoles.managedWebhooks && userRoles.managedWebhooks.length > 0) claims.managedWebhooks = userRoles.managedWebhooks.map(handles.handleOf)
      if (input.renewal !== true) await recordSignIn(human.id, input.method)
      return { human, roles: userRoles, claims }
    }
  }
}

export type Identity = ReturnType<typeof createIdentity>

/** The UserInfo answer from the (current) claims and the live engine row. */
export function userInfo (
  claims: TokenClaims,
  human: EngineHuman,
  managedWebhooks: string[] | null,
  profileName: string | null
): UserInfo {
  return {
    id: claims.shownAs ?? claims.userId,
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

declare module 'fastify' {
  interface FastifyInstance {
    identity: Identity
  }
}

/** Who a signed-in identity is to this service: engine user, admin rights, delegation, gates. */
export default decoratorPlugin('identity', createIdentity, ['config', 'clock', 'db', 'engine', 'site-settings', 'chat-platform', 'cache-eviction'])
