import type { AlarmTypeDescriptor } from '../../schemas/alarm-types'

/**
 * The alarm types as GET /api/alarm-types describes them: the server's own TypeBox types
 * (schemas/alarm-types.ts), so the client keeps no copy of what a descriptor holds.
 */
export type { AlarmTypeDescriptor }
/** One field of an alarm type: what the forms are rendered from. */
export type FieldDescriptor = AlarmTypeDescriptor['fields'][number]
/** A min/max pair edited as one slider: its fields, span, step and section. */
export type RangeDescriptor = AlarmTypeDescriptor['ranges'][number]

/** The page of a type: /alarms/<the last segment of its API path>. */
export const pagePath = (type: { path: string }): string => type.path.replace(/^\/api\//, '')

/** One alarm opened in its editor on its type's page: `/alarms/monsters?edit=12`, with `&field=min_iv` to focus a field. */
export const alarmEditorPath = (type: { path: string }, uid: number, field: string | null = null): string =>
  `/alarms/${pagePath(type)}?${new URLSearchParams({ edit: String(uid), ...(field === null ? {} : { field }) }).toString()}`
