import { useCallback, useSyncExternalStore } from 'react'

/** Whether `query` matches now; re-renders when it starts or stops matching (a rotated phone, a resized window). */
export function useMediaQuery (query: string): boolean {
  const subscribe = useCallback((changed: () => void) => {
    const list = window.matchMedia(query)
    list.addEventListener('change', changed)
    return () => { list.removeEventListener('change', changed) }
  }, [query])
  return useSyncExternalStore(subscribe, () => window.matchMedia(query).matches)
}
