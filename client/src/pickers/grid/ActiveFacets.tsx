import { useTranslation } from 'react-i18next'
import type { Catalogue } from './catalogue'
import { activeFacetCount, type Facets } from './facets'

interface Props {
  catalogue: Catalogue
  facets: Facets
  /** The "seen now" facet's name for this picker; null when the site cannot say what is seen now. */
  seenNowLabel: string | null
  onChange: (facets: Facets) => void
}

interface Active { key: string, name: string, without: () => Facets }

function without<T> (set: Set<T>, value: T): Set<T> {
  const next = new Set(set)
  next.delete(value)
  return next
}

/**
 * The filters in force as chips above the grid, each with its own remove button: what narrows the grid
 * stays in sight while the filter panel is closed, and one filter goes without reopening it.
 */
export function ActiveFacets ({ catalogue, facets, seenNowLabel, onChange }: Props) {
  const { t } = useTranslation()
  if (activeFacetCount(facets) === 0) return null
  const active: Active[] = [
    ...[...facets.generations].map((g) => ({ key: `g${g}`, name: t('picker.facets.generation', { generation: g }), without: () => ({ ...facets, generations: without(facets.generations, g) }) })),
    ...[...facets.types].map((id) => ({ key: `t${id}`, name: catalogue.typeNames.get(id) ?? String(id), without: () => ({ ...facets, types: without(facets.types, id) }) })),
    ...[...facets.rarity].map((r) => ({ key: `r${r}`, name: t(`picker.facets.rarities.${r}`), without: () => ({ ...facets, rarity: without(facets.rarity, r) }) })),
    ...[...facets.forms].map((f) => ({ key: `f${f}`, name: f === 'normal' ? t('picker.facets.normalForms') : f === 'alt' ? t('picker.facets.altForms') : f, without: () => ({ ...facets, forms: without(facets.forms, f) }) })),
    ...(facets.selectedOnly ? [{ key: 'selected', name: t('picker.facets.selectedOnly'), without: () => ({ ...facets, selectedOnly: false }) }] : []),
    ...(facets.seenNow && seenNowLabel !== null ? [{ key: 'seen', name: seenNowLabel, without: () => ({ ...facets, seenNow: false }) }] : [])
  ]
  return (
    <ul className='chip-list active-facets' aria-label={t('placesAndSearch.activeFilters')}>
      {active.map((facet) => (
        <li key={facet.key} className='chip'>
          <span aria-hidden='true'>{facet.name}</span>
          <button type='button' className='chip-remove' aria-label={t('placesAndSearch.removeFilter', { name: facet.name })} onClick={() => { onChange(facet.without()) }}>✕</button>
        </li>
      ))}
    </ul>
  )
}
