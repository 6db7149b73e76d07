import fp from 'fastify-plugin'
import { FormData, request as send } from 'undici'
import { deadline } from '../../lib/deadline.js'
import { BodyTooLargeError, readBounded } from '../../lib/fetch-json.js'
import type { Config } from '../base/config.js'
import { ERRORS } from '../edge/errors.js'
import type { SiteSettings } from './site-settings.js'

/** How long a call to the chat platform may take before it counts as failed. */
const TIMEOUT_MS = 10_000

/**
 * A failed call to the chat platform; `status` is its HTTP status, null when it could not be reached.
 * Sign-in turns these into its own redirect codes; anywhere else the peer-fault statuses apply:
 * unreachable 503, too slow 504, an answer that cannot be used 502.
 */
export class ChatPlatformError extends ERRORS.ChatPlatformFailed {
  constructor (readonly status: number | null, message: string, timedOut = false) {
    super(message)
    this.name = 'ChatPlatformError'
    this.statusCode = timedOut ? 504 : status === null ? 503 : 502
  }
}

/** An answer of the platform, read whole (within the size limit) before anything looks at it. */
interface Answer {
  status: number
  ok: boolean
  text: string
}

const jsonOf = (answer: Answer): unknown => {
  try {
    return JSON.parse(answer.text) as unknown
  } catch {
    return null
  }
}

export interface GuildMember {
  roles: string[]
}

/** The signed-in account as `GET /users/@me` describes it (scope `identify`). */
export interface ChatPlatformUser {
  id: string
  username: string
  /** Avatar hash; null when the account uses a default avatar. */
  avatar: string | null
}

/** A forum tag as the platform lists it on its channel; a tag without an id is one to create. */
export interface ForumTag {
  id?: string
  name: string
  moderated?: boolean
  emoji_id?: string | null
  emoji_name?: string | null
}

/** A message in the platform's own shape: text, embeds and whom it may mention. */
export interface ChatMessage {
  content?: string
  embeds?: Array<Record<string, unknown>>
  allowed_mentions?: { parse: string[], users?: string[] }
  /**
   * The message's files: on a post, one entry per uploaded file (`id` its index); on an edit, the files
   * it keeps, by their ids (absent, every file is kept).
   */
  attachments?: Array<{ id: number | string, filename?: string }>
}

/** A file sent with a message; an embed shows it as its image with the url `attachment://<name>`. */
export interface ChatFile {
  name: string
  contentType: string
  bytes: Buffer
}

/** A message as read back: its embeds, and its files. */
export interface PostedMessage {
  embeds: Array<Record<string, unknown>>
  attachments: Array<{ id: string, filename: string }>
}

export interface ForumThread {
  name: string
  autoArchiveMinutes: 60 | 1440 | 4320 | 10080
  appliedTags: string[]
  message: ChatMessage
  /** Uploaded with the opening message. */
  files?: ChatFile[]
}

export interface ChatPlatformOptions {
  apiUrl: string
  botToken: string
  clientId: string
  clientSecret: string
  /** UPSTREAM_MAX_BYTES: the largest answer read; past it the connection is dropped. */
  maxBytes: number
}

/** Discord's snowflakes: decimal, at most 20 digits today; anything else is not an account id. */
const SNOWFLAKE = /^\d{1,25}$/

function toUser (body: Record<string, unknown>, status: number, what: string): ChatPlatformUser {
  if (typeof body.id !== 'string' || !SNOWFLAKE.test(body.id)) throw new ChatPlatformError(status, `${what} answered no usable id`)
  const username = typeof body.username === 'string' && body.username !== '' ? body.username : body.id
  const avatar = typeof body.avatar === 'string' && /^[A-Za-z0-9_]{1,64}$/.test(body.avatar) ? body.avatar : null
  return { id: body.id, username, avatar }
}

