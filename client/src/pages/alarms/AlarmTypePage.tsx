import { useTranslation } from 'react-i18next'
import { Link, useParams } from 'react-router'
import { api } from '../../api'
import { ALARM_TYPES } from '../../alarm-types'
import { useFormat } from '../../i18n/format'
import { useSession } from '../../shell/session-context'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'

type Alarm = Record<string, unknown> & { uid: number, distance?: number }

/**
 * The alarms of one type in the active profile. A type the site or the engine switched off says so
 * instead of showing an error.
 */
export default function AlarmTypePage () {
  const { t } = useTranslation()
  const format = useFormat()
  const { type: path } = useParams()
  const { user, alarmTypes } = useSession()
  const type = ALARM_TYPES.find((entry) => entry.path === path)
  const enabled = type !== undefined && alarmTypes.some((entry) => entry.type === type.type)
  const title = type === undefined ? t('notFound.title') : t(`alarmTypes.${type.type}`)
  usePageTitle(title)
  const [alarms, retry] = useLoad(
    (signal) => enabled ? api<Alarm[]>(`/api/${type.path}`, { signal }) : Promise.resolve([]),
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
