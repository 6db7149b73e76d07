import { useTranslation } from 'react-i18next'
import { GameIcon } from '../../icons'
import type { Catalogue, Rarity } from './catalogue'
import type { Facets } from './facets'

interface Props {
  catalogue: Catalogue
  facets: Facets
  /** The "seen now" facet's name for this picker; null when the site cannot say what is seen now. */
  seenNowLabel: string | null
  onChange: (facets: Facets) => void
}

const GENERATIONS = [1, 2, 3, 4, 5, 6, 7, 8, 9]
const RARITIES: Rarity[] = ['regular', 'legendary', 'mythical', 'ultraBeast']

function toggled<T> (set: Set<T>, value: T, on: boolean): Set<T> {
  const next = new Set(set)
  if (on) next.add(value)
  else next.delete(value)
  return next
}

/** The grid's filters as groups of check chips: generations, types, rarity, forms and the rest. */
export function FacetPanel ({ catalogue, facets, seenNowLabel, onChange }: Props) {
  const { t } = useTranslation()
  const types = [...catalogue.typeNames].sort((a, b) => a[0] - b[0])
  const formOptions = ['normal', 'alt', ...catalogue.commonForms]
  return (
    <div className='facet-panel'>
      <fieldset className='facet-group'>
        <legend>{t('picker.facets.generations')}</legend>
        {GENERATIONS.map((g) => (
          <label key={g} className='facet-chip'>
            <input type='checkbox' checked={facets.generations.has(g)} onChange={(e) => { onChange({ ...facets, generations: toggled(facets.generations, g, e.target.checked) }) }} />
            <span>{t('picker.facets.generation', { generation: g })}</span>
          </label>
        ))}
      </fieldset>
      {types.length > 0 && (
        <fieldset className='facet-group'>
          <legend>{t('picker.facets.types')}</legend>
          <p className='small muted'>{t('picker.facets.typesHint')}</p>
          {types.map(([id, name]) => (
            <label key={id} className='facet-chip'>
              <input type='checkbox' checked={facets.types.has(id)} onChange={(e) => { onChange({ ...facets, types: toggled(facets.types, id, e.target.checked) }) }} />
              <GameIcon icon={{ kind: 'type', id }} label={name} size={20} />
              <span aria-hidden='true'>{name}</span>
            </label>
          ))}
        </fieldset>
      )}
      {catalogue.hasRarity && (
        <fieldset className='facet-group'>
          <legend>{t('picker.facets.rarity')}</legend>
          {RARITIES.map((r) => (
            <label key={r} className='facet-chip'>
              <input type='checkbox' checked={facets.rarity.has(r)} onChange={(e) => { onChange({ ...facets, rarity: toggled(facets.rarity, r, e.target.checked) }) }} />
              <span>{t(`picker.facets.rarities.${r}`)}</span>
            </label>
          ))}
        </fieldset>
      )}
      <fieldset className='facet-group'>
        <legend>{t('picker.facets.forms')}</legend>
        {formOptions.map((f) => (
          <label key={f} className='facet-chip'>
            <input type='checkbox' checked={facets.forms.has(f)} onChange={(e) => { onChange({ ...facets, forms: toggled(facets.forms, f, e.target.checked) }) }} />
            <span>{f === 'normal' ? t('picker.facets.normalForms') : f === 'alt' ? t('picker.facets.altForms') : f}</span>
          </label>
        ))}
      </fieldset>
      <fieldset className='facet-group'>
        <legend>{t('picker.facets.other')}</legend>
        <label className='facet-chip'>
          <input type='checkbox' checked={facets.selectedOnly} onChange={(e) => { onChange({ ...facets, selectedOnly: e.target.checked }) }} />
          <span>{t('picker.facets.selectedOnly')}</span>
        </label>
        {seenNowLabel !== null && (
          <label className='facet-chip'>
            <input type='checkbox' checked={facets.seenNow} onChange={(e) => { onChange({ ...facets, seenNow: e.target.checked }) }} />
            <span>{seenNowLabel}</span>
          </label>
        )}
      </fieldset>
    </div>
  )
}