function createChatPlatform (options: ChatPlatformOptions) {
  const base = options.apiUrl.replace(/\/$/, '')

  async function request (path: string, init: { method?: 'GET' | 'POST' | 'PATCH', headers: Record<string, string>, body?: string | FormData }): Promise<Answer> {
    const limit = deadline(TIMEOUT_MS)
    let status: number | null = null
    try {
      const res = await send(`${base}${path}`, { ...init, signal: limit.signal })
      status = res.statusCode
      const text = await readBounded(res.body, options.maxBytes, res.headers['content-length'])
      return { status, ok: status >= 200 && status < 300, text }
    } catch (error) {
      if (error instanceof BodyTooLargeError) throw new ChatPlatformError(status, 'chat platform answer over the size limit: connection dropped')
      if (limit.signal.aborted) throw new ChatPlatformError(null, 'chat platform too slow', true)
      throw new ChatPlatformError(null, `chat platform unreachable: ${(error as Error).name}`)
    } finally {
      limit.clear()
    }
  }

  function jsonObject (res: Answer, what: string): Record<string, unknown> {
    const body = jsonOf(res)
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ChatPlatformError(res.status, `${what} answered no JSON object`)
    return body as Record<string, unknown>
  }

  /**
   * A bot call with a JSON body to a versioned route (forums need API v9 or later; the unversioned API is
   * an old version). With files it is an upload as the platform documents it: multipart/form-data, the
   * JSON body as the `payload_json` part and each file as a `files[n]` part (undici writes the boundary).
   * Any answer but 2xx with a JSON object is a ChatPlatformError naming the platform's error code, never
   * the body sent.
   */
  async function botJson (method: 'GET' | 'POST' | 'PATCH', path: string, what: string, body?: unknown, files: ChatFile[] = []): Promise<Record<string, unknown>> {
    let payload: string | FormData | undefined
    if (files.length > 0) {
      const form = new FormData()
      form.append('payload_json', JSON.stringify(body))
      files.forEach((file, n) => { form.append(`files[${n}]`, new Blob([new Uint8Array(file.bytes)], { type: file.contentType }), file.name) })
      payload = form
    } else if (body !== undefined) {
      payload = JSON.stringify(body)
    }
    const res = await request(`/v10${path}`, {
      method,
      headers: {
        authorization: `Bot ${options.botToken}`,
        accept: 'application/json',
        ...(typeof payload === 'string' && { 'content-type': 'application/json' })
      },
      ...(payload !== undefined && { body: payload })
    })
    if (!res.ok) {
      const code = (jsonOf(res) as { code?: unknown } | null)?.code
      throw new ChatPlatformError(res.status, `${what} answered ${res.status}${typeof code === 'number' ? ` (code ${code})` : ''}`)
    }
    return jsonObject(res, what)
  }

  const channelPath = (channelId: string): string => {
    if (!SNOWFLAKE.test(channelId)) throw new ChatPlatformError(null, 'not a channel id')
    return `/channels/${channelId}`
  }
  const toTags = (body: Record<string, unknown>): ForumTag[] => (Array.isArray(body.available_tags) ? body.available_tags as unknown[] : [])
    .filter((tag): tag is ForumTag => typeof tag === 'object' && tag !== null && typeof (tag as ForumTag).id === 'string' && typeof (tag as ForumTag).name === 'string')

  return {
    /** OAuth2 sign-in needs both the client id and its secret. */
    oauthConfigured: options.clientId !== '' && options.clientSecret !== '',

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
      const body = jsonOf(res) as { roles?: unknown } | null
      if (body === null || !Array.isArray(body.roles)) throw new ChatPlatformError(res.status, 'guild member lookup answered no roles')
      return { roles: body.roles.map(String) }
    },

    /**
     * The OAuth2 authorization-code exchange (client credentials in the form body). Returns the user's
     * access token, which is only used for `currentUser` and then dropped. The error message carries
     * the platform's OAuth2 error name (e.g. `invalid_grant`), never the code or a secret.
     */
    async exchangeCode (code: string, redirectUri: string): Promise<string> {
      const res = await request('/oauth2/token', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({
          client_id: options.clientId,
          client_secret: options.clientSecret,
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri
        }).toString()
      })
      if (!res.ok) {
        const body = jsonOf(res) as { error?: unknown } | null
        const reason = typeof body?.error === 'string' && /^[a-z_]{1,64}$/.test(body.error) ? `: ${body.error}` : ''
        throw new ChatPlatformError(res.status, `token exchange answered ${res.status}${reason}`)
      }
      const body = jsonObject(res, 'token exchange')
      if (typeof body.access_token !== 'string' || body.access_token === '') throw new ChatPlatformError(res.status, 'token exchange answered no access token')
      return body.access_token
    },

    /** Any account by id, through the bot (`GET /users/{id}`); null when the platform knows no such account. */
    async user (userId: string): Promise<ChatPlatformUser | null> {
      if (!SNOWFLAKE.test(userId)) return null
      const res = await request(`/users/${userId}`, { headers: { authorization: `Bot ${options.botToken}`, accept: 'application/json' } })
      if (res.status === 404) return null
      if (!res.ok) throw new ChatPlatformError(res.status, `user lookup answered ${res.status}`)
      return toUser(jsonObject(res, 'user lookup'), res.status, 'user lookup')
    },

    /** The tags a forum channel offers (`GET /channels/{id}`, `available_tags`). */
    async forumTags (channelId: string): Promise<ForumTag[]> {
      return toTags(await botJson('GET', channelPath(channelId), 'forum channel lookup'))
    },

    /**
     * Replaces a forum channel's tags (`PATCH /channels/{id}`): existing tags keep their id, new ones are
     * sent without; the platform answers the channel with every tag's id. Needs Manage Channels.
     */
    async setForumTags (channelId: string, tags: ForumTag[]): Promise<ForumTag[]> {
      return toTags(await botJson('PATCH', channelPath(channelId), 'forum tag update', { available_tags: tags }))
    },

    /**
     * Opens a post in a forum channel (`POST /channels/{id}/threads`), with the opening message's files
     * uploaded beside it; answers the new thread's id.
     */
    async startForumThread (channelId: string, thread: ForumThread): Promise<string> {
      const files = thread.files ?? []
      const body = await botJson('POST', `${channelPath(channelId)}/threads`, 'forum post', {
        name: thread.name,
        auto_archive_duration: thread.autoArchiveMinutes,
        ...(thread.appliedTags.length > 0 && { applied_tags: thread.appliedTags }),
        message: {
          ...thread.message,
          ...(files.length > 0 && { attachments: files.map((file, n) => ({ id: n, filename: file.name })) })
        }
      }, files)
      if (typeof body.id !== 'string' || !SNOWFLAKE.test(body.id)) throw new ChatPlatformError(200, 'forum post answered no usable thread id')
      return body.id
    },

    /** Posts a message in a channel or thread (`POST /channels/{id}/messages`). */
    async postMessage (channelId: string, message: ChatMessage): Promise<void> {
      await botJson('POST', `${channelPath(channelId)}/messages`, 'message post', message)
    },

    /** A message's embeds and files (`GET /channels/{id}/messages/{message}`). */
    async message (channelId: string, messageId: string): Promise<PostedMessage> {
      if (!SNOWFLAKE.test(messageId)) throw new ChatPlatformError(null, 'not a message id')
      const body = await botJson('GET', `${channelPath(channelId)}/messages/${messageId}`, 'message read')
      const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])
      return {
        embeds: list(body.embeds).filter((embed): embed is Record<string, unknown> => typeof embed === 'object' && embed !== null),
        attachments: list(body.attachments).flatMap((file) => {
          const { id, filename } = (file ?? {}) as { id?: unknown, filename?: unknown }
          return typeof id === 'string' && typeof filename === 'string' ? [{ id, filename }] : []
        })
      }
    },

    /** Rewrites a message (`PATCH /channels/{id}/messages/{message}`); a forum post's opening message has the thread's id. */
    async editMessage (channelId: string, messageId: string, message: ChatMessage): Promise<void> {
      if (!SNOWFLAKE.test(messageId)) throw new ChatPlatformError(null, 'not a message id')
      await botJson('PATCH', `${channelPath(channelId)}/messages/${messageId}`, 'message edit', message)
    },

    /** Changes a thread's tags and whether it is locked or archived (`PATCH /channels/{id}`). */
    async editThread (threadId: string, change: { appliedTags?: string[], locked?: boolean, archived?: boolean }): Promise<void> {
      await botJson('PATCH', channelPath(threadId), 'thread update', {
        ...(change.appliedTags !== undefined && { applied_tags: change.appliedTags }),
        ...(change.locked !== undefined && { locked: change.locked }),
        ...(change.archived !== undefined && { archived: change.archived })
      })
    },

    /** The account an access token belongs to (`GET /users/@me`). */
    async currentUser (accessToken: string): Promise<ChatPlatformUser> {
      const res = await request('/users/@me', { headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' } })
      if (!res.ok) throw new ChatPlatformError(res.status, `current user lookup answered ${res.status}`)
      return toUser(jsonObject(res, 'current user lookup'), res.status, 'current user lookup')
    }
  }
}

