import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { sphericalAreaKm2, type LatLon } from '../../lib/polygon.js'
import { ChatPlatformError, type ChatFile, type ChatMessage, type ForumTag } from '../data/chat-platform.js'
import { MapImageError } from '../data/engine/map-image.js'

export type ForumStatus = 'pending' | 'approved' | 'rejected'

/** The tags a review thread carries, created on the forum channel when it lacks them. */
export const FORUM_TAGS: Record<ForumStatus, { name: string, emoji: string }> = {
  pending: { name: 'Geofence - Pending', emoji: '📋' },
  approved: { name: 'Geofence - Approved', emoji: '✅' },
  rejected: { name: 'Geofence - Rejected', emoji: '❌' }
}
const STATUSES = Object.keys(FORUM_TAGS) as ForumStatus[]
const COLOURS: Record<ForumStatus, number> = { pending: 0xf59e0b, approved: 0x22c55e, rejected: 0xef4444 }
const LABELS: Record<ForumStatus, string> = { pending: 'Pending review', approved: 'Approved', rejected: 'Rejected' }
/** A week: the review usually takes days, and a post archived before it would drop out of the forum's list. */
const AUTO_ARCHIVE_MINUTES = 10080
/** The platform's limits on an embed field's value and a thread's name. */
const FIELD_MAX = 1024
const THREAD_NAME_MAX = 100
/** The map's file name on the platform, as the reference names it; the embed shows it as `attachment://…`. */
const MAP_FILE = 'geofence-map.png'
const MAP_ATTACHMENT = `attachment://${MAP_FILE}`

/** What a review post shows of a member's fence. */
export interface ForumFence {
  id: number
  displayName: string
  /**
   * The area name it is (or would be) published under. It is also the name the engine knows the fence
   * by: the feed serves a submitted fence under its own (Koji) name, which is this until approval, and an
   * approved one comes from Koji under this name.
   */
  publishedName: string
  polygon: LatLon[]
  ownerId: string
  ownerName: string | null
  /** Only a chat-platform account can be mentioned; a Telegram user or an SSO id is named, not pinged. */
  ownerIsChatUser: boolean
}

export type Verdict = { status: 'approved' } | { status: 'rejected', reason: string }

const cut = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

function centroid (polygon: LatLon[]): LatLon {
  const n = Math.max(polygon.length, 1)
  return [polygon.reduce((sum, [lat]) => sum + lat, 0) / n, polygon.reduce((sum, [, lon]) => sum + lon, 0) / n]
}

/**
 * The review post of member geofences in the chat platform's forum channel
 * (DISCORD_GEOFENCE_FORUM_CHANNEL_ID, with the bot token): a thread per submission, tagged pending, with
 * the engine's map of the fence, then rewritten, answered and re-tagged on approval or rejection. The
 * forum is a notice board beside the admin page, never a step of the review: every call runs after the
 * member's or admin's answer, one fence's calls in order, and a failure is logged and dropped.
 */
