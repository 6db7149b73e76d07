import { useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { ApiError } from '../api'

/** Takes over a failure from `run`: for callers that need more of the error than its message (a 400's field details). */
export type SubmitFailure = (err: unknown) => void

/**
 * One action at a time with its outcome: `run` ignores a second call while the first is under way (a
 * double tap sends once) and keeps the server's message when it fails. A caller that passes `onError`
 * gets the caught error itself instead, and `error` stays empty.
 */
export function useSubmit (): { busy: boolean, error: string | null, setError: (e: string | null) => void, run: (work: () => Promise<void>, onError?: SubmitFailure) => Promise<boolean> } {
  const { t } = useTranslation()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const running = useRef(false)
  const run = async (work: () => Promise<void>, onError?: SubmitFailure): Promise<boolean> => {
    if (running.current) return false
    running.current = true
    setBusy(true)
    setError(null)
    try {
      await work()
      return true
    } catch (err) {
      if (onError === undefined) setError(err instanceof ApiError ? err.message : t('status.failed'))
      else onError(err)
      return false
    } finally {
      running.current = false
      setBusy(false)
    }
  }
  return { busy, error, setError, run }
}
