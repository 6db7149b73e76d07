import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'

export interface Choice { value: string, label: string }

interface Props {
  inputId: string
  describedBy: string | undefined
  value: string
  invalid: boolean
  /** The choices, or a loader for them (raid levels, grunt types); a failed load leaves a number or text box. */
  choices: Choice[] | (() => Promise<Choice[]>)
  onChange: (value: string) => void
}

/**
 * One value out of a list, as a native select (keyboard, screen reader and phone pickers for free). A
 * stored value the list does not know stays selectable under its raw value.
 */
export function ChoicePicker ({ inputId, describedBy, value, invalid, choices, onChange }: Props) {
  const { t } = useTranslation()
  const [loaded, setLoaded] = useState<Choice[] | 'loading' | 'failed'>(Array.isArray(choices) ? choices : 'loading')

  useEffect(() => {
    if (Array.isArray(choices)) { setLoaded(choices); return }
    let live = true
    choices().then((list) => { if (live) setLoaded(list) }, () => { if (live) setLoaded('failed') })
    return () => { live = false }
  }, [choices])

  if (loaded === 'failed') {
    return (
      <>
        <input id={inputId} className='input' value={value} aria-describedby={describedBy} aria-invalid={invalid} onChange={(e) => { onChange(e.target.value) }} />
        <p className='small muted'>{t('pickers.choicesUnavailable')}</p>
      </>
    )
  }
  const list = loaded === 'loading' ? [] : loaded
  const known = list.some((c) => c.value === value)
  return (
    <select id={inputId} className='select' value={value} aria-describedby={describedBy} aria-invalid={invalid} disabled={loaded === 'loading'} onChange={(e) => { onChange(e.target.value) }}>
      {!known && <option value={value}>{value === '' ? t('pickers.choose') : value}</option>}
      {list.map((c) => <option key={c.value} value={c.value}>{c.label}</option>)}
    </select>
  )
}
