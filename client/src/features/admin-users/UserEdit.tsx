import { useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useSearchParams } from 'react-router'
import { Card } from '../../components/Card'
import type { AdminUserDetail, UserOverview as Overview, UserUpdate } from '../../../../schemas/admin-users'
import { admin, ApiError } from '../../api'
import { SettingSwitch } from '../../components/SettingSwitch'
import { useSubmit } from '../../forms/useSubmit'
import { LANGUAGES } from '../../i18n'
import { viewAs } from '../../shell/impersonation'
import { useSession } from '../../shell/session-context'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'
import { maskedAddress } from '../../webhook-state'
import { RecentEvents } from '../../explain/RecentEvents'
import '../../forms/forms.css'

type UserDetail = AdminUserDetail

const nativeName = (language: string): string => new Intl.DisplayNames([language], { type: 'language' }).of(language) ?? language

/**
 * Admin: one user's account. Name, notes, message language, the active profile's location and areas,
 * alerts on or paused, blocked or not, and every profile with its alarm counts per type. Alarms
 * themselves are managed by viewing the site as the user.
 */
export default function UserEdit () {
  const { t } = useTranslation()
  usePageTitle(t('nav.adminUserEdit'))
  const [params] = useSearchParams()
  const id = params.get('id') ?? ''
  const [state, retry, replace] = useLoad(async (signal) => {
    const [user, overview] = await Promise.all([
      admin.user(id, signal),
      admin.userOverview(id, signal)
    ])
    return { user, overview }
  }, [id])

  return (
    <div className='page'>
      <p><Link to='/admin/users'>{t('userEdit.back')}</Link></p>
      <h1>{t('nav.adminUserEdit')}</h1>
      <Status state={state} retry={retry}>
        {({ user, overview }) => (
          <>
            <p className='muted wrap-anywhere'>{t('userEdit.who', { id: user.type.startsWith('webhook') ? maskedAddress(user.id) : user.id, type: user.type })}</p>
            <AccountForm key={`${user.id}-form`} user={user} areas={overview.areas} saved={(next) => { replace({ user: next, overview }) }} />
            <StateCard user={user} changed={(next) => { replace({ user: next, overview }) }} />
            <ProfilesCard user={user} overview={overview} />
            <WhyNoAlert userId={user.id} />
          </>
        )}
      </Status>
    </div>
  )
}

