import type { Rarity, Tile } from './catalogue'

/** The grid's filters; empty sets filter nothing. Every facet narrows the grid further (AND). */
export interface Facets {
  generations: Set<number>
  /** One type: mono or dual types containing it; two: exactly that dual type. */
  types: Set<number>
  rarity: Set<Rarity>
  /** 'normal', 'alt', or a form name (Alola...). */
  forms: Set<string>
  selectedOnly: boolean
  /** Only species the scanner sees now (seen-now.ts: spawns, raid bosses, power spots or quest rewards). */
  seenNow: boolean
}

export const noFacets = (): Facets => ({ generations: new Set(), types: new Set(), rarity: new Set(), forms: new Set(), selectedOnly: false, seenNow: false })

export const activeFacetCount = (f: Facets): number =>
  f.generations.size + f.types.size + f.rarity.size + f.forms.size + (f.selectedOnly ? 1 : 0) + (f.seenNow ? 1 : 0)

export function facetMatcher (f: Facets, selected: Set<string>, seen: Set<number> | null): (tile: Tile) => boolean {
  const types = [...f.types]
  return (tile) => {
    if (f.generations.size > 0 && !f.generations.has(tile.generation)) return false
    if (types.length === 1 && !tile.types.includes(types[0] as number)) return false
    if (types.length >= 2 && !(tile.types.length === types.length && types.every((t) => tile.types.includes(t)))) return false
    if (f.rarity.size > 0 && !f.rarity.has(tile.rarity)) return false
    if (f.forms.size > 0) {
      const kind = tile.formName === '' ? 'normal' : 'alt'
      if (!f.forms.has(kind) && !f.forms.has(tile.formName)) return false
    }
    if (f.selectedOnly && !selected.has(tile.key)) return false
    if (f.seenNow && seen !== null && !seen.has(tile.id)) return false
    return true
  }
}
