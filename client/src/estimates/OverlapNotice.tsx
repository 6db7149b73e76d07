import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import type { Estimate } from './api'

/** Where one of the member's alarms opens in its editor, and its sentence when the page has it loaded. */
export type AlarmLink = (uid: number) => { to: string, words: string | null }

/**
 * "You already get every alert of this alarm from your alarm “Every pokémon, IV ≥ 90%”", the alarm named in
 * words and opened in its editor by the link; and the alarms this one would make redundant.
 */
export function OverlapNotice ({ estimate, alarmLink }: { estimate: Estimate, alarmLink: AlarmLink }) {
  const { t } = useTranslation()
  if (estimate.coveredBy.length === 0 && estimate.covers.length === 0) return null
  const links = (uids: number[]) => uids.map((uid, i) => {
    const { to, words } = alarmLink(uid)
    return (
      <span key={uid}>{i > 0 ? ', ' : ''}<Link to={to}>{words === null ? t('estimates.alarmNumber', { uid }) : t('estimates.alarmNamed', { words })}</Link></span>
    )
  })
  return (
    <div className='notice overlap' role='status'>
      {estimate.coveredBy.length > 0 && <p data-overlap='covered'>{t('estimates.coveredBy', { count: estimate.coveredBy.length })} {links(estimate.coveredBy)}</p>}
      {estimate.covers.length > 0 && <p data-overlap='covers'>{t('estimates.covers', { count: estimate.covers.length })} {links(estimate.covers)}</p>}
    </div>
  )
}
