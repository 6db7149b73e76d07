import { useTranslation } from 'react-i18next'
import type { AlarmTypeDescriptor } from '../alarm-types'
import { PokemonIcon } from '../pickers/PokemonIcon'
import { describeAlarm, type Vocabulary } from './describe'
import type { Alarm } from './form-model'
import { CardEstimate } from '../features/estimates/CardEstimate'

interface Props {
  type: AlarmTypeDescriptor
  alarm: Alarm
  vocabulary: Vocabulary
  iconBase: string | null
  selected: boolean
  busy: boolean
  onSelect: (on: boolean) => void
  onEdit: () => void
  onDelete: () => void
  onTest?: (() => void) | undefined
}

/** One alarm in words ("Dragonite, IV ≥ 90, within 2 km"), with its selection box and actions. */
export function AlarmCard ({ type, alarm, vocabulary, iconBase, selected, busy, onSelect, onEdit, onDelete, onTest }: Props) {
  const { t } = useTranslation()
  const sentence = describeAlarm(type, alarm, vocabulary)
  const pokemonId = Number(type.type === 'quest' ? (Number(alarm.reward_type) === 7 ? alarm.reward : 0) : alarm.pokemon_id ?? 0)
  return (
    <li className='alarm-card' data-uid={alarm.uid}>
      <label className='alarm-select'>
        <input type='checkbox' checked={selected} onChange={(e) => { onSelect(e.target.checked) }} />
        <span className='visually-hidden'>{t('alarms.select', { alarm: sentence })}</span>
      </label>
      <PokemonIcon base={iconBase} id={pokemonId} form={Number(alarm.form ?? 0)} />
      <p className='alarm-text'>{sentence}</p>
      <CardEstimate type={type.type} uid={alarm.uid} />
      <div className='alarm-actions'>
        <button type='button' className='button' onClick={onEdit} disabled={busy} aria-label={t('alarms.editOne', { alarm: sentence })}>{t('alarms.edit')}</button>
        {onTest !== undefined && <button type='button' className='button' onClick={onTest} disabled={busy} aria-label={t('alarms.testOne', { alarm: sentence })}>{t('alarms.test')}</button>}
        <button type='button' className='button button-danger' onClick={onDelete} disabled={busy} aria-label={t('alarms.deleteOne', { alarm: sentence })}>{t('alarms.delete')}</button>
      </div>
    </li>
  )
}
