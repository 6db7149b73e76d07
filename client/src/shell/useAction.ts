import { useCallback, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { ApiError } from '../api'

/**
 * A user action that calls the API: `busy` while it runs (so a second tap sends nothing), and the
 * server's message when it fails. `run` resolves to whether it succeeded.
 */
export function useAction<A extends unknown[]> (action: (...args: A) => Promise<void>) {
  const { t } = useTranslation()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const run = async (...args: A): Promise<boolean> => {
    setBusy(true)
    setError(null)
    try {
      await action(...args)
      return true
    } catch (err) {
      setError(err instanceof ApiError ? err.message : t('status.failed'))
      return false
    } finally {
      setBusy(false)
    }
  }
  const clearError = useCallback(() => { setError(null) }, [])
  return { busy, error, run, clearError }
}