function createGeofenceForum (fastify: FastifyInstance) {
  const { config, chatPlatform, engine, log } = fastify
  const forumId = config.DISCORD_GEOFENCE_FORUM_CHANNEL_ID
  const enabled = forumId !== '' && config.DISCORD_BOT_TOKEN !== ''
  const origin = config.PUBLIC_URL ?? config.CORS_ORIGIN[0]
  const reviewPage = origin === undefined ? null : `${origin}/admin/geofences`
  /** Each fence's forum work in order (a verdict must find the thread its post opened); bounded by work in flight. */
  const queues = new Map<number, Promise<void>>()
  /** Aborted at shutdown: a map still downloading is linked instead, so closing waits for no tileserver. */
  const closing = new AbortController()
  /** The channel's tag ids, looked up (and created) once per process; a failed lookup is tried again next time. */
  let tagIds: Promise<Record<ForumStatus, string> | null> | null = null

  async function ensureTags (): Promise<Record<ForumStatus, string>> {
    const present = await chatPlatform.forumTags(forumId)
    const missing = STATUSES.filter((s) => !present.some((tag) => tag.name === FORUM_TAGS[s].name))
    const tags = missing.length === 0
      ? present
      : await chatPlatform.setForumTags(forumId, [
        ...present,
        ...missing.map((s): ForumTag => ({ name: FORUM_TAGS[s].name, moderated: false, emoji_id: null, emoji_name: FORUM_TAGS[s].emoji }))
      ])
    const ids = {} as Record<ForumStatus, string>
    for (const s of STATUSES) {
      const id = tags.find((tag) => tag.name === FORUM_TAGS[s].name)?.id
      if (id === undefined) throw new ChatPlatformError(200, 'forum tag update answered without the review tags')
      ids[s] = id
    }
    return ids
  }

  /** The review tags, or null when the channel's tags cannot be read or made: posts then go out untagged. */
  function tags (): Promise<Record<ForumStatus, string> | null> {
    tagIds ??= ensureTags().catch((err: unknown) => {
      tagIds = null
      log.warn({ reason: (err as Error).message }, 'geofence forum: the review tags could not be read or created; posting without them')
      return null
    })
    return tagIds
  }

  /**
   * The fence's picture for the opening post: the engine's static map of its area, downloaded and uploaded
   * with the post (the platform keeps the file; the tileserver's copy may expire), linked instead when the
   * download fails, and none when the engine has no map to give: no tileserver configured (PoracleJS says
   * so in a 200 with an error status, PoracleNG with a 503), or no such area yet. Never throws.
   */
  async function mapOf (fence: ForumFence): Promise<{ image?: string, file?: ChatFile }> {
    let url: string
    try {
      url = await engine.geofence.areaMap(fence.publishedName)
    } catch (err) {
      log.info({ geofenceId: fence.id, reason: (err as Error).message }, 'geofence forum: the engine has no map of the area; posting without one')
      return {}
    }
    try {
      const { bytes, contentType } = await engine.geofence.mapImage(url, config.MAP_IMAGE_TIMEOUT_MS, closing.signal)
      return { image: MAP_ATTACHMENT, file: { name: MAP_FILE, contentType, bytes } }
    } catch (err) {
      // An address that is no http(s) URL is not one the platform would show either.
      const linkable = !(err instanceof MapImageError && err.fault === 'address')
      log.warn({ geofenceId: fence.id, reason: (err as Error).message }, `geofence forum: the map image could not be downloaded; ${linkable ? 'linking it instead' : 'posting without it'}`)
      return linkable ? { image: url } : {}
    }
  }

  /**
   * What the opening post shows as its image, to keep through a rewrite: its uploaded map (kept by id,
   * which also keeps the platform from showing the file a second time below the embed), or the linked one.
   */
  async function openingImage (threadId: string): Promise<{ image?: string, keep?: ChatMessage['attachments'] }> {
    const opening = await chatPlatform.message(threadId, threadId)
    const map = opening.attachments.find((file) => file.filename === MAP_FILE)
    if (map !== undefined) return { image: MAP_ATTACHMENT, keep: [{ id: map.id }] }
    const url = (opening.embeds[0]?.image as { url?: unknown } | undefined)?.url
    return typeof url === 'string' ? { image: url } : {}
  }

  function openingEmbed (fence: ForumFence, status: ForumStatus, reason?: string, image?: string): Record<string, unknown> {
    const [lat, lon] = centroid(fence.polygon).map((v) => Number(v.toFixed(5))) as LatLon
    const fields = [
      { name: 'Status', value: LABELS[status], inline: true },
      { name: 'Size', value: `${sphericalAreaKm2(fence.polygon).toFixed(2)} km²`, inline: true },
      { name: 'Publishes as', value: cut(fence.publishedName, FIELD_MAX), inline: true },
      { name: 'Location', value: `[${lat}, ${lon}](https://www.google.com/maps?q=${lat},${lon})` },
      ...(reason !== undefined ? [{ name: 'Reason', value: cut(reason, FIELD_MAX) }] : [])
    ]
    return {
      title: fence.displayName,
      ...(reviewPage !== null && { url: reviewPage }),
      color: COLOURS[status],
      ...(fence.ownerName !== null && { author: { name: cut(fence.ownerName, 256) } }),
      fields,
      ...(image !== undefined && { image: { url: image } })
    }
  }

  /** The owner's mention, and the only one the message may ping: a name with "@everyone" in it stays text. */
  const addressing = (fence: ForumFence, text: string): ChatMessage => ({
    content: fence.ownerIsChatUser ? `<@${fence.ownerId}> ${text}` : text,
    allowed_mentions: { parse: [], ...(fence.ownerIsChatUser && { users: [fence.ownerId] }) }
  })

  return {
    /** Whether review posts go to a forum at all. */
    enabled,

    /**
     * Runs `work` after the fence's earlier forum work, in the background: its failure is logged with
     * `what`, never thrown, so a chat-platform fault never fails the member's or admin's request.
     */
    later (fenceId: number, what: string, work: () => Promise<void>): void {
      if (!enabled) return
      const next: Promise<void> = (queues.get(fenceId) ?? Promise.resolve()).then(work)
        .catch((err: unknown) => {
          log.warn({ geofenceId: fenceId, reason: (err as Error).message }, `geofence forum: the ${what} failed; the review goes on without it`)
        })
        .then(() => { if (queues.get(fenceId) === next) queues.delete(fenceId) })
      queues.set(fenceId, next)
    },

    /** Settles when every forum call started so far has finished (shutdown waits for it; so do tests). */
    async idle (): Promise<void> {
      while (queues.size > 0) await Promise.all([...queues.values()])
    },

    /** Ends the forum work under way at shutdown: map downloads stop, the posts go out with the map linked. */
    async close (): Promise<void> {
      closing.abort()
      await this.idle()
    },

    /** Opens the fence's review post, tagged pending, with its map when there is one; answers the thread's id. */
    async announce (fence: ForumFence): Promise<string> {
      const [ids, map] = await Promise.all([tags(), mapOf(fence)])
      return chatPlatform.startForumThread(forumId, {
        name: cut(`Geofence Request: ${fence.displayName}`, THREAD_NAME_MAX),
        autoArchiveMinutes: AUTO_ARCHIVE_MINUTES,
        appliedTags: ids === null ? [] : [ids.pending],
        message: {
          ...addressing(fence, 'submitted an area for review.'),
          embeds: [openingEmbed(fence, 'pending', undefined, map.image)]
        },
        ...(map.file !== undefined && { files: [map.file] })
      })
    },

    /**
     * Tells the thread the verdict: a message to the owner first (it also reopens a thread the platform
     * archived for inactivity), then the opening post rewritten (its map kept) and the tag changed; an
     * approved fence's thread is locked and archived, a rejected one stays open because it may still be
     * approved.
     */
    async review (threadId: string, fence: ForumFence, verdict: Verdict): Promise<void> {
      const reason = verdict.status === 'rejected' ? verdict.reason : undefined
      await chatPlatform.postMessage(threadId, {
        ...addressing(fence, verdict.status === 'approved'
          ? `your area is approved and published as "${fence.publishedName}".`
          : 'your area was not approved; it keeps working for you privately.'),
        embeds: [{
          title: LABELS[verdict.status],
          color: COLOURS[verdict.status],
          ...(reason !== undefined && { description: cut(reason, FIELD_MAX) })
        }]
      })
      const { image, keep } = await openingImage(threadId)
      await chatPlatform.editMessage(threadId, threadId, {
        embeds: [openingEmbed(fence, verdict.status, reason, image)],
        ...(keep !== undefined && { attachments: keep })
      })
      const ids = await tags()
      await chatPlatform.editThread(threadId, {
        ...(ids !== null && { appliedTags: [ids[verdict.status]] }),
        ...(verdict.status === 'approved' && { locked: true, archived: true })
      })
    }
  }
}

export type GeofenceForum = ReturnType<typeof createGeofenceForum>

declare module 'fastify' {
  interface FastifyInstance {
    geofenceForum: GeofenceForum
  }
}

export default fp(async (fastify) => {
  const forum = createGeofenceForum(fastify)
  fastify.decorate('geofenceForum', forum)
  // Forum work under way still reads and writes the fence rows: it ends before the pools close.
  fastify.addHook('preClose', async () => forum.close())
}, { name: 'geofence-forum', fastify: '5.x', dependencies: ['config', 'chat-platform', 'engine'] })
