import type { Static } from '@sinclair/typebox'
import type { ApplyOptionsSchema, ApplyResultSchema, QuickPickEditSchema, QuickPickEntrySchema, QuickPickSchema, QuickPickWriteSchema } from '../../../schemas/quick-picks'
import { api, segment } from './transport'

/** The picks the caller sees, each with what an earlier apply created. */
export const list = async (signal?: AbortSignal): Promise<Array<Static<typeof QuickPickEntrySchema>>> => await api('/api/quick-picks', { signal })

/** Creates or replaces a global pick (administrators). */
export const save = async (pick: Static<typeof QuickPickWriteSchema>): Promise<Static<typeof QuickPickSchema>> =>
  await api('/api/quick-picks', { method: 'POST', json: pick })

/** Creates one of the caller's own picks, or edits the one named by `id` (someone else's is not found). */
export const saveMine = async (pick: Static<typeof QuickPickEditSchema>, id?: string): Promise<Static<typeof QuickPickSchema>> =>
  await (id === undefined
    ? api('/api/quick-picks/user', { method: 'POST', json: pick })
    : api(`/api/quick-picks/user/${segment(id)}`, { method: 'PUT', json: pick }))

/** Deletes one of the caller's own picks; the alarms an apply of it created stay. */
export const removeMine = async (id: string): Promise<void> => { await api(`/api/quick-picks/user/${segment(id)}`, { method: 'DELETE' }) }

/** Replaces the global picks with the built-in set (administrators). */
export const seed = async (): Promise<void> => { await api('/api/quick-picks/seed', { method: 'POST' }) }

/** Deletes a pick and every applied state of it (administrators). */
export const remove = async (id: string): Promise<void> => { await api(`/api/quick-picks/${segment(id)}`, { method: 'DELETE' }) }

/** `apply` creates the pick's alarms; `reapply` replaces those of an earlier apply. */
export const apply = async (id: string, verb: 'apply' | 'reapply', options: Static<typeof ApplyOptionsSchema>): Promise<Static<typeof ApplyResultSchema>> =>
  await api(`/api/quick-picks/${segment(id)}/${verb}`, { method: 'POST', json: options })

/** Deletes exactly the alarms the apply created. */
export const unapply = async (id: string): Promise<void> => { await api(`/api/quick-picks/${segment(id)}/remove`, { method: 'DELETE' }) }
