import { useSubmit } from '../forms/useSubmit'

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
  const { busy, error, run } = useSubmit()

  return (
    <div className='stack-tight'>
      <label className='switch'>
        <input type='checkbox' checked={checked} disabled={disabled || busy} onChange={(e) => { const next = e.target.checked; void run(() => onChange(next)) }} />
        <span>{label}</span>
      </label>
      {help !== undefined && <span className='help'>{help}</span>}
      {error !== null && <p className='notice notice-error' role='alert'>{error}</p>}
    </div>
  )
}
