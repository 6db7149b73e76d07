import type { TFunction } from 'i18next'
import { api } from '../api'
import type { SiteSetting } from '../types'

/**
 * Game vocabulary for the pickers and the alarm cards, read once per page load and shared: the engine's
 * pokemon and grunt names, the raid levels, and where the icons come from.
 */
export interface Monster { id: number, name: string, form: { id: number, name: string } }
export interface RaidLevel { value: number, category: string, name: string, namePlural: string }
export interface Grunt { type: string, gender: number, grunt: string }

/** The public UICONS repository the reference points sites at; a site setting replaces it. */
export const DEFAULT_UICONS = 'https://raw.githubusercontent.com/whitewillem/PogoAssets/main/uicons'

const cache = new Map<string, Promise<unknown>>()

/** One request per key for the whole page load; a failed one is forgotten so a retry asks again. */
function once<T> (key: string, load: () => Promise<T>): Promise<T> {
  let pending = cache.get(key) as Promise<T> | undefined
  if (pending === undefined) {
    pending = load()
    cache.set(key, pending)
    pending.catch(() => { cache.delete(key) })
  }
  return pending
}

export const loadMonsters = (locale: string): Promise<Monster[]> => once(`monsters|${locale}`, async () => {
  const data = await api<Record<string, Monster>>(`/api/masterdata/monsters?locale=${encodeURIComponent(locale)}`)
  return Object.values(data).sort((a, b) => a.id - b.id || a.form.id - b.form.id)
})

export const loadRaidLevels = (): Promise<RaidLevel[]> => once('raid-levels', async () => await api<RaidLevel[]>('/api/masterdata/raid-levels'))

/**
 * A raid or egg level's name in the interface language, by its number: the server's list is English.
 * A level the language file does not know yet keeps `fallback`, the server's name.
 */
export const raidLevelName = (t: TFunction, level: number, fallback: string): string => t(`pickers.raidLevels.${level}`, { defaultValue: fallback })

/** The engine's grunt types are lower-case keys ("dragon"); shown as names they start with a capital. */
export const gruntName = (grunt: string): string => grunt.charAt(0).toUpperCase() + grunt.slice(1)

/** Grunt types by their engine name (lower case), each once. */
export const loadGruntTypes = (): Promise<string[]> => once('grunts', async () => {
  const data = await api<Record<string, Grunt>>('/api/masterdata/grunts')
  return [...new Set(Object.values(data).map((g) => g.type.toLowerCase()))].sort()
})

/**
 * The site settings a member may read (icon sets, language list, switched-off types), once per page load:
 * the pages that need one key each share one request. Admin pages read their own fresh copy to edit.
 */
export const loadSiteSettings = (): Promise<SiteSetting[]> => once('settings', async () => await api<SiteSetting[]>('/api/settings'))

/** The pokemon icon base: the site's `uicons_pkmn` setting, else the public repository. */
export const loadIconBase = (): Promise<string> => once('uicons', async () => {
  const settings = await loadSiteSettings().catch(() => [])
  const custom = settings.find((s) => s.key === 'uicons_pkmn')?.value
  return (custom !== undefined && custom !== null && custom.trim() !== '' ? custom.trim() : DEFAULT_UICONS).replace(/\/+$/, '')
})

/** UICONS names a form's sprite `{id}_f{form}.png`, the base form `{id}.png`. */
export const pokemonIcon = (base: string, id: number, form = 0): string =>
  `${base}/pokemon/${id}${form > 0 ? `_f${form}` : ''}.png`

/** "Mewtwo (Armored)", or "Mewtwo" for the base form; "#123" when the engine does not know the id. */
export function monsterName (monsters: Monster[] | null, id: number, form = 0): string {
  const match = monsters?.find((m) => m.id === id && m.form.id === form) ?? monsters?.find((m) => m.id === id)
  if (match === undefined) return `#${id}`
  return form > 0 && match.form.id === form && match.form.name !== '' ? `${match.name} (${match.form.name})` : match.name
}

/** A scanner gym as `/api/scanner/gyms` answers it; `area` is the admin area it lies in. */
export interface Gym { id: string, name: string | null, url: string | null, lat: number, lon: number, teamId: number | null, area: string | null }

/**
 * Whether the site has a scanner database, so gyms can be searched (`gymPicker` of `/api/config`). When it
 * cannot be told, the picker stays hidden: without a scanner a gym id cannot be found anyway.
 */
export const loadGymPickerAvailable = (): Promise<boolean> => once('gym-picker', async () =>
  (await api<{ gymPicker?: boolean }>('/api/config')).gymPicker === true).catch(() => false)

/** One gym by id, for the name on a card or in an opened form; rejects when the scanner does not know it. */
export const loadGym = (id: string): Promise<Gym> => once(`gym|${id}`, async () => await api<Gym>(`/api/scanner/gyms/${encodeURIComponent(id)}`))

/** "Central Fountain", or the id for a gym without a name. */
export const gymLabel = (gym: Gym): string => gym.name !== null && gym.name.trim() !== '' ? gym.name : gym.id
