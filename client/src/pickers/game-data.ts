import type { TFunction } from 'i18next'
import type { PublicConfig } from '../../../schemas/engine-config'
import { alarms, masterdata, settings } from '../api'
import { answerIn, readOnce } from '../api/read-once'
import type { SiteSetting } from '../types'
import type { IconRequest } from '../icons'

/**
 * Game vocabulary for the pickers and the alarm cards, read once per page load and shared: the engine's
 * pokemon and grunt names, the raid levels, and where the icons come from.
 */
export interface Monster {
  id: number
  name: string
  form: { id: number, name: string }
  /** The engine's game data (and the master file) name the types and the next evolutions. */
  types?: Array<{ id: number, name: string }>
  evolutions?: Array<{ evoId: number, id?: number }>
  legendary?: boolean
  mythic?: boolean
  ultraBeast?: boolean
}
export interface RaidLevel { value: number, category: string, name: string, namePlural: string }
export interface Grunt { type: string, gender: number, grunt: string }

const monstersKey = (locale: string): string => `monsters|${locale}`

/** The game data's pokemon in a language, if this page has read them already. */
export const loadedMonsters = (locale: string): Monster[] | undefined => answerIn<Monster[]>(monstersKey(locale))

export const loadMonsters = (locale: string): Promise<Monster[]> => readOnce(monstersKey(locale), async () => {
  const data = await masterdata.monsters(locale) as Record<string, Monster>
  return Object.values(data).sort((a, b) => a.id - b.id || a.form.id - b.form.id)
})

/** A raid or max battle boss's moves by id, for the move picker and the cards. */
export const loadMoves = (): Promise<Record<string, string>> => readOnce('moves', async () => await masterdata.moves())

export const loadRaidLevels = (): Promise<RaidLevel[]> => readOnce('raid-levels', async () => await masterdata.raidLevels())

/** Max battle levels (1-5 stars, 7 and 8 Gigantamax): their own list, the raid levels do not apply. */
export const loadMaxLevels = (): Promise<RaidLevel[]> => readOnce('max-levels', async () => await masterdata.maxLevels())

/** A max battle level's name in the interface language; 9000 is the engine's "any level". */
export const maxLevelName = (t: TFunction, level: number, fallback: string): string =>
  level === 9000 ? t('pickers.anyLevel') : t(`pickers.maxLevels.${level}`, { defaultValue: fallback })

/**
 * A raid or egg level's name in the interface language, by its number: the server's list is English.
 * A level the language file does not know yet keeps `fallback`, the server's name.
 */
export const raidLevelName = (t: TFunction, level: number, fallback: string): string => t(`pickers.raidLevels.${level}`, { defaultValue: fallback })

/** The engine's grunt types are lower-case keys ("dragon"); shown as names they start with a capital. */
export const gruntName = (grunt: string): string => grunt.charAt(0).toUpperCase() + grunt.slice(1)

/** The engine's grunts by game id (`{ type, gender, grunt }`), once per page load. */
export const loadGrunts = (): Promise<Record<string, Grunt>> => readOnce('grunts', async () => await masterdata.grunts() as Record<string, Grunt>)

/** Grunt types by their engine name (lower case), each once: the typed grunts, not the leaders. */
export const loadGruntTypes = async (): Promise<string[]> => {
  const data = await loadGrunts()
  return [...new Set(Object.values(data).filter((g) => /grunt/i.test(g.grunt)).map((g) => g.type.toLowerCase()))].sort()
}

/**
 * The invasion values that are not grunt types: Rocket leaders and Giovanni (the engine matches them by
 * name, lower case, like the built-in quick picks) and PokéStop events (the keys the ecosystem uses).
 * `icon` is the game's invasion character id, or the icon that stands for the event.
 */
