import { randomBytes } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * The chat platform's (Discord's) HTTP API on 127.0.0.1, in the shape the service uses: the OAuth2
 * authorize page and token endpoint, `GET /users/@me`, the bot's guild-member and user lookups, and the
 * forum calls of the geofence review post (channel read and edit with its `available_tags`, starting a
 * forum thread, posting, reading and editing messages, with files uploaded as Discord documents it:
 * multipart/form-data, the JSON body in a `payload_json` part and each file in a `files[n]` part, shown
 * in an embed by `attachment://<filename>`). `url` plays the role of DISCORD_API_URL
 * (`https://discord.com/api` in production): every route is relative to it, with or without a version.
 * Error bodies are Discord's: `{error}` on the OAuth2 endpoints, `{message, code}` on the API.
 */

export interface ChatUser {
  id: string
  username: string
  global_name?: string | null
  avatar?: string | null
}

/** An authorization code: whom it signs in, and the redirect URI it was issued for. */
export interface CodeGrant {
  userId: string
  redirectUri?: string
}

export type ChatEndpoint = 'authorize' | 'token' | 'user' | 'member' | 'userById'
  | 'channel' | 'channelEdit' | 'forumThread' | 'message' | 'messageRead' | 'messageEdit'

export interface ForumTag {
  id: string
  name: string
  moderated: boolean
  emoji_id: string | null
  emoji_name: string | null
}

/** A file of a message, as uploaded. */
export interface ChatAttachment {
  id: string
  filename: string
  contentType: string
  bytes: Buffer
}

export interface ChatMessage {
  id: string
  content: string
  embeds: Array<Record<string, unknown>>
  allowed_mentions?: unknown
  attachments: ChatAttachment[]
  edited: boolean
}

/** Discord's channel types the fake knows: a forum (15) and the public threads of its posts (11). */
export const FORUM = 15
export const PUBLIC_THREAD = 11

export interface ChatChannel {
  id: string
  type: typeof FORUM | typeof PUBLIC_THREAD
  name: string
  /** A thread's forum. */
  parentId?: string
  /** A forum's tags (at most 20). */
  availableTags: ForumTag[]
  /** A thread's tags, ids of its forum's `availableTags` (at most 5). */
  appliedTags: string[]
  archived: boolean
  locked: boolean
  autoArchiveMinutes: number
  messages: ChatMessage[]
}

/**
 * `server_error`: 500; `hang`: never answers (until close); `garbage`: 200 with a body that claims to
 * be JSON and is not; `rate_limited`: Discord's 429 with `retry_after`.
 */
export type FailureMode = 'server_error' | 'hang' | 'garbage' | 'rate_limited'

export interface RecordedRequest {
  method: string
  /** Path relative to `url`, with the query string. */
  path: string
  headers: IncomingHttpHeaders
  /** The body as UTF-8 text (a multipart body's files too, as text). */
  body: string
}

export interface ChatPlatformOptions {
  clientId?: string
  clientSecret?: string
  botToken?: string
  /** Registered redirect URIs; when absent any redirect URI is accepted. */
  redirectUris?: string[]
  users?: ChatUser[]
  /** Account signed in by the authorize page. */
  nextUser?: string
}

