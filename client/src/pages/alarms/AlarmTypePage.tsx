import { useTranslation } from 'react-i18next'
import { Link, useParams } from 'react-router'
import { api } from '../../api'
import { ALARM_TYPE_SWITCHES, pagePath } from '../../alarm-types'
import { useFormat } from '../../i18n/format'
import { useSession } from '../../shell/session-context'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'

type Alarm = Record<string, unknown> & { uid: number, distance?: number }

/**
 * The alarms of one type in the active profile. A type the site or the engine switched off (so absent
 * from GET /api/alarm-types) says so instead of showing an error.
 */
export default function AlarmTypePage () {
  const { t } = useTranslation()
  const format = useFormat()
  const { type: path } = useParams()
  const { user, alarmTypes } = useSession()
  const offered = alarmTypes.find((entry) => pagePath(entry) === path)
  const type = offered ?? ALARM_TYPE_SWITCHES.find((entry) => pagePath(entry) === path)
  const enabled = offered !== undefined
  const title = type === undefined ? t('notFound.title') : t(`alarms.types.${type.type}`)
  usePageTitle(title)
  const [alarms, retry] = useLoad(
    (signal) => offered !== undefined ? api<Alarm[]>(offered.path, { signal }) : Promise.resolve([]),
    [path, enabled, user.profileNo]
  )

  if (type === undefined) {
    return <div className='page'><h1>{title}</h1><Link to='/'>{t('notFound.home')}</Link></div>
  }
  return (
    <div className='page'>
      <h1>{title}</h1>
      {!enabled
        ? <p className='notice'>{t('alarms.disabled')}</p>
        : (
          <Status state={alarms} retry={retry}>
            {(list) => list.length === 0
              ? <p className='muted'>{t('alarms.empty')}</p>
              : (
                <ul className='list'>
                  {list.map((alarm) => (
                    <li key={alarm.uid} className='list-item'>
                      <span>{t('alarms.number', { uid: alarm.uid })}</span>
                      <span className='muted small'>
                        {typeof alarm.distance === 'number' && alarm.distance > 0
                          ? t('alarms.within', { distance: format.number(alarm.distance, { style: 'unit', unit: 'meter' }) })
                          : t('alarms.inAreas')}
                      </span>
                    </li>
                  ))}
                </ul>
                )}
          </Status>
          )}
    </div>
  )
}
