import { lazy, Suspense, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { Card } from '../../components/Card'
import { Page } from '../../components/Page'
import { alarms, ApiError, areas as areasApi, quickPicks, userLocation } from '../../api'
import { pagePath, type AlarmTypeDescriptor } from '../../alarm-types'
import { areaLabel } from '../../area-names'
import { useSubmit } from '../../forms/useSubmit'
import { useFormat } from '../../i18n/format'
import { AlertsToggle } from '../../shell/AlertsToggle'
import { useSession } from '../../shell/session-context'
import { Status } from '../../shell/Status'
import { useLoad, type Loaded } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'
import { DevicePositionButton } from '../../forms/DevicePositionButton'
import '../../forms/forms.css'
import { ProfileTotal } from '../../estimates/ProfileTotal'
import { GameIcon } from '../../icons/GameIcon'
import type { IconRequest } from '../../icons/uicons'
import { PinWeather } from './PinWeather'
import './dashboard.css'

const CoverageMap = lazy(() => import('./CoverageMap'))

type Location = Awaited<ReturnType<typeof userLocation.save>>
type Place = Awaited<ReturnType<typeof userLocation.place>>

/** The engine's "no location": 0,0. */
const isUnset = (pin: Location): boolean => pin.latitude === 0 && pin.longitude === 0
type Editing = 'location' | 'areas' | null

/** The picture of each alarm type on its tile: the game's own icon of the thing it alerts about. */
const TYPE_ICONS: Record<string, IconRequest> = {
  pokemon: { kind: 'pokemon', id: 25 },
  raid: { kind: 'egg', level: 5, hatched: true },
  egg: { kind: 'egg', level: 1 },
  quest: { kind: 'reward', reward: 'stardust', id: 0, amount: 1000 },
  invasion: { kind: 'invasion', id: 44 },
  lure: { kind: 'pokestop', lure: 501 },
  nest: { kind: 'pokemon', id: 1 },
  gym: { kind: 'gym', team: 1 },
  fort: { kind: 'pokestop', lure: 0 },
  maxbattle: { kind: 'pokemon', id: 6, bread: 1 }
}

/** The type a first alarm starts in: pokemon where the site offers it, else the first offered type. */
const firstType = (types: AlarmTypeDescriptor[]): AlarmTypeDescriptor | undefined => types.find((t) => t.type === 'pokemon') ?? types[0]

/**
 * The dashboard: where the active profile's alerts go (the pin in words, never coordinates), what to do
 * next (set a location, choose areas, resume paused alerts), a first alarm for a member with none (the
 * editor or one of the site's quick picks, one tap each), and each offered type with its count.
 */
export default function Home () {
  const { t, i18n } = useTranslation()
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
  const total = counts.status === 'ready' ? alarmTypes.reduce((sum, type) => sum + (counts.data[type.dashboardKey] ?? 0), 0) : null
  const pin = where.status === 'ready' && !isUnset(where.data.location) ? where.data.location : null
  // The pin in words and the alarms measured from it: asked once the pin is known, shown by two parts below.
  const [place] = useLoad(async (signal) => pin === null ? null : await userLocation.place(pin.latitude, pin.longitude, i18n.language, signal),
    [pin?.latitude, pin?.longitude, i18n.language, total])
  const [editing, setEditing] = useState<Editing>(null)
  // The map is asked for, not shown by default: the dashboard stays light on a phone and loads no map code.
  const [showMap, setShowMap] = useState(false)
  // Announced from the page: the first-alarm card goes away once a pick has added alarms.
  const [message, setMessage] = useState<string | null>(null)
  usePageTitle(t('nav.home'))
  const profile = user.profileName ?? t('profile.number', { number: user.profileNo })
  const toggle = (next: Exclude<Editing, null>): void => { setEditing(editing === next ? null : next) }

  return (
    <Page title={t('home.welcome', { name: user.username })}>
      <p className={user.enabled ? 'muted' : 'notice notice-warning'}>
        {user.enabled ? t('home.alertsOn') : t('home.alertsPaused')}
      </p>
      <div role='status' aria-live='polite'>{message !== null && <p className='notice'>{message}</p>}</div>
      {total === 0 && <FirstAlarm added={(outcome) => { setMessage(outcome); retry(); retryWhere() }} />}
      <Card title={t('dashboard.whereTitle', { profile })} headingId='home-where'>
        <Status state={where} retry={retryWhere}>
          {({ location, areas }) => {
            const noLocation = isUnset(location)
            return (
              <>
                <dl className='facts'>
                  <dt>{t('dashboard.profile')}</dt>
                  <dd>{profile}</dd>
                  <dt>{t('dashboard.location')}</dt>
                  <dd>{noLocation ? t('dashboard.noLocation') : <PlaceName place={place} />}</dd>
                  <dt>{t('dashboard.areas')}</dt>
                  <dd>{areas.length === 0 ? t('dashboard.noAreas') : areas.map(areaLabel).join(', ')}</dd>
                </dl>
                <NextSteps noLocation={noLocation} noAreas={areas.length === 0} place={place} editing={editing} toggle={toggle} />
                {!noLocation && <PinWeather version={`${user.profileNo}:${location.latitude},${location.longitude}`} />}
                <div className='row'>
                  <button type='button' className='button' aria-expanded={editing === 'location'} onClick={() => { toggle('location') }}>{t('dashboard.setLocation')}</button>
                  <button type='button' className='button' aria-expanded={editing === 'areas'} onClick={() => { toggle('areas') }}>{t('dashboard.chooseAreas')}</button>
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
      </Card>
      <Card title={t('home.yourAlarms', { profile })}>
        <ProfileTotal types={alarmTypes.map((a) => a.type)} />
        <Status state={counts} retry={retry}>
          {(data) => (
            <ul className='tiles'>
              {alarmTypes.map((type) => (
                <li key={type.type}>
                  <Link className='tile tile-with-icon' to={`/alarms/${pagePath(type)}`}>
                    <span aria-hidden='true'><GameIcon icon={TYPE_ICONS[type.type] ?? null} label={t(`alarms.types.${type.type}`)} size={36} /></span>
                    <span className='tile-count'>{format.number(data[type.dashboardKey] ?? 0)}</span>
                    <span className='tile-label'>{t(`alarms.types.${type.type}`)}</span>
                  </Link>
                </li>
              ))}
            </ul>
          )}
        </Status>
      </Card>
    </Page>
  )
}

/**
 * The pin in words: the geocoder's address where the site has one, else the areas holding it, else
 * "Location set". Coordinates are never shown: they mean nothing to a member and give their home away
 * to anyone looking at the screen.
 */
function PlaceName ({ place }: { place: Loaded<Place | null> }) {
  const { t } = useTranslation()
  if (place.status === 'loading') return <span aria-busy='true'>{t('status.loading')}</span>
  if (place.status === 'failed' || place.data === null) return <>{t('dashboard.locationSet')}</>
  const { address, areas } = place.data
  if (address !== null) return <>{address}</>
  if (areas.length > 0) return <>{t('dashboard.inAreas', { areas: areas.map(areaLabel).join(', ') })}</>
  return <>{t('dashboard.locationSet')}</>
}

/**
 * What stands between the member and their alerts, each with the one action that fixes it: no location
 * (distances have nothing to measure from), no areas while no alarm has a distance (nothing can match),
 * and paused alerts.
 */
function NextSteps ({ noLocation, noAreas, place, editing, toggle }: { noLocation: boolean, noAreas: boolean, place: Loaded<Place | null>, editing: Editing, toggle: (next: Exclude<Editing, null>) => void }) {
  const { t } = useTranslation()
  const { user } = useSession()
  // Alarms with a distance reach the member from the pin without any area.
  const needAreas = noAreas && (noLocation || (place.status === 'ready' && place.data?.distanceAlarms === 0))
  if (!noLocation && !needAreas && user.enabled) return null
  return (
    <div className='notice notice-warning next-steps'>
      <h3>{t('dashboard.nextTitle')}</h3>
      <ul className='stack-tight'>
        {noLocation && (
          <li>
            <p>{t('dashboard.stepLocation')}</p>
            <button type='button' className='button button-primary' aria-expanded={editing === 'location'} onClick={() => { toggle('location') }}>{t('dashboard.setLocationNow')}</button>
          </li>
        )}
        {needAreas && (
          <li>
            <p>{t('dashboard.stepAreas')}</p>
            <button type='button' className='button button-primary' aria-expanded={editing === 'areas'} onClick={() => { toggle('areas') }}>{t('dashboard.chooseAreasNow')}</button>
          </li>
        )}
        {!user.enabled && (
          <li>
            <p>{t('dashboard.stepResume')}</p>
            <AlertsToggle />
          </li>
        )}
      </ul>
    </div>
  )
}

/**
 * A member with no alarm in this profile: the editor of the first offered type, and the site's quick
 * picks, each added with one tap at the pick's own settings (the quick picks page offers the options).
 */
function FirstAlarm ({ added }: { added: (outcome: string) => void }) {
  const { t } = useTranslation()
  const { alarmTypes } = useSession()
  const [picks, retry] = useLoad(async (signal) => (await quickPicks.list(signal)).filter((e) => e.definition.scope !== 'user' && e.definition.enabled && e.appliedState === null))
  const { busy, error, setError, run } = useSubmit()
  const [adding, setAdding] = useState<string | null>(null)
  const start = firstType(alarmTypes)
  const apply = (id: string, name: string): void => {
    setAdding(id)
    void run(async () => {
      const answer = await quickPicks.apply(id, 'apply', {})
      added(t('quickPicks.applied', { name, count: answer.trackedUids.length }))
    }, (err) => { setError(t('quickPicks.refused', { name, reason: err instanceof ApiError ? err.message : t('status.failed') })) })
      .finally(() => { setAdding(null) })
  }
  return (
    <Card className='stack first-alarm' title={t('dashboard.firstAlarm')}>
      <p className='muted'>{t('dashboard.firstAlarmIntro')}</p>
      {start !== undefined && (
        <Link className='button button-primary' to={`/alarms/${pagePath(start)}?add=new`}>{t('dashboard.firstAlarmEditor')}</Link>
      )}
      <Status state={picks} retry={retry}>
        {(entries) => entries.length === 0
          ? null
          : (
            <div className='stack-tight'>
              <h3>{t('dashboard.firstAlarmPicks')}</h3>
              <ul className='pick-chips'>
                {entries.map(({ definition: pick }) => (
                  <li key={pick.id}>
                    <button type='button' className='button' title={pick.description ?? undefined} disabled={busy} aria-busy={adding === pick.id} onClick={() => { apply(pick.id, pick.name) }}>
                      {adding === pick.id ? t('status.saving') : t('dashboard.addPick', { name: pick.name })}
                    </button>
                  </li>
                ))}
              </ul>
            </div>
            )}
      </Status>
      <div role='alert'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>
    </Card>
  )
}

/** The active profile's pin, typed or taken from the device's position. */
function LocationForm ({ initial, onSaved }: { initial: Location, onSaved: (l: Location) => void }) {
  const { t } = useTranslation()
  const [lat, setLat] = useState(isUnset(initial) ? '' : String(initial.latitude))
  const [lon, setLon] = useState(isUnset(initial) ? '' : String(initial.longitude))
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
