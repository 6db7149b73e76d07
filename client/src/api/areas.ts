import type { Static } from '@sinclair/typebox'
import type { AreaNamesSchema, AvailableAreaSchema } from '../../../schemas/areas'
import type { MapFencesSchema } from '../../../schemas/geofences'
import { api } from './transport'

type AreaNames = Static<typeof AreaNamesSchema>

/** The areas the member receives alerts for. */
export const chosen = async (signal?: AbortSignal): Promise<AreaNames> => await api('/api/areas', { signal })

export const choose = async (areas: string[]): Promise<AreaNames> => await api('/api/areas', { method: 'PUT', json: { areas } })

export const available = async (signal?: AbortSignal): Promise<Array<Static<typeof AvailableAreaSchema>>> => await api('/api/areas/available', { signal })

/** The engine's fences as polygons, for the map. */
export const fences = async (signal?: AbortSignal): Promise<Static<typeof MapFencesSchema>> => await api('/api/areas/geofence', { signal })
