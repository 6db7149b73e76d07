import { useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import L from 'leaflet'
import { admin, areas as areasApi } from '../../api'
import { useFormat } from '../../i18n/format'
import { MapView, fitTo, toLatLngs } from '../../maps/MapView'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'

interface Area { name: string, members: number, known: boolean }

/** The lightest and the darkest fill: an area nobody selected still shows its outline. */
const LIGHTEST = 0.05
const DARKEST = 0.75

/**
 * The engine's fences shaded by how many members have each selected. Choosing one (a click on the map, or
 * the list beside it for keyboards and screen readers) reads its figures: members and the pokémon they
 * track most there. Its own chunk: the map library loads only when the areas panel is drawn.
 */
export default function AreaMap ({ areas }: { areas: Area[] }) {
  const { t } = useTranslation()
  const selectId = useId()
  const [fences] = useLoad(async (signal) => (await areasApi.fences(signal)).geofence, [])
  const [chosen, setChosen] = useState<string | null>(null)
  const members = new Map(areas.map((a) => [a.name.toLowerCase(), a.members]))
  const most = Math.max(1, ...areas.map((a) => a.members))
  const known = areas.filter((a) => a.known)

  const draw = (map: L.Map): () => void => {
    if (fences.status !== 'ready') return () => undefined
    const layers: L.Polygon[] = fences.data.flatMap((fence) => {
      const rings = fence.multipath ?? (fence.path !== undefined ? [fence.path] : [])
      if (rings.length === 0) return []
      const count = members.get(fence.name.toLowerCase()) ?? 0
      const polygon = L.polygon(rings.map(toLatLngs), { color: '#1d4ed8', weight: 1, fillOpacity: LIGHTEST + (DARKEST - LIGHTEST) * (count / most), className: 'insight-area' })
        .bindTooltip(`${fence.name}: ${count}`, { sticky: true })
        .on('click', () => { setChosen(fence.name) })
      polygon.addTo(map)
      const element = polygon.getElement()
      element?.setAttribute('data-area', fence.name)
      element?.setAttribute('data-members', String(count))
      return [polygon]
    })
    if (layers.length > 0) fitTo(map, layers)
    return () => { for (const layer of layers) layer.remove() }
  }

  return (
    <div className='stack insight-area-map'>
      <p className='help'>{t('insights.areas.mapHelp', { most })}</p>
      {fences.status === 'ready' && fences.data.length > 0 && (
        <MapView label={t('insights.areas.map')} onReady={draw} version={`${fences.data.length}|${most}`} />
      )}
      <div className='field'>
        <label className='label' htmlFor={selectId}>{t('insights.areas.choose')}</label>
        <select id={selectId} className='select' value={chosen ?? ''} onChange={(e) => { setChosen(e.target.value === '' ? null : e.target.value) }}>
          <option value=''>{t('insights.areas.chooseNone')}</option>
          {known.map((a) => <option key={a.name} value={a.name}>{a.name}</option>)}
        </select>
      </div>
      {chosen !== null && <AreaFigures name={chosen} />}
    </div>
  )
}

function AreaFigures ({ name }: { name: string }) {
  const { t } = useTranslation()
  const format = useFormat()
  const [state, retry] = useLoad((signal) => admin.areaInsight(name, signal), [name])
  return (
    <div aria-live='polite' className='insight-area-figures'>
      <Status state={state} retry={retry}>
        {(area) => (
          <p>
            {t('insights.areas.detail', { name: area.name, count: format.number(area.members) })}{' '}
            {area.topTracked.length === 0
              ? t('insights.areas.nothingTracked')
              : t('insights.areas.topTracked', { list: area.topTracked.map((e) => t('insights.areas.tracked', { name: e.name, count: format.number(e.members) })).join(', ') })}
          </p>
        )}
      </Status>
    </div>
  )
}
