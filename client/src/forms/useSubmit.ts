import { useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { ApiError } from '../api'

/**
 * One action at a time with its outcome: `run` ignores a second call while the first is under way (a
 * double tap sends once) and keeps the server's message when it fails.
 */
export function useSubmit (): { busy: boolean, error: string | null, setError: (e: string | null) => void, run: (work: () => Promise<void>) => Promise<boolean> } {
  const { t } = useTranslation()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const running = useRef(false)
  const run = async (work: () => Promise<void>): Promise<boolean> => {
    if (running.current) return false
    running.current = true
    setBusy(true)
    setError(null)
    try {
      await work()
      return true
    } catch (err) {
      setError(err instanceof ApiError ? err.message : t('status.failed'))
      return false
    } finally {
      running.current = false
      setBusy(false)
    }
  }
  return { busy, error, setError, run }
}