export interface ChatPlatformFake {
  /** Base URL (DISCORD_API_URL). */
  readonly url: string
  readonly authorizeUrl: string
  readonly clientId: string
  readonly clientSecret: string
  readonly botToken: string
  redirectUris: string[] | undefined
  nextUser: string | undefined
  readonly users: Map<string, ChatUser>
  readonly codes: Map<string, CodeGrant>
  /** Access token → user id. */
  readonly accessTokens: Map<string, string>
  /** Guild id → (user id → role ids). A guild absent here is one the bot is not in. */
  readonly guilds: Map<string, Map<string, string[]>>
  /** Forums and threads by id. */
  readonly channels: Map<string, ChatChannel>
  /** Per-endpoint failure switches. */
  readonly failures: Partial<Record<ChatEndpoint, FailureMode>>
  readonly requests: RecordedRequest[]
  /** Puts the user in the guild (creating it) with these roles, replacing earlier ones. */
  setMember(guildId: string, userId: string, roles: string[]): void
  removeMember(guildId: string, userId: string): void
  /** A one-time code for the user, as the authorize page would issue it. */
  issueCode(userId: string, redirectUri?: string): string
  /** A forum channel with these tags (by name, with an optional emoji). */
  addForum(channelId: string, tags?: Array<{ name: string, emoji_name?: string }>): ChatChannel
  /** The threads opened in a forum, oldest first. */
  threadsOf(forumId: string): ChatChannel[]
  close(): Promise<void>
}

const ACCESS_TOKEN_SECONDS = 604800

const unauthorized = { message: '401: Unauthorized', code: 0 }

/** Snowflakes the fake hands out: increasing, 19 digits like Discord's today. */
let lastId = 1_300_000_000_000_000_000n
const nextId = (): string => String(++lastId)

export async function startChatPlatformFake (opts: ChatPlatformOptions = {}): Promise<ChatPlatformFake> {
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const { port } = server.address() as AddressInfo
  const url = `http://127.0.0.1:${port}`

  const fake: ChatPlatformFake = {
    url,
    authorizeUrl: `${url}/oauth2/authorize`,
    clientId: opts.clientId ?? '100000000000000001',
    clientSecret: opts.clientSecret ?? randomBytes(16).toString('hex'),
    botToken: opts.botToken ?? randomBytes(24).toString('base64url'),
    redirectUris: opts.redirectUris && [...opts.redirectUris],
    nextUser: opts.nextUser,
    users: new Map((opts.users ?? []).map((u) => [u.id, u])),
    codes: new Map(),
    accessTokens: new Map(),
    guilds: new Map(),
    channels: new Map(),
    failures: {},
    requests: [],
    setMember: (guildId, userId, roles) => {
      const members = fake.guilds.get(guildId) ?? new Map<string, string[]>()
      members.set(userId, [...roles])
      fake.guilds.set(guildId, members)
    },
    removeMember: (guildId, userId) => { fake.guilds.get(guildId)?.delete(userId) },
    issueCode: (userId, redirectUri) => {
      const code = randomBytes(15).toString('base64url')
      fake.codes.set(code, { userId, ...(redirectUri !== undefined && { redirectUri }) })
      return code
    },
    addForum: (channelId, tags = []) => {
      const forum: ChatChannel = {
        id: channelId,
        type: FORUM,
        name: 'geofence-reviews',
        availableTags: tags.map((tag) => ({ id: nextId(), name: tag.name, moderated: false, emoji_id: null, emoji_name: tag.emoji_name ?? null })),
        appliedTags: [],
        archived: false,
        locked: false,
        autoArchiveMinutes: 0,
        messages: []
      }
      fake.channels.set(channelId, forum)
      return forum
    },
    threadsOf: (forumId) => [...fake.channels.values()].filter((c) => c.parentId === forumId),
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }

  server.on('request', (req, res) => {
    handle(fake, req, res).catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { message: String(err), code: 0 })
    })
  })
  return fake
}

