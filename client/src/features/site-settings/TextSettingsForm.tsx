import { useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Card } from '../../components/Card'
import { ApiError } from '../../api'
import { useSubmit } from '../../forms/useSubmit'
import type { SiteSetting } from '../../types'
import { saveSetting, type SettingValues } from '../../setting-values'

export interface TextField {
  key: string
  label: string
  help: string
  /** Said at the field when the server refuses the value (the server's own sentence is English). */
  refused: string
  url?: boolean
  /** A whole number from `min` to `max`: the phone shows its number pad. */
  whole?: { min: number, max: number }
  maxLength?: number
  /** Extra controls under the field (an icon set's check), given the field's current draft. */
  extra?: (draft: string, change: (value: string) => void) => React.ReactNode
}

/**
 * A form of text settings saved together: each changed key is written on its own, a refused one keeps
 * its draft and says why at its field, and what was written is shown as written.
 */
export function TextSettingsForm ({ fields, settings, category, submit, onSaved, before }: {
  fields: TextField[]
  settings: SettingValues
  category: string
  submit: string
  onSaved: (rows: SiteSetting[]) => void
  /** Controls above the fields that fill the drafts (icon-set presets). */
  before?: (fill: (values: Record<string, string>) => void) => React.ReactNode
}) {
  const { t } = useTranslation()
  const id = useId()
  const [draft, setDraft] = useState<Record<string, string>>(() => Object.fromEntries(fields.map((f) => [f.key, settings.get(f.key) ?? ''])))
  const [problems, setProblems] = useState<Record<string, string>>({})
  const [saved, setSaved] = useState(false)
  const { busy, error, run } = useSubmit()
  const change = (key: string, value: string): void => {
    setDraft((d) => ({ ...d, [key]: value }))
    setSaved(false)
  }

  const save = () => run(async () => {
    setSaved(false)
    const found: Record<string, string> = {}
    const rows: SiteSetting[] = []
    try {
      for (const field of fields) {
        const value = (draft[field.key] ?? '').trim()
        if (value === (settings.get(field.key) ?? '')) continue
        try {
          rows.push(await saveSetting(field.key, value === '' ? null : value, false, category))
        } catch (err) {
          if (!(err instanceof ApiError) || err.status !== 400) throw err
          found[field.key] = field.refused
        }
      }
    } finally {
      if (rows.length > 0) onSaved(rows)
    }
    setProblems(found)
    if (Object.keys(found).length > 0) throw new ApiError(400, t('siteSettings.notAllSaved'))
    setSaved(true)
  })

  return (
    <form className='stack' noValidate onSubmit={(e) => { e.preventDefault(); void save() }}>
      {before?.((values) => { setDraft((d) => ({ ...d, ...values })); setSaved(false) })}
      {fields.map((field) => {
        const fieldId = `${id}-${field.key}`
        const problem = problems[field.key]
        const value = draft[field.key] ?? ''
        return (
          <div key={field.key} className='field'>
            <label htmlFor={fieldId}>{field.label}</label>
            <input
              id={fieldId}
              className='input'
              value={value}
              maxLength={field.maxLength ?? 2048}
              {...(field.url === true && { inputMode: 'url' as const, spellCheck: false })}
              {...(field.whole !== undefined && { type: 'number', inputMode: 'numeric' as const, min: field.whole.min, max: field.whole.max, step: 1 })}
              aria-invalid={problem !== undefined}
              aria-describedby={problem !== undefined ? `${fieldId}-error ${fieldId}-help` : `${fieldId}-help`}
              onChange={(e) => { change(field.key, e.target.value) }}
            />
            <span id={`${fieldId}-help`} className='help'>{field.help}</span>
            {problem !== undefined && <p id={`${fieldId}-error`} className='field-error'>{problem}</p>}
            {field.extra?.(value, (next) => { change(field.key, next) })}
          </div>
        )
      })}
      <button type='submit' className='button button-primary' disabled={busy}>{busy ? t('status.saving') : submit}</button>
      <div aria-live='polite'>
        {error !== null && <p className='notice notice-error'>{error}</p>}
        {saved && <p className='notice'>{t('status.saved')}</p>}
      </div>
    </form>
  )
}

/** A card of one group of text settings: its title, help and button are `siteSettings.<group>.title|help|save`. */
export function TextSettingsCard ({ group, category = group, ...form }: { group: string, category?: string } & Omit<Parameters<typeof TextSettingsForm>[0], 'category' | 'submit'>) {
  const { t } = useTranslation()
  return (
    <Card title={t(`siteSettings.${group}.title`)} help={t(`siteSettings.${group}.help`)} id={group}>
      <TextSettingsForm {...form} category={category} submit={t(`siteSettings.${group}.save`)} />
    </Card>
  )
}
