import type { Catalogue, Tile } from './catalogue'

/**
 * The search box's language, as map users know it: words match name, form, type, generation ("gen3")
 * or "#number"; a bare number is that dex number; `,` or `|` means OR, `&` means AND; a leading `+`
 * stands for the whole evolution family of every pokemon whose name contains the rest.
 * "fire & gen1, +eevee" = Gen 1 fire types, or any of Eevee's family.
 */
export type Matcher = (tile: Tile) => boolean

export function compileSearch (query: string, catalogue: Catalogue): Matcher | null {
  const alternatives = query.toLowerCase().split(/[,|]/).map((part) => part.split('&').map((term) => term.trim()).filter((term) => term !== '')).filter((terms) => terms.length > 0)
  if (alternatives.length === 0) return null
  const termMatcher = (term: string): Matcher => {
    if (term.startsWith('+')) {
      const name = term.slice(1).trim()
      const ids = new Set<number>()
      if (name !== '') {
        for (const s of catalogue.species) {
          if (s.name.toLowerCase().includes(name)) for (const id of catalogue.family.get(s.id) ?? [s.id]) ids.add(id)
        }
      }
      return (tile) => ids.has(tile.id)
    }
    if (/^#?\d+$/.test(term)) {
      const id = Number(term.replace('#', ''))
      return (tile) => tile.id === id
    }
    return (tile) => tile.search.includes(term)
  }
  const compiled = alternatives.map((terms) => terms.map(termMatcher))
  return (tile) => compiled.some((all) => all.every((match) => match(tile)))
}
