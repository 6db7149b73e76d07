import { useTranslation } from 'react-i18next'
import { userLocation } from '../../api'
import { useLoad } from '../../shell/useLoad'
import { IconImage, iconUrl, useIconSets } from '../../icons'

/**
 * The in-game weather at the active profile's location, from the site's scanner, with the types it
 * boosts, named as the game names them in the reader's language. Decoration: nothing is shown while it
 * loads, when the site has no scanner or no reading (204), or when it cannot be read.
 */
export function PinWeather ({ version }: { version: string }) {
  const { t, i18n } = useTranslation()
  const [state] = useLoad((signal) => userLocation.weather(signal), [version])
  const sets = useIconSets(['weather'])
  if (state.status !== 'ready' || state.data === undefined) return null
  const weather = state.data
  const condition = t(`dashboard.conditions.${weather.condition}`, { defaultValue: weather.conditionName })
  const types = new Intl.ListFormat(i18n.language, { type: 'conjunction' })
    .format(weather.boostedTypeIds.map((id, i) => t(`dashboard.types.${id}`, { defaultValue: weather.boostedTypes[i] ?? '' })))
  return (
    <p className='pin-weather'>
      <IconImage src={iconUrl(sets, { kind: 'weather', id: weather.condition })} label={condition} size={32} />
      <span>
        {t('dashboard.weather', { condition })}
        {types !== '' && <span className='small muted'> · {t('dashboard.boosts', { types })}</span>}
      </span>
    </p>
  )
}
