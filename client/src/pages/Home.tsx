import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { api } from '../api'
import { pagePath } from '../alarm-types'
import { useFormat } from '../i18n/format'
import { useSession } from '../shell/session-context'
import { Status } from '../shell/Status'
import { useLoad } from '../shell/useLoad'
import { usePageTitle } from '../shell/usePageTitle'

/** The start page: who is signed in, whether alerts are on, and the alarm count of each offered type. */
export default function Home () {
  const { t } = useTranslation()
  const format = useFormat()
  const { user, alarmTypes } = useSession()
  const [counts, retry] = useLoad((signal) => api<Record<string, number>>('/api/dashboard', { signal }), [user.profileNo])
  usePageTitle(t('nav.home'))

  return (
    <div className='page'>
      <h1>{t('home.welcome', { name: user.username })}</h1>
      <p className={user.enabled ? 'muted' : 'notice notice-warning'}>
        {user.enabled ? t('home.alertsOn') : t('home.alertsPaused')}
      </p>
      <section className='card' aria-labelledby='home-alarms'>
        <h2 id='home-alarms'>{t('home.yourAlarms', { profile: user.profileName ?? t('profile.number', { number: user.profileNo }) })}</h2>
        <Status state={counts} retry={retry}>
          {(data) => (
            <ul className='tiles'>
              {alarmTypes.map((type) => (
                <li key={type.type}>
                  <Link className='tile' to={`/alarms/${pagePath(type)}`}>
                    <span className='tile-count'>{format.number(data[type.dashboardKey] ?? 0)}</span>
                    <span className='tile-label'>{t(type.labelKey)}</span>
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
