import { useEffect, useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { IconImage, iconUrl, useIconSets, categoryOf, type IconCategory } from '../../icons'
import { loadChoices, type ChoiceGroup, type ChoiceKind } from './choices'
import './picker.css'

export interface ChoiceGridPickerProps {
  kind: ChoiceKind
  /** The values as the engine stores them (strings: "5", "giovanni", "501"). */
  selected: string[]
  onChange: (values: string[]) => void
  label: string
  /** Several at once (default) or one. */
  multiple?: boolean
  /** Ids of the help and error texts of a form field holding the picker; `invalid` marks it wrong. */
  describedBy?: string | undefined
  invalid?: boolean
}

/**
 * Levels, grunts, lures, teams, items and reward kinds as icon tiles that toggle (aria-pressed, with a
 * check mark besides the colour), grouped where the game groups them (grunts, leaders, PokéStop events).
 * A stored value the list does not know stays shown and removable.
 */
export function ChoiceGridPicker ({ kind, selected, onChange, label, multiple = true, describedBy, invalid = false }: ChoiceGridPickerProps) {
  const { t, i18n } = useTranslation()
  const labelId = useId()
  const [groups, setGroups] = useState<ChoiceGroup[] | 'loading' | 'failed'>('loading')
  useEffect(() => {
    let live = true
    setGroups('loading')
    loadChoices(kind, t).then((g) => { if (live) setGroups(g) }, () => { if (live) setGroups('failed') })
    return () => { live = false }
  }, [kind, t, i18n.language])
  const categories: IconCategory[] = Array.isArray(groups) ? groups.flatMap((g) => g.choices.flatMap((c) => c.icon === null ? [] : [categoryOf(c.icon)])) : []
  const sets = useIconSets(categories)
  const chosen = new Set(selected)
  const known = new Set(Array.isArray(groups) ? groups.flatMap((g) => g.choices.map((c) => c.value)) : [])
  const every = new Set(Array.isArray(groups) ? groups.flatMap((g) => g.choices.flatMap((c) => c.every === true ? [c.value] : [])) : [])
  const toggle = (value: string) => {
    if (!multiple) { onChange(chosen.has(value) ? [] : [value]); return }
    if (chosen.has(value)) { onChange(selected.filter((v) => v !== value)); return }
    // "Every …" and particular values exclude each other: picking one kind drops the other.
    onChange(every.has(value) ? [value] : [...selected.filter((v) => !every.has(v)), value])
  }
  const unknown = Array.isArray(groups) ? selected.filter((v) => !known.has(v)) : []

  return (
    <div className='choice-grid' role='group' aria-labelledby={labelId} aria-describedby={describedBy} aria-invalid={invalid || undefined} data-kind={kind}>
      <p id={labelId} className='grid-picker-label'>{label}</p>
      {groups === 'loading' && <p className='muted' aria-busy='true'>{t('picker.loading')}</p>}
      {groups === 'failed' && <p className='field-error'>{t('pickers.choicesUnavailable')}</p>}
      {Array.isArray(groups) && groups.map((group) => (
        <div key={group.id} className='choice-group'>
          {group.title !== null && <p className='choice-group-title'>{group.title}</p>}
          <ul className='choice-tiles'>
            {group.choices.map((choice) => {
              const on = chosen.has(choice.value)
              return (
                <li key={choice.value}>
                  <button type='button' className='tile tile-choice' aria-pressed={on} data-value={choice.value} onClick={() => { toggle(choice.value) }}>
                    <span className='tile-check' aria-hidden='true'>{on ? '✓' : ''}</span>
                    <IconImage src={choice.icon === null ? null : iconUrl(sets, choice.icon)} label={choice.label} short={choice.short} size={40} />
                    <span className='tile-name' aria-hidden='true'>{choice.label}</span>
                  </button>
                </li>
              )
            })}
          </ul>
        </div>
      ))}
      {unknown.length > 0 && (
        <ul className='chip-list'>
          {unknown.map((value) => (
            <li key={value} className='chip'>
              <span>{value}</span>
              <button type='button' className='chip-remove' aria-label={t('picker.remove', { name: value })} onClick={() => { onChange(selected.filter((v) => v !== value)) }}>✕</button>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
