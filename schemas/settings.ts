import { Type, type Static } from '@sinclair/typebox'
import { FreeText } from './common.js'

export const SettingKeySchema = Type.String({ pattern: '^[a-z][a-z0-9_]{0,99}$', description: 'snake_case setting key' })

export const SiteSettingSchema = Type.Object({
  id: Type.Integer(),
  category: Type.String(),
  key: Type.String(),
  value: Type.Union([Type.String(), Type.Null()]),
  valueType: Type.String()
})

export const SettingWriteSchema = Type.Object({
  value: Type.Union([FreeText({ maxLength: 65535, multiline: true }), Type.Null()]),
  category: Type.Optional(FreeText({ minLength: 1, maxLength: 50 })),
  valueType: Type.Optional(FreeText({ minLength: 1, maxLength: 20 })),
  confirm: Type.Optional(Type.Boolean({ description: 'Acknowledges a consequence the server warned about (e.g. switching to SSO)' }))
}, { additionalProperties: false })
export type SettingWriteBody = Static<typeof SettingWriteSchema>
