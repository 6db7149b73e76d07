import type { Static } from '@sinclair/typebox'
import type {
  ApproveSchema, FenceCreateSchema, GeoJsonExportSchema, ImportResultSchema, RegionSchema, ReviewedFenceSchema, UserFenceSchema
} from '../../../schemas/geofences'
import { api, segment } from './transport'

type UserFence = Static<typeof UserFenceSchema>
type ReviewedFence = Static<typeof ReviewedFenceSchema>

/** The member's own fences. */
export const custom = async (signal?: AbortSignal): Promise<UserFence[]> => await api('/api/geofences/custom', { signal })

export const create = async (displayName: string, polygon: Static<typeof FenceCreateSchema>['polygon']): Promise<UserFence> =>
  await api('/api/geofences/custom', { method: 'POST', json: { displayName, polygon } })

export const rename = async (id: number, displayName: string): Promise<UserFence> =>
  await api(`/api/geofences/custom/${segment(id)}`, { method: 'PUT', json: { displayName } })

export const remove = async (id: number): Promise<void> => { await api(`/api/geofences/custom/${segment(id)}`, { method: 'DELETE' }) }

/** `submit` asks for review; `activate` and `deactivate` switch the fence's alerts. */
export const act = async (id: number, action: 'submit' | 'activate' | 'deactivate'): Promise<void> => {
  await api(`/api/geofences/custom/${segment(id)}/${action}`, { method: 'POST' })
}

/** `file` is a GeoJSON file as the member picked it: the server checks it and names each refused feature. */
export const importGeoJson = async (file: unknown): Promise<Static<typeof ImportResultSchema>> =>
  await api('/api/geofences/import/geojson', { method: 'POST', json: file })

export const exportGeoJson = async (): Promise<Static<typeof GeoJsonExportSchema>> => await api('/api/geofences/export/geojson')

export const regions = async (signal?: AbortSignal): Promise<Array<Static<typeof RegionSchema>>> => await api('/api/geofences/regions', { signal })

/* Review by administrators. */

export const submissions = async (signal?: AbortSignal): Promise<ReviewedFence[]> => await api('/api/admin/geofences/submissions', { signal })

export const all = async (signal?: AbortSignal): Promise<ReviewedFence[]> => await api('/api/admin/geofences/all', { signal })

export const approve = async (id: number, body: Static<typeof ApproveSchema>): Promise<UserFence> =>
  await api(`/api/admin/geofences/submissions/${segment(id)}/approve`, { method: 'POST', json: body })

export const reject = async (id: number, reviewNotes: string): Promise<UserFence> =>
  await api(`/api/admin/geofences/submissions/${segment(id)}/reject`, { method: 'POST', json: { reviewNotes } })

/** Deletes any member's fence (administrators). */
export const removeAny = async (id: number): Promise<void> => { await api(`/api/admin/geofences/${segment(id)}`, { method: 'DELETE' }) }
