import { Type } from '@sinclair/typebox'
import { FreeText } from './common.js'

/** Areas: names of the engine's geofences, stored lower-cased. */
export const AreaNamesSchema = Type.Array(Type.String())
export const AreasWriteSchema = Type.Object({
  areas: Type.Array(FreeText({ maxLength: 255 }), { maxItems: 1000 })
}, { additionalProperties: false })

export const AvailableAreaSchema = Type.Object({
  name: Type.String(),
  group: Type.String(),
  description: Type.String(),
  userSelectable: Type.Boolean()
})
