import type { EventType, Explanation, RecentList, RecentEventType } from '../../../schemas/alarm-explanations'
import { api, segment, withQuery } from './transport'

/* "Why didn't I get that alert?": the recent events seen in the member's places, and one explained. */

/** Whose list: the signed-in member's, or (for an admin) a member's by id. */
const base = (userId?: string): string => userId === undefined ? '/api/alarm-explanations' : `/api/admin/users/${segment(userId)}/alarm-explanations`

export const recent = async (type: RecentEventType, cursor: string | undefined, userId?: string, signal?: AbortSignal): Promise<RecentList> =>
  await api(withQuery(`${base(userId)}/recent`, { type, cursor, limit: 30 }), { signal })

/** One listed event against every alarm of every profile; `timeZone` reads the profiles' active hours. */
export const explain = async (eventId: string, timeZone: string, userId?: string): Promise<Explanation> =>
  await api(base(userId), { method: 'POST', json: { eventId, timeZone } })

/** An event the member describes (the editor's "Check this alarm"): the scanner's message, as the engine would get it. */
export const explainEvent = async (event: { type: EventType, message: Record<string, unknown> }, timeZone: string): Promise<Explanation> =>
  await api('/api/alarm-explanations', { method: 'POST', json: { event, timeZone } })
