import { useTranslation } from 'react-i18next'
import type { AlarmTypeDescriptor } from '../alarm-types'
import { AlarmIcon } from '../features/icons'
import { describeAlarm, type Vocabulary } from './describe'
import type { Alarm } from './form-model'

interface Props {
  type: AlarmTypeDescriptor
  alarm: Alarm
  vocabulary: Vocabulary
  selected: boolean
  busy: boolean
  onSelect: (on: boolean) => void
  onEdit: () => void
  onDelete: () => void
  onTest?: (() => void) | undefined
}

/** One alarm in words ("Dragonite, IV ≥ 90, within 2 km"), with its selection box and actions. */
export function AlarmCard ({ type, alarm, vocabulary, selected, busy, onSelect, onEdit, onDelete, onTest }: Props) {
  const { t } = useTranslation()
  const sentence = describeAlarm(type, alarm, vocabulary)
  return (
    <li className='alarm-card' data-uid={alarm.uid}>
      <label className='alarm-select'>
        <input type='checkbox' checked={selected} onChange={(e) => { onSelect(e.target.checked) }} />
        <span className='visually-hidden'>{t('alarms.select', { alarm: sentence })}</span>
      </label>
      <AlarmIcon type={type.type} alarm={alarm} label={t(`alarms.types.${type.type}`)} />
      <p className='alarm-text'>{sentence}</p>
      <div className='alarm-actions'>
        <button type='button' className='button' onClick={onEdit} disabled={busy} aria-label={t('alarms.editOne', { alarm: sentence })}>{t('alarms.edit')}</button>
        {onTest !== undefined && <button type='button' className='button' onClick={onTest} disabled={busy} aria-label={t('alarms.testOne', { alarm: sentence })}>{t('alarms.test')}</button>}
        <button type='button' className='button button-danger' onClick={onDelete} disabled={busy} aria-label={t('alarms.deleteOne', { alarm: sentence })}>{t('alarms.delete')}</button>
      </div>
    </li>
  )
}
