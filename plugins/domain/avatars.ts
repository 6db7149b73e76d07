import type { FastifyInstance } from 'fastify'
import { CHAT_PLATFORM_TYPE } from './identity.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'

/** How long a looked-up avatar is reused; a failed lookup is retried sooner. */
const AVATAR_TTL_MS = 24 * 3_600_000
const FAILED_TTL_MS = 3_600_000
/** Bounds on memory and on the bot's request rate: ids beyond the queue wait for a later list. */
const MAX_ENTRIES = 50_000
const MAX_QUEUED = 500

const CDN = 'https://cdn.discordapp.com'

/** The platform's default avatar of an account: one of six, chosen from the id's timestamp bits. */
export function defaultAvatarUrl (userId: string): string {
  const index = /^\d{1,25}$/.test(userId) ? Number((BigInt(userId) >> 22n) % 6n) : 0
  return `${CDN}/embed/avatars/${index}.png`
}

function createAvatars (fastify: FastifyInstance) {
  const { chatPlatform, config, clock, log } = fastify
  const cache = new Map<string, { url: string, until: number }>()
  const queue = new Set<string>()
  let draining: Promise<void> | null = null

  async function lookUp (userId: string): Promise<void> {
    try {
      const user = await chatPlatform.user(userId)
      const url = user?.avatar ? `${CDN}/avatars/${userId}/${user.avatar}.png` : defaultAvatarUrl(userId)
      remember(userId, url, AVATAR_TTL_MS)
    } catch (err) {
      log.debug({ reason: (err as Error).message }, 'avatar lookup failed')
      remember(userId, defaultAvatarUrl(userId), FAILED_TTL_MS)
    }
  }

  function remember (userId: string, url: string, ttl: number): void {
    if (cache.size >= MAX_ENTRIES) {
      const now = clock.now()
      for (const [id, entry] of cache) if (entry.until <= now) cache.delete(id)
      if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value as string)
    }
    cache.set(userId, { url, until: clock.now() + ttl })
  }

  /** One lookup at a time, in the background: the platform rate-limits bots, and no list waits for it. */
  function drain (): void {
    draining ??= (async () => {
      for (const userId of queue) {
        queue.delete(userId)
        await lookUp(userId)
      }
    })().finally(() => { draining = null })
  }

  return {
    /**
     * The avatar to show now: the cached one, else the platform's default. With a bot token set, a
     * chat-platform account without a fresh entry is queued for a lookup, so a later list shows it.
     */
    urlFor (userId: string, type: string): string | null {
      if (type !== CHAT_PLATFORM_TYPE) return null
      const entry = cache.get(userId)
      if (entry !== undefined && entry.until > clock.now()) return entry.url
      if (config.DISCORD_BOT_TOKEN !== '' && queue.size < MAX_QUEUED) {
        queue.add(userId)
        drain()
      }
      return entry?.url ?? defaultAvatarUrl(userId)
    }
  }
}

export type Avatars = ReturnType<typeof createAvatars>

declare module 'fastify' {
  interface FastifyInstance {
    avatars: Avatars
  }
}

/** Chat-platform avatars for the admin user list, cached and fetched in the background through the bot. */
export default decoratorPlugin('avatars', createAvatars, ['config', 'clock', 'chat-platform'])
