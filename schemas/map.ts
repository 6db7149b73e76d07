import { Type } from '@sinclair/typebox'

/** `GET /api/map`: what the client's maps draw with. */
export const MapSettingsSchema = Type.Object({
  tileUrl: Type.String({ description: 'Leaflet tile URL template' }),
  attribution: Type.String({ description: 'Attribution the tile provider requires, shown on every map' })
})
