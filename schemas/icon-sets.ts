import { Type } from '@sinclair/typebox'
import { FreeText } from './common.js'

/** `POST /api/admin/icon-sets/check`: the address of the icon set an admin typed. */
export const IconSetCheckBodySchema = Type.Object({ url: FreeText({ minLength: 1, maxLength: 2048 }) }, { additionalProperties: false })

/** Whether the icon set answered with an index, and which categories it has, or why not. */
export const IconSetCheckSchema = Type.Union([
  Type.Object({ ok: Type.Literal(true), categories: Type.Array(Type.String()) }),
  Type.Object({
    ok: Type.Literal(false),
    problem: Type.Union(['unreachable', 'timeout', 'status', 'too_large', 'not_an_index'].map((p) => Type.Literal(p))),
    status: Type.Optional(Type.Integer())
  })
])
