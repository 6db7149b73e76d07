import { useTranslation } from 'react-i18next'
import L from 'leaflet'
import { areas as areasApi } from '../../api'
import { MapView, fitTo, toLatLngs } from '../../maps/MapView'
import { useLoad } from '../../shell/useLoad'
import './dashboard-map.css'

/** How far around the pin the map shows when the profile has no areas to frame it. */
const PIN_ONLY_RADIUS_M = 1000

/**
 * The dashboard's picture of where alerts come from: the active profile's pin and the outlines of its
 * areas. Only a picture: the facts beside it name the same pin and areas in words. Its own chunk, so
 * the map library loads after the dashboard's figures.
 */
export default function CoverageMap ({ location, areas }: { location: { latitude: number, longitude: number } | null, areas: string[] }) {
  const { t } = useTranslation()
  const [fences] = useLoad(async (signal) => areas.length === 0 ? [] : (await areasApi.fences(signal)).geofence, [areas.join('|')])
  if (fences.status !== 'ready') return null
  const chosen = new Set(areas.map((a) => a.toLowerCase()))
  const shown = fences.data.filter((f) => chosen.has(f.name.toLowerCase()))

  const draw = (map: L.Map): () => void => {
    const layers: L.Polygon[] = shown.flatMap((fence) => {
      const rings = fence.multipath ?? (fence.path !== undefined ? [fence.path] : [])
      if (rings.length === 0) return []
      const polygon = L.polygon(rings.map(toLatLngs), { color: '#1d4ed8', weight: 2, fillOpacity: 0.2, className: 'coverage-area' }).bindTooltip(fence.name, { sticky: true })
      polygon.addTo(map)
      polygon.getElement()?.setAttribute('data-area', fence.name.toLowerCase())
      return [polygon]
    })
    const pin = location === null ? null : L.circleMarker([location.latitude, location.longitude], { radius: 8, color: '#b91c1c', weight: 3, fillOpacity: 0.8, className: 'coverage-pin' }).addTo(map)
    if (layers.length > 0) fitTo(map, layers)
    else if (location !== null) map.fitBounds(L.latLng(location.latitude, location.longitude).toBounds(PIN_ONLY_RADIUS_M * 2))
    if (pin !== null && layers.length > 0) map.fitBounds(map.getBounds().extend(pin.getLatLng()), { padding: [16, 16], maxZoom: 16 })
    return () => { for (const layer of layers) layer.remove(); pin?.remove() }
  }

  if (location === null && shown.length === 0) return null
  return (
    <div className='coverage-map'>
      <MapView label={t('dashboard.coverageMap')} onReady={draw} version={`${location?.latitude ?? ''},${location?.longitude ?? ''}|${shown.map((f) => f.name).join('|')}`} />
    </div>
  )
}
