import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useFormat } from '../i18n/format'
import { ESTIMATED_TYPES } from './api'
import { about } from './EstimateLine'
import { loadProfileEstimate } from './useAlarmEstimate'

/**
 * The profile's alerts on a typical day, over the given alarm types (the dashboard), or one type (the
 * header of an alarm page). Nothing is shown without a scanner or before the answer arrives.
 */
export function ProfileTotal ({ types }: { types: string[] }) {
  const { t } = useTranslation()
  const format = useFormat()
  const wanted = types.filter((type) => ESTIMATED_TYPES.has(type))
  const key = wanted.join(',')
  const [total, setTotal] = useState<number | null>(null)
  useEffect(() => {
    let live = true
    setTotal(null)
    Promise.all(key.split(',').filter((type) => type !== '').map(async (type) => await loadProfileEstimate(type).catch(() => null)))
      .then((answers) => {
        const figures = answers.flatMap((a) => (a === null || a.basis === 'unavailable' ? [] : [a.total.perDay ?? ((a.total.recent ?? 0) * 24) / Math.max(1, a.windowHours)]))
        if (live) setTotal(figures.length === 0 ? null : figures.reduce((s, v) => s + v, 0))
      }, () => {})
    return () => { live = false }
  }, [key])
  if (total === null) return null
  return <p className='profile-estimate' role='status'>{t(types.length === 1 ? 'estimates.typeTotal' : 'estimates.profileTotal', { count: about(total), n: format.number(about(total)) })}</p>
}
