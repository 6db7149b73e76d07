import fp from 'fastify-plugin'

/** How long a call to the chat platform may take before it counts as failed. */
const TIMEOUT_MS = 10_000

export class ChatPlatformError extends Error {
  constructor (readonly status: number | null, message: string) {
    super(message)
    this.name = 'ChatPlatformError'
  }
}

export interface GuildMember {
  roles: string[]
}

function createChatPlatform (options: { apiUrl: string, botToken: string }) {
  const base = options.apiUrl.replace(/\/$/, '')

  async function request (path: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) })
    } catch (error) {
      throw new ChatPlatformError(null, `chat platform unreachable: ${(error as Error).name}`)
    }
  }

  return {
    /**
     * A guild member's roles, through the bot. `null` when the user is not in the guild (404);
     * a ChatPlatformError for anything else (wrong token, bot not in the guild, outage, garbage).
     */
    async guildMember (guildId: string, userId: string): Promise<GuildMember | null> {
      const res = await request(`/guilds/${encodeURIComponent(guildId)}/members/${encodeURIComponent(userId)}`, {
        headers: { authorization: `Bot ${options.botToken}`, accept: 'application/json' }
      })
      if (res.status === 404) return null
      if (!res.ok) throw new ChatPlatformError(res.status, `guild member lookup answered ${res.status}`)
      const body = await res.json().catch(() => null) as { roles?: unknown } | null
      if (body === null || !Array.isArray(body.roles)) throw new ChatPlatformError(res.status, 'guild member lookup answered no roles')
      return { roles: body.roles.map(String) }
    }
  }
}

export type ChatPlatform = ReturnType<typeof createChatPlatform>

declare module 'fastify' {
  interface FastifyInstance {
    /** The chat platform's (Discord's) HTTP API at DISCORD_API_URL. */
    chatPlatform: ChatPlatform
  }
}

export default fp(async (fastify) => {
  fastify.decorate('chatPlatform', createChatPlatform({ apiUrl: fastify.config.DISCORD_API_URL, botToken: fastify.config.DISCORD_BOT_TOKEN }))
}, { name: 'chat-platform', fastify: '5.x', dependencies: ['config'] })
