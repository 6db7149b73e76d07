import type { userGeofences } from '../../../db/schema/service.js'
import { badRequest } from '../../edge/errors.js'
import type { LatLon } from '../../../lib/polygon.js'

/*
 * What a member's fence is and may be: the reference's limits, the naming rules, the statuses the feed
 * serves, and a stored row as the API shows it. Nothing here reads or writes a table.
 */

/** The reference's limits for user-drawn fences. */
export const MAX_FENCES_PER_USER = 10
export const NAME_MAX = 50
const NAME_CHARSET = /^[A-Za-z0-9 \-'.()&]+$/

/**
 * The engine's name of a member's fence: the display name in lower case, then ` ~u<fence id>`. The id
 * is unique, so no two member fences can share a name, and `~` cannot be typed into a display name, so
 * a member cannot name a fence like another member's. Names from before this scheme (plain lower-case
 * display names) keep working until the fence is renamed; see `isLegacyName`.
 */
export const engineName = (id: number, displayName: string): string => `${displayName.toLowerCase()} ~u${id}`
const ENGINE_NAME = / ~u\d+$/
/** A fence named by the old rule (its display name in lower case), which can equal a shared area's name. */
export const isLegacyName = (name: string): boolean => !ENGINE_NAME.test(name)

export type FenceStatus = 'active' | 'pending_review' | 'approved' | 'rejected'
/** Statuses the service itself serves in the feed; approved fences are in Koji. */
export const FEED_STATUSES: FenceStatus[] = ['active', 'pending_review', 'rejected']
/**
 * How long the feed trusts its last reading of the user part's fingerprint. This instance's own changes
 * end it at once; another instance's change shows in this instance's feed at most this much later.
 */
export const FEED_FINGERPRINT_TTL_MS = 5000

/**
 * One alarm's override areas as the engine can take them: the engine drops names of user-drawn fences
 * (it serves them as not selectable), so `sent` leaves every private fence out (null for none) and
 * `own` says whether the user's own fences were among the names (then the alarm writer writes the full
 * list directly to the engine DB). Another user's private fence is refused as unknown: the caller cannot
 * see it. `owners` is `privateNames()`.
 */
export function splitOverrideAreas (owners: Map<string, string>, userId: string, names: string[], field: string): { sent: string[] | null, own: boolean } {
  const foreign = names.find((n) => owners.has(n) && owners.get(n) !== userId)
  if (foreign !== undefined) throw badRequest('Invalid request', { details: [{ field, message: `unknown area: ${foreign}` }] })
  const sent = names.filter((n) => !owners.has(n))
  return { sent: sent.length > 0 ? sent : null, own: sent.length < names.length }
}

export type FenceRow = typeof userGeofences.$inferSelect

export interface UserFence {
  id: number
  humanId: string
  kojiName: string
  displayName: string
  groupName: string
  status: FenceStatus
  parentId: number | null
  polygon: LatLon[]
  pointCount: number
  submittedAt: string | null
  reviewedAt: string | null
  reviewedBy: string | null
  reviewNotes: string | null
  promotedName: string | null
  createdAt: string
  updatedAt: string
}

/** Why one feature of an import file cannot be created (`file` for the file as a whole). */
export interface ImportProblem { featureName: string, reason: string }

export interface FenceInput {
  displayName: string
  groupName?: string
  parentId?: number | null
  polygon: unknown
}

export const parsePolygon = (text: string | null): LatLon[] => {
  try {
    const parsed: unknown = JSON.parse(text ?? '[]')
    return Array.isArray(parsed) ? parsed as LatLon[] : []
  } catch {
    return []
  }
}

export const toFence = (row: FenceRow): UserFence => {
  const polygon = parsePolygon(row.polygonJson)
  return {
    id: row.id,
    humanId: row.humanId,
    kojiName: row.kojiName,
    displayName: row.displayName,
    groupName: row.groupName,
    status: row.status as FenceStatus,
    parentId: row.parentId,
    polygon,
    pointCount: polygon.length,
    submittedAt: row.submittedAt,
    reviewedAt: row.reviewedAt,
    reviewedBy: row.reviewedBy,
    reviewNotes: row.reviewNotes,
    promotedName: row.promotedName,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt
  }
}

/** The display-name rule: 1 to 50 characters of letters, digits, space and - ' . ( ) &. */
export function nameProblem (name: string): string | null {
  const trimmed = name.trim()
  if (trimmed.length < 1 || trimmed.length > NAME_MAX) return `name must be 1 to ${NAME_MAX} characters`
  if (!NAME_CHARSET.test(trimmed)) return "name may contain only letters, digits, spaces and - ' . ( ) &"
  return null
}
