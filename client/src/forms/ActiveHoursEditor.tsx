import { useId, useState } from 'react'
import { useTranslation } from 'react-i18next'

export interface ActiveHour { day: number, hours: number, mins: number }

const DAYS = [1, 2, 3, 4, 5, 6, 7]
/** The engine takes at most 28 rules (four a day). */
const MAX_RULES = 28

/** Reads the engine's JSON text; anything unreadable is an empty schedule. */
export function parseHours (text: string): ActiveHour[] {
  try {
    const list: unknown = JSON.parse(text === '' ? '[]' : text)
    return Array.isArray(list) ? list.map((r: Record<string, unknown>) => ({ day: Number(r.day), hours: Number(r.hours), mins: Number(r.mins) })) : []
  } catch {
    return []
  }
}

/**
 * Active hours: the moments the engine switches to this profile (a day and a time each). Shared by the
 * profile page and the summary schedule, which the engine keeps in the same form.
 */
export function ActiveHoursEditor ({ initial, busy, onSave, onCancel }: { initial: ActiveHour[], busy: boolean, onSave: (rules: ActiveHour[]) => void, onCancel?: () => void }) {
  const { t } = useTranslation()
  const id = useId()
  const [rules, setRules] = useState<ActiveHour[]>(initial)
  const change = (index: number, patch: Partial<ActiveHour>): void => { setRules((r) => r.map((rule, i) => i === index ? { ...rule, ...patch } : rule)) }
  const time = (rule: ActiveHour): string => `${String(rule.hours).padStart(2, '0')}:${String(rule.mins).padStart(2, '0')}`
  return (
    <form className='stack' onSubmit={(e) => { e.preventDefault(); onSave(rules) }}>
      {rules.length === 0 && <p className='muted'>{t('profiles.hours.none')}</p>}
      <ul className='list'>
        {rules.map((rule, index) => (
          <li key={index} className='hours-rule'>
            <label className='visually-hidden' htmlFor={`${id}-day-${index}`}>{t('profiles.hours.day', { number: index + 1 })}</label>
            <select id={`${id}-day-${index}`} className='select' value={rule.day} onChange={(e) => { change(index, { day: Number(e.target.value) }) }}>
              {DAYS.map((d) => <option key={d} value={d}>{t(`profiles.hours.days.${d}`)}</option>)}
            </select>
            <label className='visually-hidden' htmlFor={`${id}-time-${index}`}>{t('profiles.hours.time', { number: index + 1 })}</label>
            <input
              id={`${id}-time-${index}`}
              className='input'
              type='time'
              required
              value={time(rule)}
              onChange={(e) => { const [h, m] = e.target.value.split(':'); change(index, { hours: Number(h ?? 0), mins: Number(m ?? 0) }) }}
            />
            <button type='button' className='button' onClick={() => { setRules((r) => r.filter((_, i) => i !== index)) }}>{t('profiles.hours.remove')}</button>
          </li>
        ))}
      </ul>
      <div className='row'>
        <button type='button' className='button' disabled={rules.length >= MAX_RULES} onClick={() => { setRules((r) => [...r, { day: 1, hours: 8, mins: 0 }]) }}>{t('profiles.hours.add')}</button>
        <button type='submit' className='button button-primary' disabled={busy}>{busy ? t('status.saving') : t('profiles.hours.save')}</button>
        {onCancel !== undefined && <button type='button' className='button' onClick={onCancel}>{t('alarms.cancel')}</button>}
      </div>
    </form>
  )
}
