import type { FastifyInstance } from 'fastify'
import { fetchJson } from '../../lib/fetch-json.js'
import { TtlCache } from '../../lib/ttl-cache.js'
import { decoratorPlugin } from '../../lib/decorator-plugin.js'
import { ERRORS } from '../edge/errors.js'

/** The master file changes with game updates, a few times a month: a day is fresh enough. */
const MASTERFILE_TTL_MS = 24 * 3_600_000
/** The engine's game data changes when the engine updates its own copy; an hour keeps pickers fresh. */
const ENGINE_TTL_MS = 3_600_000
/** Icon sets change when their maintainers add icons: an hour, as ReactMap refreshes them. */
const ICON_INDEX_TTL_MS = 3_600_000
/** After a failed download, how long before it is tried again (the last good copy is served meanwhile). */
const RETRY_MS = 5 * 60_000
/** Locales kept at once (en, de, pt-BR...): the engine answers any code, so the cache must not grow with them. */
const LOCALES_KEPT = 40
/** Icon set addresses kept at once: one per `uicons_*` setting at most, plus the default. */
const ICON_SETS_KEPT = 20

export type GameDataMap = Record<string, unknown>
type Names = Record<string, string>
interface Masterfile { monsters: GameDataMap, grunts: GameDataMap | null, moves: Names, items: Names }

/**
 * The icon categories the client draws, each with the site setting that picks its set and the UICONS folder
 * it lives in. Team badges and gyms share the gym set; items are rewards unless `uicons_item` names a set.
 */
export const ICON_CATEGORIES = {
  pokemon: { setting: 'uicons_pkmn', folder: 'pokemon' },
  raid: { setting: 'uicons_raid', folder: 'raid' },
  gym: { setting: 'uicons_gym', folder: 'gym' },
  team: { setting: 'uicons_gym', folder: 'team' },
  invasion: { setting: 'uicons_invasion', folder: 'invasion' },
  pokestop: { setting: 'uicons_pokestop', folder: 'pokestop' },
  reward: { setting: 'uicons_reward', folder: 'reward' },
  item: { setting: 'uicons_item', folder: 'reward' },
  type: { setting: 'uicons_type', folder: 'type' },
  weather: { setting: 'uicons_weather', folder: 'weather' },
  misc: { setting: 'uicons_misc', folder: 'misc' }
} as const
export type IconCategory = keyof typeof ICON_CATEGORIES

/** A folder of an icon set's index: file names (a leaf folder) or subfolders by name (`raid`, `reward`). */
export type IconFolder = string[] | Record<string, string[]>

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
const isFileList = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string')

/** A leaf folder's array or a folder of leaf arrays, as the spec's create_index writes them; anything else is not an index. */
function iconFolder (value: unknown): IconFolder | null {
  if (isFileList(value)) return value
  if (!isObject(value)) return null
  const folder: Record<string, string[]> = {}
  for (const [name, files] of Object.entries(value)) if (isFileList(files)) folder[name] = files
  return Object.keys(folder).length > 0 ? folder : null
}

/** `{ "1_0": { name } }` or `{ "1": { name } }` → `{ "1": name }`; the first form of a species names it. */
function namesOf (section: unknown): Names {
  const names: Names = {}
  if (!isObject(section)) return names
  for (const [key, value] of Object.entries(section)) {
    const id = Number.parseInt(key, 10)
    const name = isObject(value) ? value.name : undefined
    if (id > 0 && typeof name === 'string' && name !== '' && names[id] === undefined) names[id] = name
  }
  return names
}

/**
 * The master file's monsters in the engine's shape (`"{id}_{form}": { id, name, form: { id, name }, types }`):
 * the engine builds its own list from this file, so the fields are the same; a form given as a bare number
 * (or only in the key) becomes `{ id, name: '' }`.
 */
