import type { Static } from '@sinclair/typebox'
import type {
  CopyResultSchema, ProfileExportSchema, ProfileImportSchema, ProfileOverviewSchema, ProfileSchema, SwitchResultSchema, UpdateProfileSchema
} from '../../../schemas/profiles'
import { api, segment } from './transport'

type Profile = Static<typeof ProfileSchema>
type CopyResult = Static<typeof CopyResultSchema>

export const list = async (signal?: AbortSignal): Promise<Profile[]> => await api('/api/profiles', { signal })

export const create = async (name: string): Promise<Profile> => await api('/api/profiles', { method: 'POST', json: { name } })

export const update = async (profileNo: number, patch: Static<typeof UpdateProfileSchema>): Promise<Profile> =>
  await api(`/api/profiles/${segment(profileNo)}`, { method: 'PUT', json: patch })

export const remove = async (profileNo: number): Promise<void> => { await api(`/api/profiles/${segment(profileNo)}`, { method: 'DELETE' }) }

/** Makes the profile the active one; the answer carries a token for it. */
export const switchTo = async (profileNo: number): Promise<Static<typeof SwitchResultSchema>> =>
  await api(`/api/profiles/switch/${segment(profileNo)}`, { method: 'PUT' })

/** A new empty profile with the settings of `fromProfileNo`. */
export const duplicate = async (fromProfileNo: number, name: string): Promise<Profile> =>
  await api('/api/profiles/duplicate', { method: 'POST', json: { fromProfileNo, name } })

/** Every profile's alarms, for the overview page. */
export const overview = async (signal?: AbortSignal): Promise<Static<typeof ProfileOverviewSchema>> => await api('/api/profile-overview', { signal })

export const exportProfile = async (profileNo: number): Promise<Static<typeof ProfileExportSchema>> =>
  await api(`/api/profile-overview/export/${segment(profileNo)}`)

/** A new profile with copies of this one's alarms. */
export const copyWithAlarms = async (profileNo: number, name: string): Promise<CopyResult> =>
  await api(`/api/profile-overview/duplicate/${segment(profileNo)}`, { method: 'POST', json: { name } })

/** An exported profile file as the member picked it: its alarms are checked by the server, not here. */
type ProfileFile = Pick<Static<typeof ProfileImportSchema>, 'profileName'> & { version?: unknown, alarms: unknown }

/** A new profile with the file's alarms. */
export const importProfile = async (file: ProfileFile): Promise<CopyResult> =>
  await api('/api/profile-overview/import', { method: 'POST', json: file })