async function handle (fake: ChatPlatformFake, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const raw = await readBody(req)
  const body = raw.toString('utf8')
  const target = new URL(req.url ?? '/', fake.url)
  fake.requests.push({ method: req.method ?? '', path: target.pathname + target.search, headers: req.headers, body })

  // Discord serves every route with and without a version prefix (/api/v10/users/@me).
  const path = target.pathname.replace(/^\/v\d+(?=\/)/, '')
  const member = /^\/guilds\/([^/]+)\/members\/([^/]+)$/.exec(path)
  const byId = /^\/users\/(\d+)$/.exec(path)
  const channel = /^\/channels\/(\d+)(?:\/(threads|messages)(?:\/(\d+))?)?$/.exec(path)
  const route = routeOf(req.method, path, member !== null, byId !== null) ?? channelRouteOf(req.method, channel)
  if (route === undefined) {
    json(res, 404, { message: '404: Not Found', code: 0 })
    return
  }
  const failure = fake.failures[route]
  if (failure !== undefined) {
    fail(res, failure)
    return
  }
  switch (route) {
    case 'authorize': authorize(fake, target.searchParams, res); break
    case 'token': token(fake, req.headers, body, res); break
    case 'user': currentUser(fake, req.headers, res); break
    case 'userById': userById(fake, req.headers, byId?.[1] ?? '', res); break
    case 'member': guildMember(fake, req.headers, decodeURIComponent(member?.[1] ?? ''), decodeURIComponent(member?.[2] ?? ''), res); break
    default: await forumCall(fake, route, req.headers, channel?.[1] ?? '', channel?.[3], raw, res)
  }
}

function channelRouteOf (method: string | undefined, channel: RegExpExecArray | null): ChatEndpoint | undefined {
  if (channel === null) return undefined
  const [, , sub, messageId] = channel
  if (sub === undefined) return method === 'GET' ? 'channel' : method === 'PATCH' ? 'channelEdit' : undefined
  if (sub === 'threads' && messageId === undefined && method === 'POST') return 'forumThread'
  if (sub === 'messages' && messageId === undefined && method === 'POST') return 'message'
  if (sub === 'messages' && messageId !== undefined && method === 'GET') return 'messageRead'
  if (sub === 'messages' && messageId !== undefined && method === 'PATCH') return 'messageEdit'
  return undefined
}

/** Discord's answer to a body it refuses: 50035 with the fields at fault. */
const invalidForm = (res: ServerResponse, field: string, message: string): void =>
  json(res, 400, { message: 'Invalid Form Body', code: 50035, errors: { [field]: { _errors: [{ code: 'BASE_TYPE_INVALID', message }] } } })

const ARCHIVE_DURATIONS = [60, 1440, 4320, 10080]

function channelJson (channel: ChatChannel): object {
  return channel.type === FORUM
    ? { id: channel.id, type: FORUM, name: channel.name, available_tags: channel.availableTags, flags: 0 }
    : {
        id: channel.id,
        type: PUBLIC_THREAD,
        name: channel.name,
        parent_id: channel.parentId,
        applied_tags: channel.appliedTags,
        thread_metadata: { archived: channel.archived, locked: channel.locked, auto_archive_duration: channel.autoArchiveMinutes },
        message_count: channel.messages.length - 1
      }
}

const messageJson = (channelId: string, message: ChatMessage): object => ({
  id: message.id,
  channel_id: channelId,
  type: 0,
  content: message.content,
  embeds: message.embeds,
  attachments: message.attachments.map((file) => ({
    id: file.id,
    filename: file.filename,
    size: file.bytes.length,
    content_type: file.contentType,
    url: `https://cdn.discordapp.com/attachments/${channelId}/${file.id}/${file.filename}`
  })),
  edited_timestamp: message.edited ? '2026-11-26T12:00:00.000000+00:00' : null
})

/** Discord's upload limit for a message's files without a boosted server: 10 MiB. */
const UPLOAD_MAX_BYTES = 10 * 1024 * 1024

/** A request body: JSON, or multipart/form-data with the JSON in `payload_json` and the files in `files[n]`. */
interface RequestBody {
  json: Record<string, unknown>
  uploads: Array<{ filename: string, contentType: string, bytes: Buffer }>
}

