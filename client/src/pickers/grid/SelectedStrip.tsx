import { memo, useDeferredValue } from 'react'
import type { TFunction } from 'i18next'
import { useTranslation } from 'react-i18next'
import { IconImage, iconUrl, type IconCategory, type IconSet } from '../../icons'

interface Props {
  keys: string[]
  nameOf: (key: string) => string
  sets: Map<IconCategory, IconSet> | undefined
  onRemove: (key: string) => void
  /** Offered when several may be chosen. */
  onClear?: (() => void) | undefined
}

/** Chips drawn at most: "select all shown" can choose a thousand, which the count already says. */
const CHIPS_SHOWN = 40

interface ChipProps { chosen: string, name: string, sets: Map<IconCategory, IconSet> | undefined, onRemove: (key: string) => void, t: TFunction }

/**
 * One chosen pokemon; memoised, so choosing more draws only the new chips. It gets the strip's `t` rather
 * than a translation hook of its own: forty hooks cost more than the chips' own drawing.
 */
const Chip = memo(function Chip ({ chosen, name, sets, onRemove, t }: ChipProps) {
  const [id, form] = chosen.split('-').map(Number)
  return (
    <li className='chip'>
      {(id ?? 0) > 0 && <IconImage src={iconUrl(sets, { kind: 'pokemon', id: id ?? 0, form: form ?? 0 })} label={name} size={24} />}
      <span aria-hidden='true'>{name}</span>
      <button type='button' className='chip-remove' aria-label={t('picker.remove', { name })} onClick={() => { onRemove(chosen) }}>✕</button>
    </li>
  )
})

/**
 * "Selected (n)": the choice as chips with their sprite, each removable, kept above the grid. Memoised:
 * drawn again when the choice changes, not on each keystroke of the picker's search.
 */
export const SelectedStrip = memo(function SelectedStrip ({ keys, nameOf, sets, onRemove, onClear }: Props) {
  const { t } = useTranslation()
  // The count follows the choice at once, the chips in a render of their own after the frame that shows
  // the tiles' new state (one a tap can interrupt): drawn in the same frame, the forty chips of a
  // "select all" were about half of its time.
  const chipKeys = useDeferredValue(keys)
  return (
    <div className='selected-strip'>
      <p className='small'>
        <strong>{t('picker.selectedCount', { count: keys.length })}</strong>
        {onClear !== undefined && keys.length > 1 && <button type='button' className='link-button' onClick={onClear}>{t('picker.clear')}</button>}
      </p>
      {keys.length === 0
        ? <p className='small muted'>{t('picker.nothingSelected')}</p>
        : (
          <ul className='chip-list'>
            {chipKeys.slice(0, CHIPS_SHOWN).map((key) => <Chip key={key} chosen={key} name={nameOf(key)} sets={sets} onRemove={onRemove} t={t} />)}
            {chipKeys.length > CHIPS_SHOWN && <li className='small muted'>{t('picker.more', { count: chipKeys.length - CHIPS_SHOWN })}</li>}
          </ul>
          )}
    </div>
  )
})
