import { useCallback, useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'

export interface Announcement { message: string, tone: 'info' | 'error', undo?: () => void }

/** How long an undo stays offered. */
const UNDO_MS = 10_000

/**
 * The result of the last action, in a live region a screen reader reads out, with an Undo button for a
 * while when the action can be taken back.
 */
export function useAnnouncer (): [React.ReactNode, (a: Announcement | null) => void] {
  const { t } = useTranslation()
  const [current, setCurrent] = useState<Announcement | null>(null)
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  const announce = useCallback((a: Announcement | null) => {
    clearTimeout(timer.current)
    setCurrent(a)
    if (a?.undo !== undefined) timer.current = setTimeout(() => { setCurrent((c) => c === a ? { message: a.message, tone: a.tone } : c) }, UNDO_MS)
  }, [])
  useEffect(() => () => { clearTimeout(timer.current) }, [])
  const node = (
    <div className='announcer' role='status' aria-live='polite'>
      {current !== null && (
        <div className={current.tone === 'error' ? 'notice notice-error' : 'notice'}>
          <span>{current.message}</span>
          {current.undo !== undefined && (
            <button type='button' className='button' onClick={() => { const undo = current.undo!; announce(null); undo() }}>{t('alarms.undo')}</button>
          )}
        </div>
      )}
    </div>
  )
  return [node, announce]
}
