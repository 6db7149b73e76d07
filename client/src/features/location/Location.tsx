import { useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import L from 'leaflet'
import { Page } from '../../components/Page'
import { alarms, userLocation } from '../../api'
import { useSubmit } from '../../forms/useSubmit'
import { useFormat } from '../../i18n/format'
import { MapView } from '../../maps/MapView'
import { useSession } from '../../shell/session-context'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'
import { AddressSearch, PinAddress } from './AddressSearch'
import { DevicePositionButton } from '../../forms/DevicePositionButton'

type Location = Awaited<ReturnType<typeof userLocation.save>>
/** `geocoder`: the site offers address search (the engine names a geocoder and it is not switched off). */
type LocationAnswer = Awaited<ReturnType<typeof userLocation.get>>

/**
 * The active profile's location: tap the map, search an address (where the site has a geocoder) or use
 * the device's position; the distances the user's
 * alarms use are drawn around the pin, so "within 2 km" can be seen before it is relied on.
 */
export default function LocationPage () {
  const { t } = useTranslation()
  const { user, alarmTypes } = useSession()
  usePageTitle(t('nav.location'))
  const [state, retry] = useLoad(async (signal) => {
    const withDistance = alarmTypes.filter((type) => type.fields.some((f) => f.name === 'distance'))
    const [location, lists] = await Promise.all([
      userLocation.get(signal),
      Promise.all(withDistance.map((type) => alarms.list(type, signal)))
    ])
    const distances = [...new Set(lists.flat().map((a) => typeof a.distance === 'number' ? a.distance : 0).filter((d) => d > 0))].sort((a, b) => a - b)
    return { location, distances }
  }, [user.profileNo])
  return (
    <Page title={t('maps.locationTitle')} intro={t('maps.locationIntro')}>
      <Status state={state} retry={retry}>{(data) => <Pin {...data} />}</Status>
    </Page>
  )
}

/** Metres in one degree of latitude, near enough for moving a pin by a step. */
const METRES_PER_DEGREE = 111_320
/** How far one press of a move button takes the pin. */
const NUDGE_METRES = 100

const rounded = (value: number): number => Math.round(value * 1e6) / 1e6

/** The point `metres` away to the north (dy) and east (dx). */
function nudged (from: Location, dx: number, dy: number): Location {
  const latitude = from.latitude + dy / METRES_PER_DEGREE
  const longitude = from.longitude + dx / (METRES_PER_DEGREE * Math.cos(from.latitude * Math.PI / 180))
  return { latitude: rounded(Math.max(-90, Math.min(90, latitude))), longitude: rounded(((longitude + 540) % 360) - 180) }
}

/** The pin drawn as a shape, so it needs no image files and follows the page's colours. */
const pinIcon = L.divIcon({ className: 'location-pin', iconSize: [28, 28], iconAnchor: [14, 28] })

function Pin ({ location, distances }: { location: LocationAnswer, distances: number[] }) {
  const { t } = useTranslation()
  const format = useFormat()
  const [pin, setPin] = useState<Location | null>(location.latitude === 0 && location.longitude === 0 ? null : { latitude: location.latitude, longitude: location.longitude })
  // Where the pin was before its last move, for Undo; only a saved move can be undone.
  const [previous, setPrevious] = useState<Location | null>(null)
  const [notice, setNotice] = useState<'saved' | 'undone' | null>(null)
  // A refused move leaves a dragged marker where the finger let go: redrawing puts it back on the saved point.
  const [redraws, setRedraws] = useState(0)
  const { busy, error, setError, run } = useSubmit()
  const centred = useRef(false)

  const save = (next: Location, undoing = false): void => {
    setNotice(null)
    const from = pin
    void run(async () => {
      setPin(await userLocation.save(next))
      setPrevious(undoing ? null : from)
      setNotice(undoing ? 'undone' : 'saved')
    }).then((ok) => { if (!ok) setRedraws((n) => n + 1) })
  }

  const draw = (map: L.Map): () => void => {
    const layers: L.Layer[] = []
    if (pin !== null) {
      const centre: L.LatLngExpression = [pin.latitude, pin.longitude]
      for (const metres of distances) layers.push(L.circle(centre, { radius: metres, color: '#1d4ed8', weight: 1, fillOpacity: 0.04, interactive: false }).addTo(map))
      // The move buttons below are the keyboard's way to move it, so the marker itself takes no focus.
      const marker = L.marker(centre, { icon: pinIcon, draggable: true, keyboard: false, title: t('placesAndSearch.pin') }).addTo(map)
      marker.on('dragend', () => {
        const to = marker.getLatLng()
        save({ latitude: rounded(to.lat), longitude: rounded(to.lng) })
      })
      layers.push(marker)
      if (!centred.current) {
        map.setView(centre, 14)
        centred.current = true
      }
    }
    const tap = (event: L.LeafletMouseEvent): void => {
      save({ latitude: rounded(event.latlng.lat), longitude: rounded(event.latlng.lng) })
    }
    map.on('click', tap)
    return () => {
      map.off('click', tap)
      for (const layer of layers) layer.remove()
    }
  }

  /** A searched address may be far off screen: the map follows the pin there once it is saved. */
  const moveTo = (next: Location): void => {
    centred.current = false
    save(next)
  }

  const undo = (to: Location): void => {
    centred.current = false
    save(to, true)
  }

  const steps: Array<{ key: string, dx: number, dy: number }> = [
    { key: 'placesAndSearch.nudgeNorth', dx: 0, dy: NUDGE_METRES },
    { key: 'placesAndSearch.nudgeWest', dx: -NUDGE_METRES, dy: 0 },
    { key: 'placesAndSearch.nudgeEast', dx: NUDGE_METRES, dy: 0 },
    { key: 'placesAndSearch.nudgeSouth', dx: 0, dy: -NUDGE_METRES }
  ]

  return (
    <>
      {location.geocoder && <AddressSearch onPick={moveTo} disabled={busy} />}
      <p className='muted'>{t('placesAndSearch.dragHint')}</p>
      <MapView label={t('maps.locationMap')} onReady={draw} version={`${pin === null ? '' : `${pin.latitude},${pin.longitude}`}#${redraws}`} fit={pin === null ? undefined : { label: t('placesAndSearch.showPin'), to: (map) => { map.setView([pin.latitude, pin.longitude], Math.max(map.getZoom(), 14)) } }} />
      <div className='row'>
        <DevicePositionButton onPosition={moveTo} onFailed={() => { setError(t(location.geocoder ? 'maps.positionFailedSearch' : 'maps.positionFailed')) }} disabled={busy} />
        <button type='button' className='button' disabled={busy || previous === null} onClick={() => { if (previous !== null) undo(previous) }}>{t('placesAndSearch.undoMove')}</button>
      </div>
      {pin !== null && (
        <fieldset className='field pin-nudge'>
          <legend>{t('placesAndSearch.nudge')}</legend>
          <div className='row'>
            {steps.map((step) => (
              <button key={step.key} type='button' className='button' disabled={busy} onClick={() => { save(nudged(pin, step.dx, step.dy)) }}>{t(step.key)}</button>
            ))}
          </div>
        </fieldset>
      )}
      <dl className='facts'>
        <dt>{t('dashboard.location')}</dt>
        <dd>{pin === null ? t('dashboard.noLocation') : `${format.number(pin.latitude, { maximumFractionDigits: 6 })}, ${format.number(pin.longitude, { maximumFractionDigits: 6 })}`}</dd>
        {location.geocoder && pin !== null && <PinAddress pin={pin} />}
        <dt>{t('maps.distances')}</dt>
        <dd>{distances.length === 0 ? t('maps.noDistances') : distances.map((m) => format.number(m / 1000, { style: 'unit', unit: 'kilometer', maximumFractionDigits: 2 })).join(', ')}</dd>
      </dl>
      <div role='status' aria-live='polite'>{notice !== null && !busy && <p className='notice'>{t(notice === 'saved' ? 'maps.locationSaved' : 'placesAndSearch.moveUndone')}</p>}</div>
      <div role='alert'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>
    </>
  )
}
