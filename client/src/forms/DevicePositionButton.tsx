import { useTranslation } from 'react-i18next'

export interface Position { latitude: number, longitude: number }

/**
 * "Use my current position": asks the browser for the device's position, rounded to six decimals
 * (about 10 cm, what the engine stores). Absent where the browser has no geolocation; a refusal or
 * a failed fix is handed to `onFailed`, since what to do instead depends on the page.
 */
export function DevicePositionButton ({ onPosition, onFailed, disabled = false }: { onPosition: (p: Position) => void, onFailed: () => void, disabled?: boolean }) {
  const { t } = useTranslation()
  if (!('geolocation' in navigator)) return null
  const ask = (): void => {
    navigator.geolocation.getCurrentPosition(
      (p) => { onPosition({ latitude: Math.round(p.coords.latitude * 1e6) / 1e6, longitude: Math.round(p.coords.longitude * 1e6) / 1e6 }) },
      onFailed
    )
  }
  return <button type='button' className='button' disabled={disabled} onClick={ask}>{t('dashboard.useMyPosition')}</button>
}
