import { useTranslation } from 'react-i18next'
import type { Estimate } from './api'

/**
 * "Your alarm #12 already sends you every alert this one would", with a link to that alarm's card on the
 * page; and the alarms this one would make redundant.
 */
export function OverlapNotice ({ estimate }: { estimate: Estimate }) {
  const { t } = useTranslation()
  if (estimate.coveredBy.length === 0 && estimate.covers.length === 0) return null
  const links = (uids: number[]) => uids.map((uid, i) => (
    <span key={uid}>{i > 0 ? ', ' : ''}<a href={`#alarm-estimate-${uid}`}>{t('estimates.alarmNumber', { uid })}</a></span>
  ))
  return (
    <div className='notice overlap' role='status'>
      {estimate.coveredBy.length > 0 && <p data-overlap='covered'>{t('estimates.coveredBy', { count: estimate.coveredBy.length })} {links(estimate.coveredBy)}</p>}
      {estimate.covers.length > 0 && <p data-overlap='covers'>{t('estimates.covers', { count: estimate.covers.length })} {links(estimate.covers)}</p>}
    </div>
  )
}
