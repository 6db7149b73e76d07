import { settings } from './api'
import type { SiteSetting } from './types'

/** Site settings as the admin pages read and write them: raw values by key. */
export type SettingValues = ReadonlyMap<string, string | null>

export async function loadSettings (signal: AbortSignal): Promise<SettingValues> {
  const rows = await settings.list(signal)
  return new Map(rows.map((row) => [row.key, row.value]))
}

/** `category` files a new key under it (the server keeps an existing key's category when omitted). */
export async function saveSetting (key: string, value: string | null, confirm = false, category?: string): Promise<SiteSetting> {
  return await settings.save(key, { value, ...(confirm && { confirm: true }), ...(category !== undefined && { category }) })
}

/** The server's two readings of a switch: on only when "true" (opt-in), or on unless "false" (opt-out). */
export const isTrue = (values: SettingValues, key: string): boolean => values.get(key) === 'true'
export const isNotFalse = (values: SettingValues, key: string): boolean => values.get(key) !== 'false'
