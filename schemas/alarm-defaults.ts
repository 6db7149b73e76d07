import { Type, type Static } from '@sinclair/typebox'
import { FreeText } from './common.js'

/** A member's defaults for new alarms; null = none (the form starts from the type's own default). */
export const AlarmDefaultsSchema = Type.Object({
  distance: Type.Union([Type.Integer({ minimum: 0, maximum: 40_000_000, description: 'Metres; 0 = the member\'s areas.' }), Type.Null()]),
  clean: Type.Union([Type.Integer({ minimum: 0, maximum: 7, description: 'Bitmask: 1 delete after expiry, 2 edit in place, 4 quest summary (quests only).' }), Type.Null()]),
  template: Type.Union([FreeText({ minLength: 1, maxLength: 256, description: 'The engine template\'s name.' }), Type.Null()])
}, { additionalProperties: false })
export type AlarmDefaults = Static<typeof AlarmDefaultsSchema>
