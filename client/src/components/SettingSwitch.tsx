import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { ApiError } from '../api'

interface SettingSwitchProps {
  label: string
  help?: string
  checked: boolean
  disabled?: boolean
  /** Saves the new state; a rejection keeps the old state and shows the server's message. */
  onChange: (checked: boolean) => Promise<void>
}

/** A labelled checkbox that saves on change and says whether it worked. */
export function SettingSwitch ({ label, help, checked, disabled = false, onChange }: SettingSwitchProps) {
  const { t } = useTranslation()
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)

  const change = async (next: boolean): Promise<void> => {
    setBusy(true)
    setError(null)
    try {
      await onChange(next)
    } catch (err) {
      setError(err instanceof ApiError ? err.message : t('status.failed'))
    } finally {
      setBusy(false)
    }
  }

  return (
    <div className='stack-tight'>
      <label className='switch'>
        <input type='checkbox' checked={checked} disabled={disabled || busy} onChange={(e) => { void change(e.target.checked) }} />
        <span>{label}</span>
      </label>
      {help !== undefined && <span className='help'>{help}</span>}
      {error !== null && <p className='notice notice-error' role='alert'>{error}</p>}
    </div>
  )
}
