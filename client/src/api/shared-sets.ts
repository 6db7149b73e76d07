import type { Static } from '@sinclair/typebox'
import type {
  AdminSharedSetSchema, CatalogueEntrySchema, CatalogueQuerySchema, PromotedSchema, CopyResultSchema, CopySchema, OwnSharedSetSchema, ShareCreateSchema, ShareCreatedSchema, SharedSetViewSchema, UndoCopySchema
} from '../../../schemas/shared-sets'
import { api, segment } from './transport'

export type SharedSetView = Static<typeof SharedSetViewSchema>
export type CopyResult = Static<typeof CopyResultSchema>
export type OwnSharedSet = Static<typeof OwnSharedSetSchema>

/** Shares a selection of the caller's alarms, or a whole profile, as a link. */
export const share = async (body: Static<typeof ShareCreateSchema>): Promise<Static<typeof ShareCreatedSchema>> =>
  await api('/api/shared-sets', { method: 'POST', json: body })

/** The caller's own links, with how often each was copied. */
export const mine = async (signal?: AbortSignal): Promise<OwnSharedSet[]> => await api('/api/shared-sets/mine', { signal })

/** Ends a link at once. */
export const revoke = async (token: string): Promise<void> => { await api(`/api/shared-sets/${segment(token)}`, { method: 'DELETE' }) }

/** A set as the caller sees it, with what this site does not offer. */
export const open = async (token: string, signal?: AbortSignal): Promise<SharedSetView> => await api(`/api/shared-sets/${segment(token)}`, { signal })

/** Copies the set's alarms (all, or those at `indexes`) into one of the caller's profiles. */
export const copy = async (token: string, body: Static<typeof CopySchema>): Promise<CopyResult> =>
  await api(`/api/shared-sets/${segment(token)}/copy`, { method: 'POST', json: body })

/** Takes a copy back (the `undo` of its answer). */
export const undoCopy = async (body: Static<typeof UndoCopySchema>): Promise<void> => { await api('/api/shared-sets/undo-copy', { method: 'POST', json: body }) }

export type CatalogueEntry = Static<typeof CatalogueEntrySchema>
export type AdminSharedSet = Static<typeof AdminSharedSetSchema>

/** The community catalogue, by type and species (a pokemon id), most copied first. */
export const catalogue = async (query: Static<typeof CatalogueQuerySchema>, signal?: AbortSignal): Promise<CatalogueEntry[]> => {
  const params = new URLSearchParams()
  if (query.type !== undefined) params.set('type', query.type)
  if (query.species !== undefined) params.set('species', String(query.species))
  const search = params.toString()
  return await api(`/api/shared-sets${search === '' ? '' : `?${search}`}`, { signal })
}

/** Takes a set down, or puts it back (administrators). */
export const setHidden = async (token: string, hidden: boolean): Promise<void> => {
  await api(`/api/admin/shared-sets/${segment(token)}/hidden`, { method: 'PUT', json: { hidden } })
}

/** Publishes a set as site quick picks (administrators). */
export const promote = async (token: string): Promise<Static<typeof PromotedSchema>> =>
  await api(`/api/admin/shared-sets/${segment(token)}/promote`, { method: 'POST' })
