import { Type, type Static } from '@sinclair/typebox'
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
/** `PUT /api/location/language`: the language the engine now holds. */
export const LanguageSavedSchema = Type.Object({ language: Type.String() })

/** `GET /api/location`: the pin, and whether address search is offered (so the client shows it or not). */
export const LocationAnswerSchema = Type.Object({
  latitude: LatitudeSchema,
  longitude: LongitudeSchema,
  geocoder: Type.Boolean({ description: 'Address search and reverse lookup are available (`/api/location/geocode`, `/reverse`)' })
})

/** Optional interface language for the geocoder's names; without it the engine's locale is used. */
const GeocoderLanguage = Type.Optional(LanguageCodeSchema)

export const GeocodeQuerySchema = Type.Object({
  q: FreeText({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'What the user typed: an address, a place name' }),
  lang: GeocoderLanguage
})

export const ReverseQuerySchema = Type.Object({ lat: LatitudeSchema, lon: LongitudeSchema, lang: GeocoderLanguage })

/** One place found for an address: the geocoder's name for it and its point. */
export const AddressMatchSchema = Type.Object({ label: Type.String(), lat: LatitudeSchema, lon: LongitudeSchema })
export type AddressMatch = Static<typeof AddressMatchSchema>

/** The address at a point; null where the geocoder knows nothing (the open sea). */
export const AddressNameSchema = Type.Object({ label: Type.Union([Type.String(), Type.Null()]) })
export type AddressName = Static<typeof AddressNameSchema>

/** `GET /api/dashboard/place`: a point in words, for a page that must never show raw coordinates. */
export const PinWordsQuerySchema = ReverseQuerySchema
export const PinWordsSchema = Type.Object({
  address: Type.Union([Type.String(), Type.Null()], { description: 'The geocoder\'s name for the point; null where none is configured, it knows nothing there or cannot be asked' }),
  areas: Type.Array(Type.String(), { description: 'The fences the caller may see that hold the point (engine names); none when the engine cannot be read' }),
  distanceAlarms: Type.Integer({ minimum: 0, description: 'The active profile\'s alarms with a distance (measured from the pin); 0 when the engine cannot be read' })
})
