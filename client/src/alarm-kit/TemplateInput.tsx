import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { loadTemplateNames } from './editor-data'

/** The template's name, typed or chosen from the engine's own templates for this type. */
export function TemplateInput ({ id, type, value, describedBy, invalid, onChange }: { id: string, type: string, value: string, describedBy?: string | undefined, invalid?: boolean, onChange: (value: string) => void }) {
  const [names, setNames] = useState<string[]>([])
  const { t } = useTranslation()
  useEffect(() => { void loadTemplateNames(type).then(setNames, () => undefined) }, [type])
  return (
    <>
      <input id={id} className='input' list={`${id}-names`} value={value} placeholder={t('fields.templateDefault')} aria-describedby={describedBy} aria-invalid={invalid} onChange={(e) => { onChange(e.target.value) }} />
      <datalist id={`${id}-names`}>{names.map((n) => <option key={n} value={n} />)}</datalist>
    </>
  )
}