export type ChatPlatform = ReturnType<typeof createChatPlatform>

/**
 * Telegram sign-in is on when configured so and a bot token is there: without the token anyone could
 * compute a valid hash, so TELEGRAM_ENABLED=true alone never counts.
 */
export const telegramConfigured = (config: Pick<Config, 'TELEGRAM_ENABLED' | 'TELEGRAM_BOT_TOKEN'>): boolean =>
  config.TELEGRAM_ENABLED === true && config.TELEGRAM_BOT_TOKEN !== ''

/** The bot the widget names: TELEGRAM_BOT_USERNAME, else the `telegram_bot` site setting, without a leading @. */
export async function telegramBotUsername (config: Pick<Config, 'TELEGRAM_BOT_USERNAME'>, siteSettings: Pick<SiteSettings, 'get'>): Promise<string> {
  const configured = config.TELEGRAM_BOT_USERNAME.trim()
  const name = configured !== '' ? configured : (await siteSettings.get('telegram_bot') ?? '')
  return name.trim().replace(/^@/, '')
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The chat platform's (Discord's) HTTP API at DISCORD_API_URL. */
    chatPlatform: ChatPlatform
  }
}

export default fp(async (fastify) => {
  const { config } = fastify
  fastify.decorate('chatPlatform', createChatPlatform({
    apiUrl: config.DISCORD_API_URL,
    botToken: config.DISCORD_BOT_TOKEN,
    clientId: config.DISCORD_CLIENT_ID,
    clientSecret: config.DISCORD_CLIENT_SECRET,
    maxBytes: config.UPSTREAM_MAX_BYTES
  }))
}, { name: 'chat-platform', fastify: '5.x', dependencies: ['config'] })
