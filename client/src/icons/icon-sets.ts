import { useEffect, useState } from 'react'
import { masterdata } from '../api'
import { categoryOf, IconSet, resolve, type IconCategory, type IconRequest } from './uicons'

const FOLDERS: Record<IconCategory, string> = {
  pokemon: 'pokemon',
  raid: 'raid',
  gym: 'gym',
  team: 'team',
  invasion: 'invasion',
  pokestop: 'pokestop',
  reward: 'reward',
  item: 'reward',
  type: 'type',
  weather: 'weather',
  misc: 'misc'
}

const sets = new Map<IconCategory, Promise<IconSet>>()
const ready = new Map<IconCategory, IconSet>()

/**
 * A category's icon set, read once per page load through the service (which reads the set's index.json
 * once an hour for everyone). A failed read is an empty set, so icons become placeholders, and is
 * forgotten so that the next page asks again.
 */
export function loadIconSet (category: IconCategory): Promise<IconSet> {
  let pending = sets.get(category)
  if (pending === undefined) {
    pending = masterdata.icons(category)
      .then((answer) => new IconSet(answer.base, FOLDERS[category], answer.files))
      .catch(() => {
        sets.delete(category)
        return new IconSet('', FOLDERS[category], null)
      })
      .then((set) => { ready.set(category, set); return set })
    sets.set(category, pending)
  }
  return pending
}

/** The set already loaded for a category, for drawing hundreds of tiles without one effect each. */
export const loadedIconSet = (category: IconCategory): IconSet | undefined => ready.get(category)

/**
 * The sets of the given categories once loaded; undefined until then. Components that draw many icons
 * call this once and resolve each icon with `iconUrl`.
 */
export function useIconSets (categories: IconCategory[]): Map<IconCategory, IconSet> | undefined {
  const key = [...new Set(categories)].sort().join(',')
  const list = (key === '' ? [] : key.split(',')) as IconCategory[]
  const [loaded, setLoaded] = useState<{ key: string, sets: Map<IconCategory, IconSet> } | undefined>(() => {
    const known = list.map((c) => [c, ready.get(c)] as const)
    return known.every(([, s]) => s !== undefined) ? { key, sets: new Map(known as Array<[IconCategory, IconSet]>) } : undefined
  })
  useEffect(() => {
    if (loaded?.key === key) return
    let live = true
    const list = (key === '' ? [] : key.split(',')) as IconCategory[]
    void Promise.all(list.map(loadIconSet)).then((found) => {
      if (live) setLoaded({ key, sets: new Map(list.map((c, i) => [c, found[i] as IconSet])) })
    })
    return () => { live = false }
  }, [key, loaded?.key])
  return loaded?.key === key ? loaded.sets : undefined
}

/** The icon's address from loaded sets; null when its set lacks it (or is not loaded). */
export function iconUrl (sets: Map<IconCategory, IconSet> | undefined, request: IconRequest): string | null {
  const set = sets?.get(categoryOf(request))
  return set === undefined ? null : resolve(set, request)
}
