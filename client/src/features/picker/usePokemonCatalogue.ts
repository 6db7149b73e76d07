import { useEffect, useMemo, useState } from 'react'
import { masterdata } from '../../api'
import type { Monster } from '../../pickers/game-data'
import { useMonsters } from '../../pickers/useGameData'
import { buildCatalogue, type Catalogue } from './catalogue'

/** Built once per game data list: every editor opened on the page shares it. */
const catalogues = new WeakMap<Monster[], Catalogue>()
function catalogueOf (monsters: Monster[]): Catalogue {
  let catalogue = catalogues.get(monsters)
  if (catalogue === undefined) {
    catalogue = buildCatalogue(monsters)
    catalogues.set(monsters, catalogue)
  }
  return catalogue
}

/**
 * Builds the grid's catalogue in the browser's idle time once the game data is in, on a page whose
 * editor may show the grid (the alarm list), so opening the editor finds it ready.
 */
export function usePreparedPokemonCatalogue (): void {
  const { monsters } = useMonsters()
  useEffect(() => {
    if (monsters === null) return
    const build = () => { catalogueOf(monsters) }
    if ('requestIdleCallback' in window) {
      const handle = requestIdleCallback(build, { timeout: 2000 })
      return () => { cancelIdleCallback(handle) }
    }
    const timer = setTimeout(build, 200)
    return () => { clearTimeout(timer) }
  }, [monsters])
}

/** The grid's catalogue from the game data; null while loading or when it cannot be read. */
export function usePokemonCatalogue (): { catalogue: Catalogue | null, failed: boolean } {
  const { monsters, failed } = useMonsters()
  const catalogue = useMemo(() => monsters === null ? null : catalogueOf(monsters), [monsters])
  return { catalogue, failed }
}

let spawning: Promise<Set<number> | null> | null = null

/**
 * The species spawning now (the site's scanner through `/api/pokemon-availability`), once per page
 * load; null when the site has no such source, so the "spawning now" facet is not offered.
 */
export function useSpawning (): Set<number> | null {
  const [ids, setIds] = useState<Set<number> | null>(null)
  useEffect(() => {
    let live = true
    spawning ??= masterdata.pokemonAvailability()
      .then((a) => a.enabled ? new Set(a.available) : null, () => { spawning = null; return null })
    void spawning.then((found) => { if (live) setIds(found) })
    return () => { live = false }
  }, [])
  return ids
}