async function requestBody (headers: IncomingHttpHeaders, raw: Buffer, res: ServerResponse): Promise<RequestBody | null> {
  const type = String(headers['content-type'] ?? '')
  let text = raw.toString('utf8')
  const uploads: RequestBody['uploads'] = []
  if (type.startsWith('multipart/form-data')) {
    let form: FormData
    try {
      form = await new Response(new Uint8Array(raw), { headers: { 'content-type': type } }).formData()
    } catch {
      json(res, 400, { message: 'Invalid multipart body', code: 50109 })
      return null
    }
    for (const [name, value] of form.entries()) {
      if (name === 'payload_json' && typeof value === 'string') text = value
      else if (/^files\[\d+\]$/.test(name) && typeof value !== 'string') {
        uploads.push({ filename: value.name, contentType: value.type, bytes: Buffer.from(await value.arrayBuffer()) })
      }
    }
    if (uploads.reduce((sum, file) => sum + file.bytes.length, 0) > UPLOAD_MAX_BYTES) {
      json(res, 413, { message: 'Request entity too large', code: 40005 })
      return null
    }
  }
  try {
    return { json: JSON.parse(text) as Record<string, unknown>, uploads }
  } catch {
    json(res, 400, { message: 'The request body contains invalid JSON.', code: 50109 })
    return null
  }
}

/** Uploaded files as a message's attachments: each `files[n]` part, named by its part's filename. */
const attachmentsOf = (uploads: RequestBody['uploads']): ChatAttachment[] =>
  uploads.map((file) => ({ id: nextId(), ...file }))

/**
 * A message body as Discord checks it: text, embeds or files (not none), at most 2000 characters and
 * 10 embeds; an `attachments` entry of a new message names an uploaded file by its index.
 */
function messageProblem (body: Record<string, unknown>, uploads: number, res: ServerResponse): boolean {
  const content = body.content
  const embeds = body.embeds
  if (content !== undefined && (typeof content !== 'string' || content.length > 2000)) { invalidForm(res, 'content', 'Must be 2000 or fewer in length.'); return true }
  if (embeds !== undefined && (!Array.isArray(embeds) || embeds.length > 10)) { invalidForm(res, 'embeds', 'Must be 10 or fewer in length.'); return true }
  const attachments = body.attachments
  if (attachments !== undefined && (!Array.isArray(attachments) || !attachments.every((a) => Number.isInteger((a as { id?: unknown } | null)?.id) && (a as { id: number }).id < uploads))) {
    invalidForm(res, 'attachments', 'Unknown attachment.')
    return true
  }
  if ((content === undefined || content === '') && (embeds === undefined || (embeds as unknown[]).length === 0) && uploads === 0) {
    json(res, 400, { message: 'Cannot send an empty message', code: 50006 })
    return true
  }
  return false
}

const toMessage = (id: string, body: Record<string, unknown>, attachments: ChatAttachment[]): ChatMessage => ({
  id,
  content: typeof body.content === 'string' ? body.content : '',
  embeds: Array.isArray(body.embeds) ? body.embeds as Array<Record<string, unknown>> : [],
  allowed_mentions: body.allowed_mentions,
  attachments,
  edited: false
})

/**
 * The forum calls. As on Discord: a post's opening message has the thread's id; a message sent to an
 * archived thread reopens it unless it is locked; an archived thread refuses edits (50083) except one
 * that reopens it; tags must be the forum's own.
 */
