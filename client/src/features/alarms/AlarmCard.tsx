import { memo } from 'react'
import { useTranslation } from 'react-i18next'
import type { AlarmTypeDescriptor } from '../../alarm-types'
import { AlarmIcon } from '../../alarm-kit/AlarmIcon'
import { GameIcon } from '../../icons/GameIcon'
import { describeCard, type Vocabulary } from '../../alarm-kit/describe'
import { CardEstimate } from '../../estimates/CardEstimate'
import type { Alarm } from '../../alarm-kit/form-model'

interface Props {
  type: AlarmTypeDescriptor
  alarm: Alarm
  vocabulary: Vocabulary
  /** In select mode the card is a checkbox; otherwise it has its actions. */
  selecting: boolean
  selected: boolean
  busy: boolean
  onSelect: (uid: number, on: boolean) => void
  onEdit: (alarm: Alarm) => void
  onDelete: (alarm: Alarm) => void
  onTest?: ((alarm: Alarm) => void) | undefined
}

/**
 * One alarm: its sprite, its subject and coloured pills for every filter, where it is delivered, clean-up
 * and template, and under them the engine's own one-line description where it gives one.
 */
export const AlarmCard = memo(function AlarmCard ({ type, alarm, vocabulary, selecting, selected, busy, onSelect, onEdit, onDelete, onTest }: Props) {
  const { t } = useTranslation()
  const { subject, sentence, pills } = describeCard(type, alarm, vocabulary)
  const pokemonId = Number(type.type === 'quest' ? (Number(alarm.reward_type) === 7 ? alarm.reward : 0) : alarm.pokemon_id ?? 0)
  const description = typeof alarm.description === 'string' && alarm.description.trim() !== '' ? alarm.description : null
  return (
    <div className={`alarm-card${selected ? ' alarm-card-selected' : ''}`} data-uid={alarm.uid}>
      {selecting && (
        <label className='alarm-select'>
          <input type='checkbox' checked={selected} onChange={(e) => { onSelect(alarm.uid, e.target.checked) }} />
          <span className='visually-hidden'>{t('alarms.select', { alarm: sentence })}</span>
        </label>
      )}
      <span className='alarm-sprite'><AlarmIcon type={type.type} alarm={alarm} label={subject} /></span>
      {/* Screen readers get the one sentence; the title and pills below say the same to the eye. */}
      <p className='visually-hidden alarm-text'>{sentence}</p>
      <div className='alarm-main' aria-hidden='true'>
        <p className='alarm-title'>
          <strong>{subject}</strong>
          {pokemonId > 0 && pokemonId < 9000 && <span className='muted small'> #{pokemonId}</span>}
        </p>
        <ul className='pills'>
          {pills.map((p) => (
            <li key={p.key} className={`pill pill-${p.tone}`}>
              {/* A team filter wears the team's badge, as the game shows it. */}
              {p.key === 'team' && <GameIcon icon={{ kind: 'team', team: Number(alarm.team) }} label={p.text} size={16} />}
              {p.text}
            </li>
          ))}
        </ul>
        {description !== null && <p className='alarm-description small muted'>{description}</p>}
      </div>
      <CardEstimate type={type.type} uid={alarm.uid} />
      {!selecting && (
        <div className='alarm-actions'>
          <button type='button' className='button' onClick={() => { onEdit(alarm) }} disabled={busy} aria-label={t('alarms.editOne', { alarm: sentence })}>{t('alarms.edit')}</button>
          {onTest !== undefined && <button type='button' className='button' onClick={() => { onTest(alarm) }} disabled={busy} aria-label={t('alarms.testOne', { alarm: sentence })}>{t('alarms.test')}</button>}
          <button type='button' className='button button-danger' onClick={() => { onDelete(alarm) }} disabled={busy} aria-label={t('alarms.deleteOne', { alarm: sentence })}>{t('alarms.delete')}</button>
        </div>
      )}
    </div>
  )
})
