import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { gymLabel, loadGrunts, loadMoves, loadGym, loadGymPickerAvailable, loadedMonsters, loadMonsters, type Grunt, type Monster } from './game-data'

/**
 * The pokemon of the game data for a component; null while loading or when no game data could be read
 * (everything then falls back to numbers).
 */
export function useMonsters (): { monsters: Monster[] | null, failed: boolean } {
  const { i18n } = useTranslation()
  const [monsters, setMonsters] = useState<Monster[] | null>(() => loadedMonsters(i18n.language) ?? null)
  const [failed, setFailed] = useState(false)
  useEffect(() => {
    let live = true
    setFailed(false)
    loadMonsters(i18n.language).then((m) => { if (live) setMonsters((held) => held === m ? held : m) }, () => { if (live) setFailed(true) })
    return () => { live = false }
  }, [i18n.language])
  return { monsters, failed }
}

/**
 * The engine's grunts by game id: null while loading or when they cannot be read (`failed`, and `retry`
 * asks again: a failed read is not kept).
 */
export function useGrunts (): { grunts: Record<string, Grunt> | null, failed: boolean, retry: () => void } {
  const [grunts, setGrunts] = useState<Record<string, Grunt> | null>(null)
  const [failed, setFailed] = useState(false)
  const [attempt, setAttempt] = useState(0)
  useEffect(() => {
    let live = true
    setFailed(false)
    loadGrunts().then((g) => { if (live) setGrunts(g) }, () => { if (live) setFailed(true) })
    return () => { live = false }
  }, [attempt])
  return { grunts, failed, retry: () => { setAttempt((n) => n + 1) } }
}

/** Move names by id when `wanted` (a type with a move filter); null otherwise, while loading, or when they cannot be read. */
export function useMoves (wanted: boolean): Record<string, string> | null {
  const [moves, setMoves] = useState<Record<string, string> | null>(null)
  useEffect(() => {
    if (!wanted) return
    let live = true
    loadMoves().then((m) => { if (live) setMoves(m) }, () => {})
    return () => { live = false }
  }, [wanted])
  return moves
}

/** Whether the gym picker is offered (the site has a scanner database); false until known. */
export function useGymPickerAvailable (): boolean {
  const [available, setAvailable] = useState(false)
  useEffect(() => {
    let live = true
    void loadGymPickerAvailable().then((yes) => { if (live) setAvailable(yes) })
    return () => { live = false }
  }, [])
  return available
}

/**
 * Names for the gym ids of a list of alarms, each read once through the scanner; an id the scanner does
 * not know (or a site without one) has no entry, so its id is shown instead.
 */
export function useGymNames (ids: string[]): Map<string, string> {
  const [names, setNames] = useState<Map<string, string>>(new Map())
  const key = [...new Set(ids)].sort().join('\n')
  useEffect(() => {
    if (key === '') return
    let live = true
    void (async () => {
      if (!await loadGymPickerAvailable()) return
      const found = await Promise.all(key.split('\n').map(async (id) => await loadGym(id).then((gym) => [id, gymLabel(gym)] as const, () => null)))
      if (live) setNames(new Map(found.filter((entry) => entry !== null)))
    })()
    return () => { live = false }
  }, [key])
  return names
}
