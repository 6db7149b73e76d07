import type { FastifyInstance } from 'fastify'
import type { EngineGeneration } from '../../schemas/alarm-types.js'
import { engineCapabilities, engineName } from '../data/engine/capabilities.js'
import type { DiscordConfig, ServerProfile, TelegramConfig } from '../../schemas/server-profile.js'
import { mask, maskPartly } from '../base/config.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'

/** How long a profile is reused; the admin card's refresh button asks again at once. */
const PROFILE_TTL_MS = 5 * 60_000
/** The oldest PoracleNG release whose API and schema this service is written against. */
export const MINIMUM_SUPPORTED = '5.1.0'

/**
 * A build fact as the API reports it: BUILD_VERSION, BUILD_REVISION and BUILD_DATE read "unknown" (the
 * config's and the Dockerfile's default) when the build did not state them, which is null here, not a value.
 */
const stated = (value: string): string | null => value === '' || value === 'unknown' ? null : value

/** "5.1.0", "v5.2.1-rc1" → [5, 1, 0]; null for anything unparsable or an all-zero development version. */
function parseVersion (version: string | null): number[] | null {
  const match = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(version ?? '')
  if (match === null) return null
  const parts = [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)]
  return parts.every((p) => p === 0) ? null : parts
}

export function isBelow (version: string | null, minimum: string): boolean {
  const have = parseVersion(version)
  const need = parseVersion(minimum) as number[]
  if (have === null) return false
  for (let i = 0; i < 3; i++) if ((have[i] as number) !== (need[i] as number)) return (have[i] as number) < (need[i] as number)
  return false
}

function createServerProfile (fastify: FastifyInstance) {
  const { engine, engineDb, config, clock, log } = fastify
  let cached: { profile: ServerProfile, until: number } | null = null
  let pending: Promise<ServerProfile> | null = null

  /**
   * The engine's schema version from its own bookkeeping: golang-migrate's single `schema_migrations`
   * row (PoracleNG) or the last file knex recorded in `migrations` (PoracleJS). Unknown generation:
   * whichever table exists. Null when neither can be read.
   */
  async function schemaVersion (generation: EngineGeneration | null): Promise<string | null> {
    const ng = async () => {
      const [row] = await engineDb.pool.query('SELECT version, dirty FROM schema_migrations LIMIT 1') as Array<{ version: number, dirty: number }>
      return row === undefined ? null : `${row.version}${row.dirty ? ' (dirty)' : ''}`
    }
    const js = async () => {
      const [row] = await engineDb.pool.query('SELECT name FROM migrations ORDER BY id DESC LIMIT 1') as Array<{ name: string | null }>
      return row?.name ?? null
    }
    const order = generation === 'js' ? [js, ng] : generation === 'ng' ? [ng, js] : [ng, js]
    for (const read of generation === null ? order : order.slice(0, 1)) {
      try {
        const version = await read()
        if (version !== null) return version
      } catch (err) {
        log.debug({ reason: (err as Error).message }, 'engine schema version not readable from this table')
      }
    }
    return null
  }

  async function probe (): Promise<ServerProfile> {
    const { generation, version, reported } = await engine.orFallback(async () => {
      const health = await engine.health()
      return { generation: health.generation, reported: health.capabilities ?? {}, version: health.version ?? (await engine.config.poracleWeb()).version }
    }, {
      log,
      message: 'server profile: the alarm engine could not be asked',
      fallback: { generation: null as EngineGeneration | null, version: null as string | null, reported: {} as Record<string, boolean> },
      anyError: true
    })
    return {
      engine: engineName(generation),
      generation,
      reachable: generation !== null,
      version,
      schemaVersion: await schemaVersion(generation),
      capabilities: { ...reported, ...engineCapabilities(generation) },
      minimumSupported: MINIMUM_SUPPORTED,
      belowMinimum: generation === 'ng' && isBelow(version, MINIMUM_SUPPORTED),
      checkedAt: new Date(clock.now()).toISOString(),
      web: { version: stated(config.BUILD_VERSION), revision: stated(config.BUILD_REVISION), buildDate: stated(config.BUILD_DATE) }
    }
  }

  return {
    /** The profile, from the 5-minute cache unless `refresh`; concurrent callers share one probe. */
    async get (refresh = false): Promise<ServerProfile> {
      if (!refresh && cached !== null && cached.until > clock.now()) return cached.profile
      pending ??= probe().then((profile) => {
        cached = { profile, until: clock.now() + PROFILE_TTL_MS }
        return profile
      }).finally(() => { pending = null })
      return pending
    },

    /** The chat platform settings for the admin's read-only card: secrets show their last four characters, ids their ends. */
    chatPlatformCard: (): DiscordConfig => ({
      clientId: maskPartly(config.DISCORD_CLIENT_ID),
      clientSecret: mask(config.DISCORD_CLIENT_SECRET),
      botToken: mask(config.DISCORD_BOT_TOKEN),
      guildId: maskPartly(config.DISCORD_GUILD_ID),
      geofenceForumChannelId: maskPartly(config.DISCORD_GEOFENCE_FORUM_CHANNEL_ID),
      apiUrl: config.DISCORD_API_URL,
      adminIds: config.PORACLE_ADMIN_IDS
    }),

    /** The Telegram settings for the admin's read-only card: the bot token shows its last four characters. */
    telegramCard: (): TelegramConfig => ({
      botToken: mask(config.TELEGRAM_BOT_TOKEN),
      botUsername: config.TELEGRAM_BOT_USERNAME,
      enabled: config.TELEGRAM_ENABLED === true
    })
  }
}

export type ServerProfileService = ReturnType<typeof createServerProfile>

declare module 'fastify' {
  interface FastifyInstance {
    serverProfile: ServerProfileService
  }
}

/** What the admin's versions card shows: the engine (version, reachability, schema, capabilities) and this service. */
export default decoratorPlugin('server-profile', createServerProfile, ['config', 'clock', 'engine', 'engine-db'])