export const INVASION_LEADERS = [
  { value: 'cliff', icon: { kind: 'invasion', id: 41 } },
  { value: 'arlo', icon: { kind: 'invasion', id: 42 } },
  { value: 'sierra', icon: { kind: 'invasion', id: 43 } },
  { value: 'giovanni', icon: { kind: 'invasion', id: 44 } }
] as const satisfies ReadonlyArray<{ value: string, icon: IconRequest }>
export const POKESTOP_EVENTS = [
  { value: 'kecleon', icon: { kind: 'pokemon', id: 352 } },
  { value: 'gold-stop', icon: { kind: 'pokestop', lure: 0, display: 7 } },
  { value: 'showcase', icon: { kind: 'misc', name: 'showcase' } }
] as const satisfies ReadonlyArray<{ value: string, icon: IconRequest }>

/**
 * The icon of an invasion value: a leader's or event's own, else the portrait of a grunt of that type
 * (of `gender` when the engine has one, 1 male, 2 female), else none.
 */
export function invasionIcon (value: string, grunts: Record<string, Grunt> | null, gender = 0): IconRequest | null {
  const special = [...INVASION_LEADERS, ...POKESTOP_EVENTS].find((s) => s.value === value)
  if (special !== undefined) return special.icon
  const matching = Object.entries(grunts ?? {}).filter(([, g]) => g.type.toLowerCase() === value && /grunt/i.test(g.grunt))
  const found = matching.find(([, g]) => gender > 0 && g.gender === gender) ?? matching[0]
  return found === undefined ? null : { kind: 'invasion', id: Number(found[0]) }
}

/**
 * The site settings a member may read (icon sets, language list, switched-off types), once per page load:
 * the pages that need one key each share one request. Admin pages read their own fresh copy to edit.
 */
export const loadSiteSettings = (): Promise<SiteSetting[]> => readOnce('settings', async () => await settings.list())

/**
 * Each game data list indexed once by species and form and by species (its first form): a long alarm list
 * names every row. The keys are small integers (`id * FORM_SPAN + form`), not "id-form" strings: a
 * thousand names then cost a thousand integer lookups, not a thousand strings built and hashed.
 */
const FORM_SPAN = 100_000
interface MonsterIndex { byForm: Map<number, Monster>, byId: Map<number, Monster> }
const indexes = new WeakMap<Monster[], MonsterIndex>()
function indexOf (monsters: Monster[]): MonsterIndex {
  let index = indexes.get(monsters)
  if (index === undefined) {
    index = { byForm: new Map(), byId: new Map() }
    for (const m of monsters) {
      index.byForm.set(m.id * FORM_SPAN + m.form.id, m)
      if (!index.byId.has(m.id)) index.byId.set(m.id, m)
    }
    indexes.set(monsters, index)
  }
  return index
}

/** "Mewtwo (Armored)", or "Mewtwo" for the base form; "#123" when the engine does not know the id. */
export function monsterName (monsters: Monster[] | null, id: number, form = 0): string {
  const index = monsters === null ? undefined : indexOf(monsters)
  const match = index === undefined ? undefined : index.byForm.get(id * FORM_SPAN + form) ?? index.byId.get(id)
  if (match === undefined) return `#${id}`
  return form > 0 && match.form.id === form && match.form.name !== '' ? `${match.name} (${match.form.name})` : match.name
}

/** A scanner gym as `/api/scanner/gyms` answers it; `area` is the admin area it lies in. */
export interface Gym { id: string, name: string | null, url: string | null, lat: number, lon: number, teamId: number | null, area: string | null }

/**
 * Whether the site has a scanner database, so gyms can be searched (`gymPicker` of `/api/config`). When it
 * cannot be told, the picker stays hidden: without a scanner a gym id cannot be found anyway.
 */
export const loadGymPickerAvailable = (): Promise<boolean> => loadEngineConfig().then((config) => config.gymPicker, () => false)

/** The engine's configuration (GET /api/config): PvP leagues, caps, ranks, the catch-all rule, the gym search. */
export const loadEngineConfig = (): Promise<PublicConfig> => readOnce('config', async () => await alarms.engineConfig())

/** One gym by id, for the name on a card or in an opened form; rejects when the scanner does not know it. */
export const loadGym = (id: string): Promise<Gym> => readOnce(`gym|${id}`, async () => await masterdata.gym(id))

/** "Central Fountain", or the id for a gym without a name. */
export const gymLabel = (gym: Gym): string => gym.name !== null && gym.name.trim() !== '' ? gym.name : gym.id
