import { useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import L from 'leaflet'
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
    <div className='page'>
      <h1>{t('maps.locationTitle')}</h1>
      <p className='muted'>{t('maps.locationIntro')}</p>
      <Status state={state} retry={retry}>{(data) => <Pin {...data} />}</Status>
    </div>
  )
}

function Pin ({ location, distances }: { location: LocationAnswer, distances: number[] }) {
  const { t } = useTranslation()
  const format = useFormat()
  const [pin, setPin] = useState<Location | null>(location.latitude === 0 && location.longitude === 0 ? null : { latitude: location.latitude, longitude: location.longitude })
  const [saved, setSaved] = useState(false)
  const { busy, error, setError, run } = useSubmit()
  const centred = useRef(false)

  const save = (next: Location): void => {
    setSaved(false)
    void run(async () => {
      setPin(await userLocation.save(next))
      setSaved(true)
    })
  }

  const draw = (map: L.Map): () => void => {
    const layers: L.Layer[] = []
    if (pin !== null) {
      const centre: L.LatLngExpression = [pin.latitude, pin.longitude]
      layers.push(L.circleMarker(centre, { radius: 8, color: '#1d4ed8', fillOpacity: 1 }).addTo(map))
      for (const metres of distances) layers.push(L.circle(centre, { radius: metres, color: '#1d4ed8', weight: 1, fillOpacity: 0.04 }).addTo(map))
      if (!centred.current) {
        map.setView(centre, 14)
        centred.current = true
      }
    }
    const tap = (event: L.LeafletMouseEvent): void => {
      save({ latitude: Math.round(event.latlng.lat * 1e6) / 1e6, longitude: Math.round(event.latlng.lng * 1e6) / 1e6 })
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

  return (
    <>
      {location.geocoder && <AddressSearch onPick={moveTo} disabled={busy} />}
      <MapView label={t('maps.locationMap')} onReady={draw} version={pin === null ? '' : `${pin.latitude},${pin.longitude}`} />
      <div className='row'>
        <DevicePositionButton onPosition={moveTo} onFailed={() => { setError(t(location.geocoder ? 'maps.positionFailedSearch' : 'maps.positionFailed')) }} disabled={busy} />
      </div>
      <dl className='facts'>
        <dt>{t('dashboard.location')}</dt>
        <dd>{pin === null ? t('dashboard.noLocation') : `${format.number(pin.latitude, { maximumFractionDigits: 6 })}, ${format.number(pin.longitude, { maximumFractionDigits: 6 })}`}</dd>
        {location.geocoder && pin !== null && <PinAddress pin={pin} />}
        <dt>{t('maps.distances')}</dt>
        <dd>{distances.length === 0 ? t('maps.noDistances') : distances.map((m) => format.number(m / 1000, { style: 'unit', unit: 'kilometer', maximumFractionDigits: 2 })).join(', ')}</dd>
      </dl>
      <div role='status' aria-live='polite'>{saved && !busy && <p className='notice'>{t('maps.locationSaved')}</p>}</div>
      <div role='alert'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>
    </>
  )
}