function monstersOf (section: unknown): GameDataMap {
  const monsters: GameDataMap = {}
  if (!isObject(section)) return monsters
  for (const [key, value] of Object.entries(section)) {
    if (!isObject(value) || typeof value.name !== 'string' || value.name === '') continue
    const [idPart, formPart] = key.split('_')
    const id = typeof value.id === 'number' ? value.id : Number.parseInt(idPart ?? '', 10)
    const rawForm = value.form
    const formId = isObject(rawForm) && typeof rawForm.id === 'number' ? rawForm.id : typeof rawForm === 'number' ? rawForm : Number.parseInt(formPart ?? '0', 10) || 0
    const formName = isObject(rawForm) && typeof rawForm.name === 'string' ? rawForm.name : ''
    if (!(id > 0)) continue
    monsters[`${id}_${formId}`] = { ...value, id, form: { id: formId, name: formName } }
  }
  return monsters
}

const hasEntries = (data: unknown): data is GameDataMap => isObject(data) && Object.keys(data).length > 0

/**
 * An http(s) address without a trailing slash, or null: a setting holding anything else (a typo, a path)
 * must not make the service fetch from somewhere unexpected.
 */
function setAddress (value: string | undefined): string | null {
  if (value === undefined) return null
  const trimmed = value.trim().replace(/\/+$/, '')
  try {
    const url = new URL(trimmed)
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '' ? trimmed : null
  } catch {
    return null
  }
}