async function forumCall (fake: ChatPlatformFake, route: ChatEndpoint, headers: IncomingHttpHeaders, channelId: string, messageId: string | undefined, raw: Buffer, res: ServerResponse): Promise<void> {
  if (!botSignedIn(fake, headers, res)) return
  const channel = fake.channels.get(channelId)
  if (channel === undefined) {
    json(res, 404, { message: 'Unknown Channel', code: 10003 })
    return
  }
  if (route === 'channel') {
    json(res, 200, channelJson(channel))
    return
  }
  if (route === 'messageRead') {
    const message = channel.messages.find((m) => m.id === messageId)
    if (message === undefined) json(res, 404, { message: 'Unknown Message', code: 10008 })
    else json(res, 200, messageJson(channel.id, message))
    return
  }
  const parsed = await requestBody(headers, raw, res)
  if (parsed === null) return
  const body = parsed.json
  const archivedRefusal = () => json(res, 400, { message: 'Thread is archived', code: 50083 })
  switch (route) {
    case 'channelEdit': {
      if (channel.type === FORUM) {
        const tags = body.available_tags
        if (tags !== undefined) {
          if (!Array.isArray(tags) || tags.length > 20) return invalidForm(res, 'available_tags', 'Must be 20 or fewer in length.')
          const next: ForumTag[] = []
          for (const tag of tags as Array<Partial<ForumTag>>) {
            if (typeof tag.name !== 'string' || tag.name.length < 1 || tag.name.length > 20) return invalidForm(res, 'available_tags', 'Tag names must be between 1 and 20 in length.')
            if (tag.id !== undefined && !channel.availableTags.some((t) => t.id === tag.id)) return invalidForm(res, 'available_tags', 'Unknown tag.')
            next.push({ id: tag.id ?? nextId(), name: tag.name, moderated: tag.moderated === true, emoji_id: tag.emoji_id ?? null, emoji_name: tag.emoji_name ?? null })
          }
          channel.availableTags = next
        }
        json(res, 200, channelJson(channel))
        return
      }
      if (channel.archived && body.archived !== false) return archivedRefusal()
      if (body.applied_tags !== undefined) {
        const forum = fake.channels.get(channel.parentId ?? '')
        const tags = body.applied_tags
        if (!Array.isArray(tags) || tags.length > 5 || !tags.every((id) => forum?.availableTags.some((t) => t.id === id))) return invalidForm(res, 'applied_tags', 'Unknown tag.')
        channel.appliedTags = tags as string[]
      }
      if (typeof body.locked === 'boolean') channel.locked = body.locked
      if (typeof body.archived === 'boolean') channel.archived = body.archived
      json(res, 200, channelJson(channel))
      return
    }
    case 'forumThread': {
      if (channel.type !== FORUM) {
        json(res, 400, { message: 'Cannot execute action on this channel type', code: 50024 })
        return
      }
      const name = body.name
      if (typeof name !== 'string' || name.length < 1 || name.length > 100) return invalidForm(res, 'name', 'Must be between 1 and 100 in length.')
      const minutes = body.auto_archive_duration ?? 4320
      if (!ARCHIVE_DURATIONS.includes(minutes as number)) return invalidForm(res, 'auto_archive_duration', 'Value must be one of (60, 1440, 4320, 10080).')
      const tags = body.applied_tags ?? []
      if (!Array.isArray(tags) || tags.length > 5 || !tags.every((id) => channel.availableTags.some((t) => t.id === id))) return invalidForm(res, 'applied_tags', 'Unknown tag.')
      const opening = body.message
      if (typeof opening !== 'object' || opening === null) return invalidForm(res, 'message', 'This field is required')
      if (messageProblem(opening as Record<string, unknown>, parsed.uploads.length, res)) return
      const thread: ChatChannel = {
        id: nextId(),
        type: PUBLIC_THREAD,
        name,
        parentId: channel.id,
        availableTags: [],
        appliedTags: tags as string[],
        archived: false,
        locked: false,
        autoArchiveMinutes: minutes as number,
        messages: []
      }
      thread.messages.push(toMessage(thread.id, opening as Record<string, unknown>, attachmentsOf(parsed.uploads)))
      fake.channels.set(thread.id, thread)
      json(res, 201, { ...channelJson(thread), message: messageJson(thread.id, thread.messages[0] as ChatMessage) })
      return
    }
    case 'message': {
      if (channel.type === FORUM) {
        json(res, 400, { message: 'Cannot send messages in a non-text channel', code: 50008 })
        return
      }
      if (channel.archived && channel.locked) return archivedRefusal()
      if (messageProblem(body, parsed.uploads.length, res)) return
      channel.archived = false
      const message = toMessage(nextId(), body, attachmentsOf(parsed.uploads))
      channel.messages.push(message)
      json(res, 200, messageJson(channel.id, message))
      return
    }
    case 'messageEdit': {
      const message = channel.messages.find((m) => m.id === messageId)
      if (message === undefined) {
        json(res, 404, { message: 'Unknown Message', code: 10008 })
        return
      }
      if (channel.archived) return archivedRefusal()
      if (body.content !== undefined) message.content = String(body.content)
      if (Array.isArray(body.embeds)) message.embeds = body.embeds as Array<Record<string, unknown>>
      // `attachments` lists the files to keep, by id; without it every file stays. New uploads are added.
      const keep = Array.isArray(body.attachments) ? (body.attachments as Array<{ id?: unknown }>).map((a) => String(a.id)) : null
      message.attachments = [...message.attachments.filter((file) => keep === null || keep.includes(file.id)), ...attachmentsOf(parsed.uploads)]
      message.edited = true
      json(res, 200, messageJson(channel.id, message))
    }
  }
}

