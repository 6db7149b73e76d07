import { Type, type Static } from '@sinclair/typebox'
import { FreeText } from './common.js'

/** The admin's accent colour: exactly `#rrggbb`, the one form both a colour input and CSS read alike. */
export const ACCENT_COLOR_PATTERN = /^#[0-9a-fA-F]{6}$/
/** Site name and page title: one line of at most this many characters. */
export const BRANDING_TEXT_MAX = 80

/** The icon-set base of each icon category (UICONS sets; the reference's keys). */
export const ICON_SET_KEYS = ['uicons_pkmn', 'uicons_gym', 'uicons_raid', 'uicons_reward', 'uicons_item', 'uicons_type'] as const

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
