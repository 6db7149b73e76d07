import type { Static } from '@sinclair/typebox'
import type {
  CopyResultSchema, CopySchema, OwnSharedSetSchema, ShareCreateSchema, ShareCreatedSchema, SharedSetViewSchema, UndoCopySchema
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
