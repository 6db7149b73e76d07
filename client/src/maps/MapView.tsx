import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import L from 'leaflet'
import 'leaflet/dist/leaflet.css'
import './maps.css'
import { masterdata } from '../api'
import { useLoad } from '../shell/useLoad'

/** Tiles that fail before any loads: the tile server is unreachable from this browser. */
const FAILED_TILES_BEFORE_GIVING_UP = 4

type MapSettings = Awaited<ReturnType<typeof masterdata.mapSettings>>

let settings: Promise<MapSettings> | undefined
/** The operator's tile server, read once per page load. */
function mapSettings (signal: AbortSignal): Promise<MapSettings> {
  settings ??= masterdata.mapSettings(signal).catch((err: unknown) => { settings = undefined; throw err })
  return settings
}

export interface MapViewProps {
  /** Accessible name of the map region. */
  label: string
  /** Called once with the map when it is ready; the returned function runs when it goes away. */
  onReady: (map: L.Map) => (() => void) | undefined
  /** Redraw trigger: onReady runs again (after the previous cleanup) whenever this changes. */
  version?: unknown
  /** Told once when the tiles cannot be loaded, so the page can lean on its lists. */
  onTilesUnavailable?: () => void
  /** A button that brings the page's shapes back into view, named for what it shows. */
  fit?: { label: string, to: (map: L.Map) => void } | undefined
}

/**
 * A Leaflet map with the operator's tiles and attribution. It never carries information on its own:
 * every page that shows one also lists what it shows, so a map without tiles (or without sight) loses
 * nothing but the picture.
 */
export function MapView ({ label, onReady, version, onTilesUnavailable, fit }: MapViewProps) {
  const { t } = useTranslation()
  const container = useRef<HTMLDivElement>(null)
  const [map, setMap] = useState<L.Map | null>(null)
  const [tilesDown, setTilesDown] = useState(false)
  const [expanded, setExpanded] = useState(false)
  const [loaded] = useLoad(mapSettings)
  const settings = loaded.status === 'ready' ? loaded.data : null
  // The map is made once; the parent's callbacks are read when they fire, whichever render made them.
  const callbacks = useRef({ onReady, onTilesUnavailable })
  useEffect(() => { callbacks.current = { onReady, onTilesUnavailable } })

  useEffect(() => {
    if (settings === null || container.current === null) return
    const created = L.map(container.current, { center: [51.505, -0.09], zoom: 13, zoomControl: true })
    created.attributionControl.setPrefix(false)
    let failed = 0
    let anyLoaded = false
    L.tileLayer(settings.tileUrl, { attribution: settings.attribution, maxZoom: 19 })
      .on('tileload', () => { anyLoaded = true })
      .on('tileerror', () => {
        failed += 1
        if (!anyLoaded && failed === FAILED_TILES_BEFORE_GIVING_UP) {
          setTilesDown(true)
          callbacks.current.onTilesUnavailable?.()
        }
      })
      .addTo(created)
    // The frame changes size after the map is made (a phone turned, a notice or list appearing above it,
    // the window resized): Leaflet measures its container only when told, so tell it.
    const resized = new ResizeObserver(() => { created.invalidateSize() })
    resized.observe(container.current)
    setMap(created)
    return () => { resized.disconnect(); created.remove(); setMap(null) }
  }, [settings])

  useEffect(() => {
    if (map === null) return
    return callbacks.current.onReady(map)
  }, [map, version])

  // Escape leaves the full-screen map, as it leaves a dialog.
  useEffect(() => {
    if (!expanded) return
    const leave = (event: KeyboardEvent): void => { if (event.key === 'Escape') setExpanded(false) }
    document.addEventListener('keydown', leave)
    return () => { document.removeEventListener('keydown', leave) }
  }, [expanded])

  return (
    <div className={expanded ? 'map-frame map-frame-full' : 'map-frame'}>
      <div ref={container} className='map' role='region' aria-label={label} />
      {map !== null && (
        <div className='map-tools'>
          {fit !== undefined && <button type='button' className='button' onClick={() => { fit.to(map) }}>{fit.label}</button>}
          <button type='button' className='button' aria-pressed={expanded} onClick={() => { setExpanded(!expanded) }}>{t('placesAndSearch.fullscreen')}</button>
        </div>
      )}
      {loaded.status === 'failed' && <p className='notice notice-error' role='alert'>{loaded.message}</p>}
      {tilesDown && <p className='notice notice-warning' role='status'>{t('maps.tilesUnavailable')}</p>}
    </div>
  )
}

/** Leaflet's [lat, lon] pairs from the API's [lat, lon] arrays. */
export const toLatLngs = (path: Array<[number, number]>): L.LatLngExpression[] => path.map(([lat, lon]) => [lat, lon])

/** Fits the view to some layers, if any have bounds. */
export function fitTo (map: L.Map, layers: L.Polygon[]): void {
  const bounds = L.latLngBounds([])
  for (const layer of layers) bounds.extend(layer.getBounds())
  if (bounds.isValid()) map.fitBounds(bounds, { padding: [16, 16], maxZoom: 16 })
}
