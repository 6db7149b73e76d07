/**
 * Exact UICONS lookups (https://github.com/UIcons/UIcons): a request names what to draw, the set's
 * index.json says which files exist, and the first candidate of the standard's fallback chain that the
 * index holds wins. Nothing is guessed: a name the index does not hold is never asked for, and when no
 * candidate exists the answer is null (the caller shows a named placeholder).
 */

/** What to draw. Numbers are the game's ids (proto enums), as the engine stores them. */
export type IconRequest =
  | { kind: 'pokemon', id: number, form?: number, costume?: number, gender?: number, evolution?: number, alignment?: number, bread?: number, shiny?: boolean }
  | { kind: 'egg', level: number, hatched?: boolean, ex?: boolean }
  | { kind: 'invasion', id: number, confirmed?: boolean }
  | { kind: 'pokestop', lure: number, display?: number }
  | { kind: 'gym', team: number }
  | { kind: 'team', team: number }
  | { kind: 'type', id: number }
  | { kind: 'reward', reward: RewardKind, id: number, amount?: number }
  | { kind: 'weather', id: number }
  | { kind: 'misc', name: string }

/** The reward folders of the standard, named after the proto's QuestRewardProto.Type. */
export type RewardKind = 'item' | 'stardust' | 'candy' | 'xl_candy' | 'mega_resource' | 'pokemon_encounter'

/** The icon categories the service serves indexes for (`masterdata.icons` of the API module). */
export type IconCategory = 'pokemon' | 'raid' | 'gym' | 'team' | 'invasion' | 'pokestop' | 'reward' | 'item' | 'type' | 'weather' | 'misc'

/** A folder of a set's index: file names with extension, or lists by subfolder (`raid`, `reward`). */
export type IconFiles = string[] | Record<string, string[]>

/** One category's set: its address and, per folder, the file name of each name without extension. */
export class IconSet {
  private readonly folders = new Map<string, Map<string, string>>()

  constructor (readonly base: string, readonly folder: string, files: IconFiles | null) {
    if (files === null) return
    const add = (path: string, list: string[]) => {
      const byStem = new Map<string, string>()
      // The first file of a name wins, as the index sorts them: a set holding both 1.png and 1.webp
      // draws one of them every time.
      for (const file of list) {
        const dot = file.lastIndexOf('.')
        const stem = dot > 0 ? file.slice(0, dot) : file
        if (!byStem.has(stem)) byStem.set(stem, file)
      }
      this.folders.set(path, byStem)
    }
    if (Array.isArray(files)) add(folder, files)
    else for (const [sub, list] of Object.entries(files)) add(`${folder}/${sub}`, list)
  }

  /** The address of the first name `path` holds, or null. */
  first (path: string, names: string[]): string | null {
    const files = this.folders.get(path)
    if (files === undefined) return null
    for (const name of names) {
      const file = files.get(name)
      if (file !== undefined) return `${this.base}/${path}/${file}`
    }
    return null
  }
}

/**
 * The candidates of the standard's search: for each flag in order, with it then without it (the first
 * flag varies slowest, so the most specific name comes first and the plain id last).
 * `25` with `_f598`, `_c5`, `_s` → 25_f598_c5_s, 25_f598_c5, 25_f598_s, 25_f598, 25_c5_s, 25_c5, 25_s, 25.
 */
export function candidates (stem: string, flags: string[]): string[] {
  let names = ['']
  for (let i = flags.length - 1; i >= 0; i--) {
    const flag = flags[i] as string
    names = flag === '' ? names : [...names.map((n) => flag + n), ...names]
  }
  return names.map((n) => stem + n)
}

const flag = (prefix: string, value: number | undefined): string => value !== undefined && value > 0 ? `_${prefix}${value}` : ''

/** Which category's set draws a request. */
export function categoryOf (request: IconRequest): IconCategory {
  switch (request.kind) {
    case 'egg': return 'raid'
    case 'reward': return request.reward === 'item' ? 'item' : 'reward'
    default: return request.kind
  }
}

/** The folder of the set and the names to try, most specific first. */
export function lookup (request: IconRequest): { path: string, names: string[] } {
  switch (request.kind) {
    case 'pokemon': {
      const r = request
      // The standard's order: bread, temporary evolution (mega), form, costume, gender, alignment (shadow), shiny.
      const flags = [flag('b', r.bread), flag('e', r.evolution), flag('f', r.form), flag('c', r.costume), flag('g', r.gender), flag('a', r.alignment), r.shiny === true ? '_s' : '']
      return { path: 'pokemon', names: [...candidates(String(r.id), flags), '0'] }
    }
    case 'egg':
      return { path: 'raid/egg', names: [...candidates(String(request.level), [request.hatched === true ? '_h' : '', request.ex === true ? '_ex' : '']), '0'] }
    case 'invasion':
      return { path: 'invasion', names: [...candidates(String(request.id), [request.confirmed === false ? '_u' : '']), '0'] }
    case 'pokestop': {
      // The display type is a "possibly empty" flag: `_i7`, then a bare `_i`, then none.
      const display = request.display !== undefined && request.display > 0 ? [`${request.lure}_i${request.display}`, `${request.lure}_i`] : []
      return { path: 'pokestop', names: [...display, String(request.lure), '0'] }
    }
    case 'gym': return { path: 'gym', names: [String(request.team), '0'] }
    case 'team': return { path: 'team', names: [String(request.team), '0'] }
    case 'type': return { path: 'type', names: [String(request.id)] }
    case 'weather': return { path: 'weather', names: [String(request.id), '0'] }
    case 'misc': return { path: 'misc', names: [request.name, '0'] }
    case 'reward': {
      // Stardust names its icon by the amount; `_a` is tried only for more than one.
      const id = request.reward === 'stardust' ? request.amount ?? request.id : request.id
      const amount = request.reward !== 'stardust' && request.amount !== undefined && request.amount > 1 ? `_a${request.amount}` : ''
      return { path: `reward/${request.reward}`, names: [...candidates(String(id), [amount]), '0'] }
    }
  }
}

/** The address of the icon, or null when the set has no candidate (or its index could not be read). */
export function resolve (set: IconSet, request: IconRequest): string | null {
  const { path, names } = lookup(request)
  return set.first(path, names)
}