function routeOf (method: string | undefined, path: string, isMember: boolean, isUserById: boolean): ChatEndpoint | undefined {
  if (method === 'GET' && path === '/oauth2/authorize') return 'authorize'
  if (method === 'POST' && path === '/oauth2/token') return 'token'
  if (method === 'GET' && path === '/users/@me') return 'user'
  if (method === 'GET' && isMember) return 'member'
  if (method === 'GET' && isUserById) return 'userById'
  return undefined
}

/**
 * The consent page, already approved: 302 back to `redirect_uri` with a code for `nextUser` (or
 * `access_denied` when there is none, as when the user cancels). Requests the platform cannot
 * redirect (unknown client, unregistered redirect URI) get an error page instead, like the real one.
 */
function authorize (fake: ChatPlatformFake, query: URLSearchParams, res: ServerResponse): void {
  const redirectUri = query.get('redirect_uri')
  if (query.get('client_id') !== fake.clientId) {
    page(res, 400, 'Unknown Application')
    return
  }
  if (redirectUri === null || (fake.redirectUris !== undefined && !fake.redirectUris.includes(redirectUri))) {
    page(res, 400, 'Invalid OAuth2 redirect_uri')
    return
  }
  const back = new URL(redirectUri)
  const state = query.get('state')
  if (query.get('response_type') !== 'code') {
    back.searchParams.set('error', 'unsupported_response_type')
  } else if (fake.nextUser === undefined) {
    back.searchParams.set('error', 'access_denied')
    back.searchParams.set('error_description', 'The resource owner or authorization server denied the request')
  } else {
    back.searchParams.set('code', fake.issueCode(fake.nextUser, redirectUri))
  }
  if (state !== null) back.searchParams.set('state', state)
  res.writeHead(302, { location: back.href }).end()
}

