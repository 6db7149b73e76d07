import { lazy, Suspense, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { alarms, areas as areasApi, userLocation } from '../../api'
import { pagePath } from '../../alarm-types'
import { useSubmit } from '../../forms/useSubmit'
import { useFormat } from '../../i18n/format'
import { useSession } from '../../shell/session-context'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'
import { DevicePositionButton } from '../../forms/DevicePositionButton'
import '../../forms/forms.css'
import { ProfileTotal } from '../estimates/ProfileTotal'
import { PinWeather } from '../weather/PinWeather'

const CoverageMap = lazy(() => import('../dashboard-map/CoverageMap'))

type Location = Awaited<ReturnType<typeof userLocation.save>>

/**
 * The dashboard: alerts on or paused, the active profile with its location and areas, the alarm count of
 * each offered type, and what to do first when alerts could not reach anyone yet (no location, no areas).
 */
export default function Home () {
  const { t } = useTranslation()
  const format = useFormat()
  const { user, alarmTypes } = useSession()
  const [counts, retry] = useLoad((signal) => alarms.dashboard(signal), [user.profileNo])
  const [where, retryWhere, replaceWhere] = useLoad(async (signal) => {
    const [location, areas] = await Promise.all([
      userLocation.get(signal),
      areasApi.chosen(signal)
    ])
    return { location, areas }
  }, [user.profileNo])
  const [editing, setEditing] = useState<'location' | 'areas' | null>(null)
  // The map is asked for, not shown by default: the dashboard stays light on a phone and loads no map code.
  const [showMap, setShowMap] = useState(false)
  usePageTitle(t('nav.home'))
  const profile = user.profileName ?? t('profile.number', { number: user.profileNo })

  return (
    <div className='page'>
      <h1>{t('home.welcome', { name: user.username })}</h1>
      <p className={user.enabled ? 'muted' : 'notice notice-warning'}>
        {user.enabled ? t('home.alertsOn') : t('home.alertsPaused')}
      </p>
      <section className='card' aria-labelledby='home-where'>
        <h2 id='home-where'>{t('dashboard.whereTitle', { profile })}</h2>
        <Status state={where} retry={retryWhere}>
          {({ location, areas }) => {
            const noLocation = location.latitude === 0 && location.longitude === 0
            return (
              <>
                {(noLocation || areas.length === 0) && (
                  <div className='notice notice-warning'>
                    <p>{t('dashboard.firstSteps')}</p>
                    <ol>
                      {noLocation && <li>{t('dashboard.stepLocation')}</li>}
                      {areas.length === 0 && <li>{t('dashboard.stepAreas')}</li>}
                      <li>{t('dashboard.stepAlarm')}</li>
                    </ol>
                  </div>
                )}
                <dl className='facts'>
                  <dt>{t('dashboard.location')}</dt>
                  <dd>{noLocation ? t('dashboard.noLocation') : `${format.number(location.latitude, { maximumFractionDigits: 5 })}, ${format.number(location.longitude, { maximumFractionDigits: 5 })}`}</dd>
                  <dt>{t('dashboard.areas')}</dt>
                  <dd>{areas.length === 0 ? t('dashboard.noAreas') : areas.join(', ')}</dd>
                </dl>
                {!noLocation && <PinWeather version={`${user.profileNo}:${location.latitude},${location.longitude}`} />}
                <div className='row'>
                  <button type='button' className='button' aria-expanded={editing === 'location'} onClick={() => { setEditing(editing === 'location' ? null : 'location') }}>{t('dashboard.setLocation')}</button>
                  <button type='button' className='button' aria-expanded={editing === 'areas'} onClick={() => { setEditing(editing === 'areas' ? null : 'areas') }}>{t('dashboard.chooseAreas')}</button>
                  <Link className='button' to='/profiles'>{t('dashboard.manageProfiles')}</Link>
                  {(!noLocation || areas.length > 0) && (
                    <button type='button' className='button' aria-expanded={showMap} onClick={() => { setShowMap(!showMap) }}>{showMap ? t('dashboard.hideMap') : t('dashboard.showMap')}</button>
                  )}
                </div>
                {showMap && <Suspense fallback={<p className='muted'>{t('status.loading')}</p>}><CoverageMap location={noLocation ? null : location} areas={areas} /></Suspense>}
                {editing === 'location' && <LocationForm initial={location} onSaved={(next) => { replaceWhere({ location: { ...location, ...next }, areas }); setEditing(null) }} />}
                {editing === 'areas' && <AreasForm initial={areas} onSaved={(next) => { replaceWhere({ location, areas: next }); setEditing(null) }} />}
              </>
            )
          }}
        </Status>
      </section>
      <section className='card' aria-labelledby='home-alarms'>
        <h2 id='home-alarms'>{t('home.yourAlarms', { profile })}</h2>
        <ProfileTotal types={alarmTypes.map((a) => a.type)} />
        <Status state={counts} retry={retry}>
          {(data) => (
            <ul className='tiles'>
              {alarmTypes.map((type) => (
                <li key={type.type}>
                  <Link className='tile' to={`/alarms/${pagePath(type)}`}>
                    <span className='tile-count'>{format.number(data[type.dashboardKey] ?? 0)}</span>
                    <span className='tile-label'>{t(`alarms.types.${type.type}`)}</span>
                  </Link>
                </li>
              ))}
            </ul>
          )}
        </Status>
      </section>
    </div>
  )
}

/** The active profile's pin, typed or taken from the device's position. */
function LocationForm ({ initial, onSaved }: { initial: Location, onSaved: (l: Location) => void }) {
  const { t } = useTranslation()
  const [lat, setLat] = useState(initial.latitude === 0 && initial.longitude === 0 ? '' : String(initial.latitude))
  const [lon, setLon] = useState(initial.latitude === 0 && initial.longitude === 0 ? '' : String(initial.longitude))
  const [invalid, setInvalid] = useState(false)
  const { busy, error, setError, run } = useSubmit()
  return (
    <form
      className='stack' noValidate onSubmit={(e) => {
        e.preventDefault()
        const latitude = Number(lat)
        const longitude = Number(lon)
        const bad = lat.trim() === '' || lon.trim() === '' || !(Math.abs(latitude) <= 90) || !(Math.abs(longitude) <= 180)
        setInvalid(bad)
        if (bad) return
        void run(async () => { onSaved(await userLocation.save({ latitude, longitude })) })
      }}
    >
      <div className='field'>
        <label htmlFor='home-lat'>{t('dashboard.latitude')}</label>
        <input id='home-lat' className='input' inputMode='decimal' value={lat} aria-invalid={invalid} aria-describedby='home-coords-help' onChange={(e) => { setLat(e.target.value) }} />
      </div>
      <div className='field'>
        <label htmlFor='home-lon'>{t('dashboard.longitude')}</label>
        <input id='home-lon' className='input' inputMode='decimal' value={lon} aria-invalid={invalid} aria-describedby='home-coords-help' onChange={(e) => { setLon(e.target.value) }} />
      </div>
      <p id='home-coords-help' className={invalid ? 'field-error' : 'help'}>{t('dashboard.coordsHelp')}</p>
      <div className='row'>
        <DevicePositionButton
          onPosition={(p) => { setLat(String(p.latitude)); setLon(String(p.longitude)) }}
          onFailed={() => { setError(t('dashboard.positionFailed')) }}
        />
        <button type='submit' className='button button-primary' disabled={busy}>{busy ? t('status.saving') : t('preferences.save')}</button>
      </div>
      <div role='alert'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>
    </form>
  )
}

/** The active profile's areas, chosen from those the site offers. */
function AreasForm ({ initial, onSaved }: { initial: string[], onSaved: (areas: string[]) => void }) {
  const { t } = useTranslation()
  const [available, retry] = useLoad((signal) => areasApi.available(signal))
  const [chosen, setChosen] = useState<string[]>(initial)
  const { busy, error, run } = useSubmit()
  return (
    <form
      className='stack' onSubmit={(e) => {
        e.preventDefault()
        void run(async () => { onSaved(await areasApi.choose(chosen)) })
      }}
    >
      <Status state={available} retry={retry}>
        {(list) => list.length === 0
          ? <p className='muted'>{t('fields.scope.noAreas')}</p>
          : (
            <fieldset className='field'>
              <legend>{t('dashboard.areas')}</legend>
              <div className='check-list check-columns'>
                {list.filter((a) => a.userSelectable).map((a) => {
                  const name = a.name.toLowerCase()
                  return (
                    <label key={name} className='check'>
                      <input type='checkbox' checked={chosen.includes(name)} onChange={(e) => { setChosen((c) => e.target.checked ? [...c, name] : c.filter((n) => n !== name)) }} />
                      <span>{a.name}</span>
                    </label>
                  )
                })}
              </div>
            </fieldset>
            )}
      </Status>
      <div><button type='submit' className='button button-primary' disabled={busy}>{busy ? t('status.saving') : t('preferences.save')}</button></div>
      <div role='alert'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>
    </form>
  )
}
