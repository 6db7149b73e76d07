import { useTranslation } from 'react-i18next'
import { Card } from '../../components/Card'
import { profiles } from '../../api'
import { useSession } from '../../shell/session-context'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'

/** Every profile's alarm counts per type, in one table read from one call. */
export function Overview () {
  const { t } = useTranslation()
  const { alarmTypes } = useSession()
  const [overview, retry] = useLoad((signal) => profiles.overview(signal))
  return (
    <Card title={t('profiles.overview')}>
      <Status state={overview} retry={retry}>
        {(data) => {
          const profiles = [...data.profile].sort((a, b) => Number(a.profile_no) - Number(b.profile_no))
          if (profiles.length === 0) return <p className='muted'>{t('profiles.empty')}</p>
          const rowsOf = (type: string): Array<Record<string, unknown>> => {
            // The answer holds one list per alarm type, keyed by the engine's name for it.
            const rows: unknown = (data as Record<string, unknown>)[type]
            return Array.isArray(rows) ? rows as Array<Record<string, unknown>> : []
          }
          const count = (type: string, profileNo: unknown): number => rowsOf(type).filter((a) => Number(a.profile_no) === Number(profileNo)).length
          return (
            <div className='table-scroll' tabIndex={0} role='region' aria-label={t('profiles.overview')}>
              <table className='overview'>
                <thead>
                  <tr>
                    <th scope='col'>{t('profiles.name')}</th>
                    {alarmTypes.map((type) => <th key={type.type} scope='col'>{t(`alarms.types.${type.type}`)}</th>)}
                  </tr>
                </thead>
                <tbody>
                  {profiles.map((p) => (
                    <tr key={String(p.profile_no)}>
                      <th scope='row'>{String(p.name)}</th>
                      {alarmTypes.map((type) => <td key={type.type}>{count(type.engineName, p.profile_no)}</td>)}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }}
      </Status>
    </Card>
  )
}