/** Code exchange. Client credentials are accepted in the form body or as HTTP Basic, as Discord does. */
function token (fake: ChatPlatformFake, headers: IncomingHttpHeaders, body: string, res: ServerResponse): void {
  if (!String(headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
    json(res, 400, { error: 'invalid_request', error_description: 'Unsupported content type' })
    return
  }
  const form = new URLSearchParams(body)
  const basic = /^basic (.+)$/i.exec(String(headers.authorization ?? ''))?.[1]
  const [basicId, basicSecret] = basic === undefined
    ? []
    : Buffer.from(basic, 'base64').toString('utf8').split(':').map(decodeURIComponent)
  const clientId = basicId ?? form.get('client_id')
  const clientSecret = basicSecret ?? form.get('client_secret')
  if (clientId !== fake.clientId || clientSecret !== fake.clientSecret) {
    json(res, 401, { error: 'invalid_client' })
    return
  }
  if (form.get('grant_type') !== 'authorization_code') {
    json(res, 400, { error: 'unsupported_grant_type' })
    return
  }
  const code = form.get('code') ?? ''
  const grant = fake.codes.get(code)
  if (grant === undefined || !fake.users.has(grant.userId)) {
    json(res, 400, { error: 'invalid_grant', error_description: 'Invalid "code" in request.' })
    return
  }
  if (grant.redirectUri !== undefined && form.get('redirect_uri') !== grant.redirectUri) {
    json(res, 400, { error: 'invalid_grant', error_description: 'Invalid "redirect_uri" in request.' })
    return
  }
  fake.codes.delete(code)
  const accessToken = randomBytes(20).toString('base64url')
  fake.accessTokens.set(accessToken, grant.userId)
  json(res, 200, {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: ACCESS_TOKEN_SECONDS,
    refresh_token: randomBytes(20).toString('base64url'),
    scope: 'identify',
  })
}

function currentUser (fake: ChatPlatformFake, headers: IncomingHttpHeaders, res: ServerResponse): void {
  const bearer = /^bearer (.+)$/i.exec(String(headers.authorization ?? ''))?.[1]
  const user = bearer === undefined ? undefined : fake.users.get(fake.accessTokens.get(bearer) ?? '')
  if (user === undefined) {
    json(res, 401, unauthorized)
    return
  }
  json(res, 200, publicUser(user))
}

/** Bot routes take `Authorization: Bot <token>`; anything else is Discord's 401. */
function botSignedIn (fake: ChatPlatformFake, headers: IncomingHttpHeaders, res: ServerResponse): boolean {
  if (headers.authorization === `Bot ${fake.botToken}`) return true
  json(res, 401, unauthorized)
  return false
}

/** The bot's user lookup: Discord's 10013 Unknown User for an id it does not know. */
function userById (fake: ChatPlatformFake, headers: IncomingHttpHeaders, userId: string, res: ServerResponse): void {
  if (!botSignedIn(fake, headers, res)) return
  const user = fake.users.get(userId)
  if (user === undefined) {
    json(res, 404, { message: 'Unknown User', code: 10013 })
    return
  }
  json(res, 200, publicUser(user))
}

/** The bot's member lookup. A guild the fake does not know is one the bot is not in: 403 Missing Access. */
function guildMember (
  fake: ChatPlatformFake,
  headers: IncomingHttpHeaders,
  guildId: string,
  userId: string,
  res: ServerResponse
): void {
  if (!botSignedIn(fake, headers, res)) return
  const members = fake.guilds.get(guildId)
  if (members === undefined) {
    json(res, 403, { message: 'Missing Access', code: 50001 })
    return
  }
  const roles = members.get(userId)
  if (roles === undefined) {
    json(res, 404, { message: 'Unknown Member', code: 10007 })
    return
  }
  json(res, 200, {
    user: publicUser(fake.users.get(userId) ?? { id: userId, username: userId }),
    nick: null,
    avatar: null,
    roles,
    joined_at: '2024-01-01T00:00:00.000000+00:00',
    premium_since: null,
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
  })
}

function publicUser (user: ChatUser): object {
  return {
    id: user.id,
    username: user.username,
    global_name: user.global_name ?? null,
    avatar: user.avatar ?? null,
    discriminator: '0',
    public_flags: 0,
  }
}

function fail (res: ServerResponse, mode: FailureMode): void {
  switch (mode) {
    case 'server_error': json(res, 500, { message: '500: Internal Server Error', code: 0 }); break
    case 'garbage': res.writeHead(200, { 'content-type': 'application/json' }).end('<html>upstream error</html>'); break
    case 'rate_limited':
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' })
        .end(JSON.stringify({ message: 'You are being rate limited.', retry_after: 0.5, global: false }))
      break
    // The request stays open; close() destroys it with the other connections.
    case 'hang': break
  }
}

function json (res: ServerResponse, status: number, body: object): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
}

function page (res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><title>${message}</title><p>${message}</p>`)
}

async function readBody (req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}
