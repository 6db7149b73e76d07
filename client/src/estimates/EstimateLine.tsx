import { useTranslation } from 'react-i18next'
import { useFormat } from '../i18n/format'
import { dailyFigure, type Estimate } from './api'
import type { EstimateState } from './useAlarmEstimate'

/** From this many alerts a day on, the editor warns. */
export const FLOOD_PER_DAY = 200

/** A count as people say it: whole numbers, rounded to two significant digits from 100 on. */
export const about = (n: number): number => (n < 100 ? Math.round(n) : Number(n.toPrecision(2)))

/** "About 40 alerts a day (3 in the last hour)", with a warning when it is a flood. */
export function EstimateLine ({ state }: { state: EstimateState }) {
  const { t } = useTranslation()
  const format = useFormat()
  return (
    <div className='estimate' aria-live='polite' aria-atomic='true' data-estimate={state.status}>
      {state.status === 'loading' && <p className='muted small'>{t('estimates.loading')}</p>}
      {state.status === 'ready' && <Figure estimate={state.estimate} format={format} />}
    </div>
  )
}

function Figure ({ estimate, format }: { estimate: Estimate, format: ReturnType<typeof useFormat> }) {
  const { t } = useTranslation()
  if (estimate.basis === 'unavailable' || estimate.recent === null) return <p className='muted small'>{t('estimates.unavailable')}</p>
  const daily = dailyFigure(estimate)
  const recent = t('estimates.recent', { count: estimate.recent, hours: estimate.windowHours, n: format.number(estimate.recent) })
  if (daily !== null && daily >= FLOOD_PER_DAY) {
    return (
      <div className='notice notice-warning' data-flood=''>
        <p>{t('estimates.flood', { n: format.number(about(daily)) })}</p>
        <p className='small'>{recent}</p>
      </div>
    )
  }
  return (
    <p className='small'>
      {estimate.perDay !== null ? t('estimates.perDay', { count: about(estimate.perDay), n: format.number(about(estimate.perDay)) }) + ' ' : ''}
      {recent}
      {estimate.perDayBasis === 'uniform' ? ` ${t('estimates.uniform')}` : ''}
    </p>
  )
}
