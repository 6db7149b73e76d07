import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import { profiles as profilesApi } from '../api'
import { getRefreshToken, storeTokens } from '../session'
import { useSession } from './session-context'
import { useSubmit } from '../forms/useSubmit'
import { useLoad } from './useLoad'

/**
 * The active profile, and a switch to another one. Switching re-issues the JWT (it carries the profile
 * number) and reloads the session, so every page shows the new profile's alarms. In the top bar the
 * select speaks its label only to screen readers; `inMenu` (the user menu on phones) shows the label.
 */
export function ProfileSwitcher ({ inMenu = false }: { inMenu?: boolean }) {
  const { t } = useTranslation()
  const id = useId()
  const { user, reload } = useSession()
  const [profiles] = useLoad((signal) => profilesApi.list(signal), [user.profileNo])
  const { busy, error, run } = useSubmit()
  const switchTo = (profileNo: number) => run(async () => {
    const { token } = await profilesApi.switchTo(profileNo)
    storeTokens(token, getRefreshToken())
    reload()
  })

  const current = user.profileName ?? t('profile.number', { number: user.profileNo })
  // Profiles switched off by the site, or an engine that cannot list them: show the name only.
  if (profiles.status !== 'ready' || profiles.data.length < 2) {
    if (inMenu) return <p className='profile-name-menu'><span className='muted'>{t('profile.label')}</span> {current}</p>
    return <span className='profile-name' title={t('profile.label')}>{current}</span>
  }

  return (
    <div className={inMenu ? 'field profile-switcher-menu' : 'profile-switcher'}>
      <label htmlFor={id} className={inMenu ? undefined : 'visually-hidden'}>{t('profile.label')}</label>
      <select id={id} className='select' value={user.profileNo} disabled={busy} onChange={(e) => { void switchTo(Number(e.target.value)) }}>
        {profiles.data.map((p) => <option key={p.profileNo} value={p.profileNo}>{p.name}</option>)}
      </select>
      {error !== null && <p className='notice notice-error popover-note' role='alert'>{error}</p>}
    </div>
  )
}
