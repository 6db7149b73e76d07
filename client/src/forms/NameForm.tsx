import { useId, useState } from 'react'
import { useTranslation } from 'react-i18next'

/**
 * A one-field form for a name (new profile, rename, copy, import), with its own label and button.
 * `refused` is the server's reason the last name was not taken (e.g. a name already in use), said at the field.
 */
export function NameForm ({ label, submit, initial = '', busy, refused = null, onSubmit, onCancel }: {
  label: string
  submit: string
  initial?: string
  busy: boolean
  refused?: string | null
  onSubmit: (name: string) => void
  onCancel?: () => void
}) {
  const { t } = useTranslation()
  const id = useId()
  const [name, setName] = useState(initial)
  const [local, setError] = useState<string | null>(null)
  const error = local ?? refused
  return (
    <form
      className='name-form'
      noValidate
      onSubmit={(e) => {
        e.preventDefault()
        if (name.trim() === '') { setError(t('fields.errors.required')); return }
        if (name.length > 255) { setError(t('fields.errors.tooLong', { max: 255 })); return }
        setError(null)
        onSubmit(name.trim())
      }}
    >
      <div className='field'>
        <label htmlFor={id}>{label}</label>
        <input id={id} className='input' value={name} maxLength={255} aria-invalid={error !== null} aria-describedby={error !== null ? `${id}-error` : undefined} onChange={(e) => { setName(e.target.value) }} />
        {error !== null && <p id={`${id}-error`} className='field-error'>{error}</p>}
      </div>
      <div className='row'>
        <button type='submit' className='button button-primary' disabled={busy}>{busy ? t('status.saving') : submit}</button>
        {onCancel !== undefined && <button type='button' className='button' onClick={onCancel}>{t('alarms.cancel')}</button>}
      </div>
    </form>
  )
}
