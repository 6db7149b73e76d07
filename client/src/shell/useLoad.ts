import { useCallback, useEffect, useState } from 'react'
import { ApiError } from '../api'

export type Loaded<T> =
  | { status: 'loading' }
  | { status: 'ready', data: T }
  | { status: 'failed', message: string, code: number }

/**
 * Runs `load` when the component mounts (and when `reload` is called), aborting it on unmount, and
 * tells the three states apart: every page shows loading, its data, or the server's message.
 */
export function useLoad<T> (load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[] = []): [Loaded<T>, () => void, (data: T) => void] {
  const [state, setState] = useState<Loaded<T>>({ status: 'loading' })
  const [round, setRound] = useState(0)

  useEffect(() => {
    const controller = new AbortController()
    setState({ status: 'loading' })
    load(controller.signal)
      .then((data) => { if (!controller.signal.aborted) setState({ status: 'ready', data }) })
      .catch((err: unknown) => {
        if (controller.signal.aborted) return
        const known = err instanceof ApiError
        setState({ status: 'failed', message: known ? err.message : String(err), code: known ? err.status : 0 })
      })
    return () => { controller.abort() }
    // The caller's deps say when to load again (what `load` reads, or a change on the server's side such
    // as the active profile); `load` itself is a new function on every render.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [round, ...deps])

  const reload = useCallback(() => { setRound((r) => r + 1) }, [])
  const replace = useCallback((data: T) => { setState({ status: 'ready', data }) }, [])
  return [state, reload, replace]
}
