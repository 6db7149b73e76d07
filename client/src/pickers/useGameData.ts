import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { loadIconBase, loadMonsters, type Monster } from './game-data'

/**
 * The pokemon names and icon base for a component; null while loading or when the engine's game data is
 * unreachable (everything then falls back to numbers and names without pictures).
 */
export function useMonsters (): { monsters: Monster[] | null, iconBase: string | null, failed: boolean } {
  const { i18n } = useTranslation()
  const [monsters, setMonsters] = useState<Monster[] | null>(null)
  const [iconBase, setIconBase] = useState<string | null>(null)
  const [failed, setFailed] = useState(false)
  useEffect(() => {
    let live = true
    loadMonsters(i18n.language).then((m) => { if (live) setMonsters(m) }, () => { if (live) setFailed(true) })
    void loadIconBase().then((base) => { if (live) setIconBase(base) })
    return () => { live = false }
  }, [i18n.language])
  return { monsters, iconBase, failed }
}
