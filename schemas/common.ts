import { Type, type IntegerOptions, type Static, type StringOptions, type TBoolean } from '@sinclair/typebox'

/**
 * The keyword plugins/edge/validation.ts enforces on text people type: no unpaired surrogates, no control
 * characters (NUL included; line breaks and tabs only where `'multiline'`), no bidirectional embedding,
 * override or isolate characters; accepted text is stored in Unicode NFC.
 */
export const FREE_TEXT_KEYWORD = 'x-free-text'
/** The keyword as a schema fragment, for schemas written as plain JSON Schema. */
export const FREE_TEXT = { [FREE_TEXT_KEYWORD]: true } as const

/** A string a person typed (names, labels, ids pasted from elsewhere): see FREE_TEXT_KEYWORD. */
export const FreeText = (options: StringOptions & { multiline?: boolean } = {}) => {
  const { multiline = false, ...rest } = options
  return Type.String({ ...rest, [FREE_TEXT_KEYWORD]: multiline ? 'multiline' : true })
}

/**
 * The keyword plugins/edge/request-log.ts reads: a query or path parameter marked with it never reaches a
 * log line as sent (`[redacted]` instead). Every parameter that can carry a webhook address (a user id:
 * a webhook's id is its address with its token), a code, a state or a token is marked.
 */
export const LOG_REDACT_KEYWORD = 'x-log-redact'
/** The keyword as schema options: `Type.String({ maxLength: 255, ...LOG_REDACTED })`. */
export const LOG_REDACTED = { [LOG_REDACT_KEYWORD]: true } as const

/** The largest value of a signed 32-bit column (profile numbers, fence ids). */
export const INT32_MAX = 2_147_483_647

/**
 * An integer a request carries, with both bounds required: a query or path is coerced from text, where
 * `1e309` becomes Infinity, which passes `type: integer` and would reach the SQL. Every numeric query and
 * path parameter is one (test/bounded-numbers.test.ts walks the OpenAPI document).
 */
export const BoundedInteger = (options: IntegerOptions & { minimum: number, maximum: number }) => Type.Integer(options)

/** One field the server refused: `field` is a JSON pointer such as `/min_iv`. */
export const FieldProblemSchema = Type.Object({ field: Type.String(), message: Type.String() })

/** Every non-2xx /api answer. */
export const ErrorSchema = Type.Object({
  error: Type.String(),
  details: Type.Optional(Type.Array(FieldProblemSchema))
}, { additionalProperties: true, $id: 'Error' })
export type ErrorBody = Static<typeof ErrorSchema>

/** Shorthand for the error statuses a route declares. */
export const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, ErrorSchema])) as Record<number, typeof ErrorSchema>

/** On/off properties, each described: `Type.Object({ ...flags({ name: 'what it means' }) })`. */
export function flags<K extends string> (descriptions: Record<K, string>): Record<K, TBoolean> {
  return Object.fromEntries(Object.entries<string>(descriptions).map(([name, description]) => [name, Type.Boolean({ description })])) as Record<K, TBoolean>
}
