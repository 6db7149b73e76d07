import { useTranslation } from 'react-i18next'
import { useFormat } from '../i18n/format'
import { ESTIMATED_TYPES, dailyFigure } from './api'
import { about, FLOOD_PER_DAY } from './EstimateLine'
import { useProfileEstimate } from './useAlarmEstimate'

/** One alarm's figure on its card ("≈ 40 alerts a day"). */
export function CardEstimate ({ type, uid }: { type: string, uid: number }) {
  return ESTIMATED_TYPES.has(type) ? <Figure type={type} uid={uid} /> : null
}

function Figure ({ type, uid }: { type: string, uid: number }) {
  const { t } = useTranslation()
  const format = useFormat()
  const estimate = useProfileEstimate(type, uid)?.alarms[String(uid)]
  const daily = estimate === undefined ? null : dailyFigure(estimate)
  return (
    <p className={daily !== null && daily >= FLOOD_PER_DAY ? 'alarm-estimate small flood' : 'alarm-estimate small muted'}>
      {daily !== null && t('estimates.card', { count: about(daily), n: format.number(about(daily)) })}
      {estimate !== undefined && estimate.coveredBy.length > 0 && ` ${t('estimates.cardCovered')}`}
    </p>
  )
}