function AccountForm ({ user, areas, saved }: { user: UserDetail, areas: Overview['areas'], saved: (user: UserDetail) => void }) {
  const { t } = useTranslation()
  const id = useId()
  const [name, setName] = useState(user.name)
  const [notes, setNotes] = useState(user.notes)
  const [language, setLanguage] = useState(user.language ?? '')
  // The engine stores coordinates as floats: shown to six decimals (about 10 cm), as typed.
  const [latitude, setLatitude] = useState(String(Math.round(user.latitude * 1e6) / 1e6))
  const [longitude, setLongitude] = useState(String(Math.round(user.longitude * 1e6) / 1e6))
  const [chosen, setChosen] = useState<string[]>(user.area.map((a) => a.toLowerCase()))
  const [problems, setProblems] = useState<Record<string, string>>({})
  const [done, setDone] = useState(false)
  const { busy, error, run } = useSubmit()

  const save = () => run(async () => {
    setDone(false)
    const found: Record<string, string> = {}
    const lat = Number(latitude)
    const lon = Number(longitude)
    if (name.trim() === '') found.name = t('fields.errors.required')
    if (latitude.trim() === '' || !Number.isFinite(lat) || lat < -90 || lat > 90) found.latitude = t('userEdit.latitudeRange')
    if (longitude.trim() === '' || !Number.isFinite(lon) || lon < -180 || lon > 180) found.longitude = t('userEdit.longitudeRange')
    setProblems(found)
    if (Object.keys(found).length > 0) throw new ApiError(400, t('userEdit.fix'))
    const patch: UserUpdate = {}
    if (name.trim() !== user.name) patch.name = name.trim()
    if (notes !== user.notes) patch.notes = notes
    if (language !== (user.language ?? '')) patch.language = language === '' ? null : language
    if (Math.abs(lat - user.latitude) > 1e-6 || Math.abs(lon - user.longitude) > 1e-6) patch.location = { latitude: lat, longitude: lon }
    const before = user.area.map((a) => a.toLowerCase()).sort().join(',')
    if ([...chosen].sort().join(',') !== before) patch.area = chosen
    if (Object.keys(patch).length === 0) { setDone(true); return }
    try {
      saved(await admin.updateUser(user.id, patch))
    } catch (err) {
      // The server names the field it refused: said there, in the interface language.
      if (err instanceof ApiError && err.status === 400) {
        const field = err.details[0]?.field.replace(/^\//, '').split('/')[0] ?? ''
        if (field !== '') setProblems({ [field === 'location' ? 'latitude' : field]: t('userEdit.refused') })
      }
      throw err
    }
    setDone(true)
  })

  const text = (key: 'name' | 'notes', value: string, set: (v: string) => void, max: number) => (
    <div className='field'>
      <label htmlFor={`${id}-${key}`}>{t(`userEdit.${key}`)}</label>
      <input
        id={`${id}-${key}`} className='input' value={value} maxLength={max} aria-invalid={problems[key] !== undefined}
        aria-describedby={problems[key] !== undefined ? `${id}-${key}-error` : undefined} onChange={(e) => { set(e.target.value); setDone(false) }}
      />
      {problems[key] !== undefined && <p id={`${id}-${key}-error`} className='field-error'>{problems[key]}</p>}
    </div>
  )
  const coordinate = (key: 'latitude' | 'longitude', value: string, set: (v: string) => void) => (
    <div className='field'>
      <label htmlFor={`${id}-${key}`}>{t(`userEdit.${key}`)}</label>
      <input
        id={`${id}-${key}`} className='input' inputMode='decimal' value={value} aria-invalid={problems[key] !== undefined}
        aria-describedby={problems[key] !== undefined ? `${id}-${key}-error` : undefined} onChange={(e) => { set(e.target.value); setDone(false) }}
      />
      {problems[key] !== undefined && <p id={`${id}-${key}-error`} className='field-error'>{problems[key]}</p>}
    </div>
  )
  const groups = [...new Set(areas.map((a) => a.group))].sort()

  return (
    <Card title={t('userEdit.account')}>
      <form className='stack' noValidate onSubmit={(e) => { e.preventDefault(); void save() }}>
        {text('name', name, setName, 255)}
        {text('notes', notes, setNotes, 255)}
        <div className='field'>
          <label htmlFor={`${id}-language`}>{t('userEdit.language')}</label>
          <select id={`${id}-language`} className='select' value={language} onChange={(e) => { setLanguage(e.target.value); setDone(false) }}>
            <option value=''>{t('userEdit.languageDefault')}</option>
            {[...new Set([...LANGUAGES, ...(language === '' ? [] : [language])])].map((l) => <option key={l} value={l} lang={l}>{nativeName(l)}</option>)}
          </select>
          <span className='help'>{t('userEdit.languageHelp')}</span>
        </div>
        <fieldset className='field'>
          <legend>{t('userEdit.location')}</legend>
          <span className='help'>{t('userEdit.locationHelp')}</span>
          {coordinate('latitude', latitude, setLatitude)}
          {coordinate('longitude', longitude, setLongitude)}
        </fieldset>
        <fieldset className='field'>
          <legend>{t('userEdit.areas')}</legend>
          <span className='help'>{areas.length === 0 ? t('userEdit.noAreas') : t('userEdit.areasHelp')}</span>
          {groups.map((group) => (
            <div key={group} className='stack-tight'>
              {group !== '' && <h3 className='label'>{group}</h3>}
              <div className='check-columns'>
                {areas.filter((a) => a.group === group).map((area) => {
                  const key = area.name.toLowerCase()
                  return (
                    <label key={area.name} className='check'>
                      <input
                        type='checkbox' checked={chosen.includes(key)} onChange={(e) => {
                          const on = e.target.checked
                          setChosen((list) => on ? [...list, key] : list.filter((a) => a !== key))
                          setDone(false)
                        }}
                      />
                      <span>{area.name}</span>
                    </label>
                  )
                })}
              </div>
            </div>
          ))}
        </fieldset>
        <button type='submit' className='button button-primary' disabled={busy}>{busy ? t('status.saving') : t('userEdit.save')}</button>
        <div aria-live='polite'>
          {error !== null && <p className='notice notice-error'>{error}</p>}
          {done && <p className='notice'>{t('status.saved')}</p>}
        </div>
      </form>
    </Card>
  )
}

/**
 * "Why didn't they get that alert?": the member's recent list and answers, as they see them. Read only
 * when asked for: each look is written to the audit log.
 */
function WhyNoAlert ({ userId }: { userId: string }) {
  const { t } = useTranslation()
  const [shown, setShown] = useState(false)
  return (
    <Card className='stack' title={t('explanations.adminTitle')}>
      <p className='muted'>{t('explanations.adminIntro')}</p>
      {shown
        ? <RecentEvents userId={userId} />
        : <div><button type='button' className='button' onClick={() => { setShown(true) }}>{t('explanations.adminShow')}</button></div>}
    </Card>
  )
}

function StateCard ({ user, changed }: { user: UserDetail, changed: (user: UserDetail) => void }) {
  const { t } = useTranslation()
  const { user: me } = useSession()
  const act = async (action: 'disable' | 'enable' | 'pause' | 'resume'): Promise<void> => { changed(await admin.setUserState(user.id, action)) }
  return (
    <Card title={t('userEdit.state')}>
      <SettingSwitch label={t('userEdit.alertsOn')} help={t('userEdit.alertsHelp')} checked={user.enabled} onChange={(on) => act(on ? 'resume' : 'pause')} />
      <SettingSwitch
        label={t('userEdit.blocked')}
        help={me.id === user.id ? t('userEdit.selfBlock') : t('userEdit.blockedHelp')}
        checked={user.adminDisable}
        disabled={me.id === user.id}
        onChange={(on) => act(on ? 'disable' : 'enable')}
      />
    </Card>
  )
}

function ProfilesCard ({ user, overview }: { user: UserDetail, overview: Overview }) {
  const { t } = useTranslation()
  const { alarmTypes } = useSession()
  const { busy, error, run } = useSubmit()
  const types = alarmTypes.map((type) => type.type)
  return (
    <Card title={t('userEdit.profiles')} help={t('userEdit.profilesHelp')} headingId='user-profiles'>
      <div className='table-scroll' tabIndex={0} role='region' aria-labelledby='user-profiles'>
        <table className='overview'>
          <thead>
            <tr>
              <th scope='col'>{t('profiles.name')}</th>
              {types.map((type) => <th key={type} scope='col'>{t(`alarms.types.${type}`)}</th>)}
              <th scope='col'>{t('userEdit.total')}</th>
            </tr>
          </thead>
          <tbody>
            {overview.profiles.map((profile) => (
              <tr key={profile.profileNo}>
                <th scope='row'>{profile.name}{profile.active && <> <span className='badge'>{t('profiles.active')}</span></>}</th>
                {types.map((type) => <td key={type}>{profile.counts[type] ?? 0}</td>)}
                <td>{Object.values(profile.counts).reduce((a, b) => a + b, 0)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div>
        <button type='button' className='button' disabled={busy} onClick={() => { void run(() => viewAs(user.id)) }}>{t('userEdit.manageProfiles')}</button>
      </div>
      <div role='alert'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>
    </Card>
  )
}
