import { Type } from '@sinclair/typebox'
import { FreeText } from './common.js'

export const LatitudeSchema = Type.Number({ minimum: -90, maximum: 90 })
export const LongitudeSchema = Type.Number({ minimum: -180, maximum: 180 })

/** The active profile's pin (0,0 = none: the engine's scheduler then works in UTC). */
export const LocationSchema = Type.Object({ latitude: LatitudeSchema, longitude: LongitudeSchema }, { additionalProperties: false })

/** A saved place, in the reference's request shape. */
export const PlaceSchema = Type.Object({
  label: FreeText({ minLength: 1, maxLength: 64, pattern: '\\S' }),
  latitude: LatitudeSchema,
  longitude: LongitudeSchema
}, { additionalProperties: false })

export const PlaceLabelParamsSchema = Type.Object({ label: FreeText({ minLength: 1, maxLength: 64 }) })

/** A locale tag such as `en`, `de` or `pt-br`: the language the engine writes the user's alerts in. */
export const LanguageCodeSchema = Type.String({ pattern: '^[a-zA-Z]{2,3}([-_][a-zA-Z0-9]{2,8})?$', maxLength: 16 })

export const LanguageSchema = Type.Object({ language: Type.Union([LanguageCodeSchema, Type.Null()]) })
export const LanguageWriteSchema = Type.Object({ language: LanguageCodeSchema }, { additionalProperties: false })
