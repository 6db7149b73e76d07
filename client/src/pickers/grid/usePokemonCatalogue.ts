import { useEffect, useMemo } from 'react'
import type { Monster } from '../game-data'
import { useMonsters } from '../useGameData'
import { whenIdle } from '../../shell/idle'
import { loadIconSet } from '../../icons'
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
 * editor may show the grid (the alarm list), and reads the pokemon icon set, so opening the editor finds
 * both ready: its first tiles are drawn with their sprites, not drawn again when the icons arrive.
 */
export function usePreparedPokemonCatalogue (): void {
  const { monsters } = useMonsters()
  useEffect(() => {
    if (monsters === null) return
    return whenIdle(() => {
      catalogueOf(monsters)
      void loadIconSet('pokemon')
    })
  }, [monsters])
}

/** The grid's catalogue from the game data; null while loading or when it cannot be read. */
export function usePokemonCatalogue (): { catalogue: Catalogue | null, failed: boolean } {
  const { monsters, failed } = useMonsters()
  const catalogue = useMemo(() => monsters === null ? null : catalogueOf(monsters), [monsters])
  return { catalogue, failed }
}