function createGameData (fastify: FastifyInstance) {
  const { engine, config, clock, log, siteSettings } = fastify

  let masterfile: { data: Masterfile | null, until: number } = { data: null, until: 0 }
  let loading: Promise<Masterfile | null> | null = null

  async function download (): Promise<Masterfile | null> {
    try {
      const body = await fetchJson({ service: 'The game master file', url: config.MASTERFILE_URL, timeoutMs: config.GAME_DATA_TIMEOUT_MS, maxBytes: config.UPSTREAM_MAX_BYTES })
      if (!isObject(body)) throw new Error('it is not an object')
      const grunts = hasEntries(body.grunts) ? body.grunts : null
      const data = { monsters: monstersOf(body.monsters), grunts, moves: namesOf(body.moves), items: namesOf(body.items) }
      if (Object.keys(data.monsters).length === 0) throw new Error('no pokemon in it')
      masterfile = { data, until: clock.now() + MASTERFILE_TTL_MS }
    } catch (err) {
      log.warn({ reason: (err as Error).message }, 'game master file download failed; keeping the last good copy')
      masterfile = { data: masterfile.data, until: clock.now() + RETRY_MS }
    }
    return masterfile.data
  }

  /** The master file, downloaded on first use and daily after; concurrent callers share one download. */
  async function file (): Promise<Masterfile | null> {
    if (masterfile.until > clock.now()) return masterfile.data
    return await (loading ??= download().finally(() => { loading = null }))
  }

  async function fileOrFail (): Promise<Masterfile> {
    const data = await file()
    if (data === null) throw new ERRORS.GameDataUnavailable()
    return data
  }

  /** Fresh engine answers per key, and the last good one of each key for when the engine fails. */
  const fresh = new TtlCache<string, GameDataMap>(clock, LOCALES_KEPT + 1)
  const lastGood = new TtlCache<string, GameDataMap>(clock, LOCALES_KEPT + 1)

  /**
   * Engine game data first (localized, and what the engine matches alarms against), then the last good
   * engine answer, then the master file: a site whose engine or whose internet is down still has a picker.
   */
  async function fromEngine (key: string, ask: () => Promise<unknown>, fromFile: (m: Masterfile) => GameDataMap | null): Promise<GameDataMap> {
    const cached = fresh.get(key)
    if (cached !== undefined) return cached
    const data = await engine.orFallback(ask, {
      log, message: 'game data unavailable from the alarm engine; using the last good copy or the master file', fallback: null, anyError: true, context: { data: key }
    })
    if (hasEntries(data)) {
      fresh.set(key, data, ENGINE_TTL_MS)
      lastGood.set(key, data, Number.MAX_SAFE_INTEGER - clock.now())
      return data
    }
    const kept = lastGood.get(key)
    if (kept !== undefined) return kept
    const m = await file()
    const fallback = m === null ? null : fromFile(m)
    if (fallback === null || !hasEntries(fallback)) throw new ERRORS.GameDataUnavailable()
    return fallback
  }

  const iconIndexes = new TtlCache<string, IconFolder | null>(clock, ICON_SETS_KEPT * Object.keys(ICON_CATEGORIES).length)
  const lastIndexes = new TtlCache<string, IconFolder>(clock, ICON_SETS_KEPT * Object.keys(ICON_CATEGORIES).length)

  /**
   * One folder of a set's index: from the root `index.json` (every folder at once), else from the folder's
   * own `index.json` (sets published without a root index, or with a partial one). Null: the set has no
   * such folder.
   */
  async function loadFolder (base: string, folder: string): Promise<IconFolder | null> {
    const root = await fetchJson({ service: 'The icon set', url: `${base}/index.json`, timeoutMs: config.GAME_DATA_TIMEOUT_MS, maxBytes: config.UPSTREAM_MAX_BYTES }).catch(() => null)
    const fromRoot = isObject(root) ? iconFolder(root[folder]) : null
    if (fromRoot !== null) return fromRoot
    const own = await fetchJson({ service: 'The icon set', url: `${base}/${folder}/index.json`, timeoutMs: config.GAME_DATA_TIMEOUT_MS, maxBytes: config.UPSTREAM_MAX_BYTES }).catch(() => null)
    if (own === null && root === null) throw new Error('neither the set\'s index.json nor the folder\'s answered')
    return iconFolder(own)
  }

  return {
    /** Monsters keyed `"{id}_{form}"` in `locale` (the master file's are English). */
    monsters: async (locale: string): Promise<GameDataMap> =>
      await fromEngine(`monsters|${locale}`, async () => await engine.masterdata.monsters(locale), (m) => m.monsters),

    /** Grunts keyed by their game id: `{ type, gender, grunt }`. */
    grunts: async (): Promise<GameDataMap> =>
      await fromEngine('grunts', async () => await engine.masterdata.grunts(), (m) => m.grunts),

    /** English move and item names by id: only the master file has them. */
    moves: async (): Promise<Names> => (await fileOrFail()).moves,
    items: async (): Promise<Names> => (await fileOrFail()).items,

    /** English pokemon names from the master file, for when the engine cannot name them. */
    englishPokemon: async (): Promise<Names> => {
      const m = await fileOrFail()
      const names: Names = {}
      for (const value of Object.values(m.monsters)) {
        const { id, name } = value as { id: number, name: string }
        names[id] ??= name
      }
      return names
    },

    /**
     * Where a category's icons come from and the names its set holds: the category's `uicons_*` setting,
     * else UICONS_URL. The index is read once an hour per set; when it cannot be read the last good copy
     * is served, and a set never read gives `files: null` (the client then shows named placeholders).
     */
    async icons (category: IconCategory): Promise<{ base: string, files: IconFolder | null }> {
      const { setting, folder } = ICON_CATEGORIES[category]
      const base = setAddress(await siteSettings.get(setting)) ?? setAddress(config.UICONS_URL) ?? config.UICONS_URL
      const key = `${base}|${folder}`
      try {
        const files = await iconIndexes.getOrLoad(key, async () => {
          const loaded = await loadFolder(base, folder)
          if (loaded !== null) lastIndexes.set(key, loaded, Number.MAX_SAFE_INTEGER - clock.now())
          return { value: loaded, ttlMs: ICON_INDEX_TTL_MS }
        })
        return { base, files }
      } catch (err) {
        log.warn({ reason: (err as Error).message, category }, 'icon set index unavailable; keeping the last good copy')
        const kept = lastIndexes.get(key) ?? null
        iconIndexes.set(key, kept, RETRY_MS)
        return { base, files: kept }
      }
    }
  }
}

export type GameData = ReturnType<typeof createGameData>

declare module 'fastify' {
  interface FastifyInstance {
    gameData: GameData
  }
}

/**
 * The game's vocabulary for pickers and cards (species, forms, types, grunts, moves, items, icon set
 * indexes), from the engine or the master file, whichever answers, with the last good copy kept.
 */
export default decoratorPlugin('game-data', createGameData, ['config', 'clock', 'engine', 'site-settings'])
