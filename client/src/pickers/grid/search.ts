import UFuzzy from '@leeoniya/ufuzzy'
import type { Catalogue, Tile } from './catalogue'

/**
 * Names spelled as heard: one letter left out, added, wrong or swapped ("pikchu", "pikacu", "pikahcu")
 * still finds the pokemon. One error per word keeps "fire" from finding every name with those letters.
 */
const forgiving = new UFuzzy({ intraMode: 1 })
/** Shorter words than this match only as written: two letters with one error would match almost anything. */
const FUZZY_FROM_LETTERS = 4

const namesByCatalogue = new WeakMap<Catalogue, string[]>()
/** Every species name, lower-cased, once per catalogue. */
function speciesNames (catalogue: Catalogue): string[] {
  let names = namesByCatalogue.get(catalogue)
  if (names === undefined) {
    names = [...new Set(catalogue.species.map((s) => s.name.toLowerCase()))]
    namesByCatalogue.set(catalogue, names)
  }
  return names
}

/** The species names a word finds with one error allowed (none for short words or non-letters). */
function nearNames (term: string, catalogue: Catalogue): Set<string> {
  if (term.length < FUZZY_FROM_LETTERS || !/^\p{L}+$/u.test(term)) return new Set()
  const names = speciesNames(catalogue)
  return new Set((forgiving.filter(names, term) ?? []).map((i) => names[i] as string))
}

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
    // Near spellings only for a word that finds nothing as written: "fire" stays the fire types.
    const written = catalogue.forms.some((tile) => tile.search.includes(term)) || catalogue.species.some((tile) => tile.search.includes(term))
    const near = written ? new Set<string>() : nearNames(term, catalogue)
    return (tile) => tile.search.includes(term) || near.has(tile.name.toLowerCase())
  }
  const compiled = alternatives.map((terms) => terms.map(termMatcher))
  return (tile) => compiled.some((all) => all.every((match) => match(tile)))
}

/** The plain words of a query, the ones that can show in a name (not numbers, not the family sign). */
function nameWords (query: string): string[] {
  return query.toLowerCase().split(/[,|&]/).map((w) => w.trim().replace(/^\+/, '').trim()).filter((w) => w !== '' && !/^#?\d+$/.test(w))
}

/**
 * Which letters of a name the query found, as [start, end) ranges for highlighting: a word written
 * as it is in the name marks that run; a word found with an error marks the letters it shares, in order.
 */
export function matchedLetters (name: string, query: string): Array<[number, number]> {
  const lower = name.toLowerCase()
  const marked = new Array<boolean>(name.length).fill(false)
  for (const word of nameWords(query)) {
    const at = lower.indexOf(word)
    if (at !== -1) {
      marked.fill(true, at, at + word.length)
      continue
    }
    if (word.length < FUZZY_FROM_LETTERS) continue
    const hits: number[] = []
    let next = 0
    for (let i = 0; i < lower.length && next < word.length; i++) {
      if (lower[i] === word[next]) { hits.push(i); next++ } else if (lower[i] === word[next + 1]) { hits.push(i); next += 2 }
    }
    // Only a near spelling of this name is shown: letters scattered by a word about something else are not.
    if (hits.length >= word.length - 1) for (const i of hits) marked[i] = true
  }
  const ranges: Array<[number, number]> = []
  marked.forEach((on, i) => {
    if (!on) return
    const last = ranges[ranges.length - 1]
    if (last !== undefined && last[1] === i) last[1] = i + 1
    else ranges.push([i, i + 1])
  })
  return ranges
}
