import type { Monster } from '../game-data'

/** The last national dex number of each generation (Gen 1 ends at 151, ...). */
const GENERATION_ENDS = [151, 251, 386, 493, 649, 721, 809, 905, 1025]

export const generationOf = (id: number): number => {
  const index = GENERATION_ENDS.findIndex((end) => id <= end)
  return index === -1 ? GENERATION_ENDS.length + 1 : index + 1
}

export type Rarity = 'legendary' | 'mythical' | 'ultraBeast' | 'regular'

/** One tile of the pokemon grid: a species (form 0 = all its forms) or one form of it. */
export interface Tile {
  /** `"<pokemonId>-<formId>"`, the key of the picker's contract. */
  key: string
  id: number
  form: number
  name: string
  /** Empty for a species tile and for a form the game calls "Normal". */
  formName: string
  types: number[]
  generation: number
  rarity: Rarity
  /** Lower-case text searched by plain words: name, form, type names, "gen3", number. */
  search: string
}

export interface Catalogue {
  /** One tile per species, form 0: "every form of it". */
  species: Tile[]
  /** One tile per form the game data knows (a species without forms keeps its form-0 tile). */
  forms: Tile[]
  /** Type id → name, as the game data names them. */
  typeNames: Map<number, string>
  /** Form names used by several species (Alola, Galar, Hisui...), most used first. */
  commonForms: string[]
  /** Species id → its whole evolution family (itself included). */
  family: Map<number, number[]>
  /** Every tile by its key, for naming the chosen keys (species tiles win over a form-0 form tile). */
  byKey: Map<string, Tile>
  hasRarity: boolean
}

const isNormal = (formName: string): boolean => formName === '' || formName.toLowerCase() === 'normal'

/** How many species must share a form name for it to be a facet of its own. */
const COMMON_FORM_SPECIES = 3

/** The grid's tiles from the game data's monsters (sorted by id, then form). */
export function buildCatalogue (monsters: Monster[]): Catalogue {
  const typeNames = new Map<number, string>()
  const bySpecies = new Map<number, Monster[]>()
  for (const m of monsters) {
    if (!(m.id > 0)) continue
    for (const type of m.types ?? []) typeNames.set(type.id, type.name)
    const list = bySpecies.get(m.id)
    if (list === undefined) bySpecies.set(m.id, [m])
    else list.push(m)
  }

  const rarityOf = (m: Monster): Rarity => m.legendary === true ? 'legendary' : m.mythic === true ? 'mythical' : m.ultraBeast === true ? 'ultraBeast' : 'regular'
  const tile = (m: Monster, form: number, formName: string): Tile => {
    const types = (m.types ?? []).map((t) => t.id)
    const generation = generationOf(m.id)
    const typeWords = (m.types ?? []).map((t) => t.name).join(' ')
    return {
      key: `${m.id}-${form}`,
      id: m.id,
      form,
      name: m.name,
      formName,
      types,
      generation,
      rarity: rarityOf(m),
      search: `${m.name} ${formName} ${typeWords} gen${generation} g${generation} #${m.id}`.toLowerCase()
    }
  }

  const species: Tile[] = []
  const forms: Tile[] = []
  const formUse = new Map<string, number>()
  for (const [id, list] of [...bySpecies].sort((a, b) => a[0] - b[0])) {
    const base = list.find((m) => m.form.id === 0) ?? list.find((m) => isNormal(m.form.name)) ?? list[0] as Monster
    species.push(tile(base, 0, ''))
    const alternatives = list.filter((m) => m.form.id !== 0)
    if (alternatives.length === 0) forms.push(tile(base, 0, ''))
    for (const m of alternatives.sort((a, b) => a.form.id - b.form.id)) {
      const formName = isNormal(m.form.name) ? '' : m.form.name
      forms.push(tile(m, m.form.id, formName))
      if (formName !== '') formUse.set(formName, (formUse.get(formName) ?? 0) + 1)
    }
    void id
  }

  // Families: join each species with its next stages, then every member of a connected group shares it.
  const parent = new Map<number, number>()
  const root = (id: number): number => {
    let r = id
    while (parent.has(r) && parent.get(r) !== r) r = parent.get(r) as number
    return r
  }
  for (const m of monsters) {
    for (const evo of m.evolutions ?? []) {
      if (!(evo.evoId > 0)) continue
      const a = root(m.id)
      const b = root(evo.evoId)
      if (a !== b) parent.set(b, a)
    }
  }
  const groups = new Map<number, number[]>()
  for (const id of bySpecies.keys()) {
    const r = root(id)
    const list = groups.get(r)
    if (list === undefined) groups.set(r, [id])
    else list.push(id)
  }
  const family = new Map<number, number[]>()
  for (const members of groups.values()) for (const id of members) family.set(id, members)

  const commonForms = [...formUse].filter(([, n]) => n >= COMMON_FORM_SPECIES).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([name]) => name)
  const byKey = new Map(forms.concat(species).map((tile) => [tile.key, tile]))
  return { species, forms, typeNames, commonForms, family, byKey, hasRarity: species.some((s) => s.rarity !== 'regular') }
}
