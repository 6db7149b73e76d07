import { Type, type Static } from '@sinclair/typebox'

/** Every non-2xx /api answer. */
export const ErrorSchema = Type.Object({
  error: Type.String(),
  details: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() })))
}, { additionalProperties: true, $id: 'Error' })
export type ErrorBody = Static<typeof ErrorSchema>

/** Shorthand for the error statuses a route declares. */
export const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, ErrorSchema])) as Record<number, typeof ErrorSchema>
