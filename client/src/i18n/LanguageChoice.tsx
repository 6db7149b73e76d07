import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { userLocation } from '../api'
import { useSubmit } from '../forms/useSubmit'
import { loadSiteSettings } from '../pickers/game-data'
import { engineLanguage } from '.'
import { LanguageSelect, nativeName } from './LanguageSelect'

/** Whether the member wants their alerts in the interface language too; kept in this browser. */
const ALERTS_TOO_KEY = 'aw.languageForAlerts'

/**
 * The interface language of the account menu and, when "also my alerts" is ticked, the same choice
 * written to the engine as the language of the member's alerts (`PUT /api/location/language`).
 * Ticking the box sends the current language at once.
 */
export function LanguageChoice () {
  const { t, i18n } = useTranslation()
  const [alertsToo, setAlertsToo] = useState(() => localStorage.getItem(ALERTS_TOO_KEY) === '1')
  const [done, setDone] = useState<string | null>(null)
  const { busy, error, run } = useSubmit()

  const sendToEngine = (language: string): void => {
    setDone(null)
    void run(async () => {
      await userLocation.setLanguage(engineLanguage(language))
      // Said in the language just chosen: `t` of this render may still be the previous one.
      setDone(i18n.getFixedT(language)('userMenu.alertsTooSaved', { language: nativeName(language) }))
    })
  }

  return (
    <>
      <LanguageSelect loadSettings={loadSiteSettings} onChosen={(language) => { if (alertsToo) sendToEngine(language) }} />
      <label className='switch'>
        <input
          type='checkbox' checked={alertsToo} disabled={busy} onChange={(e) => {
            const on = e.target.checked
            setAlertsToo(on)
            localStorage.setItem(ALERTS_TOO_KEY, on ? '1' : '0')
            if (on) sendToEngine(i18n.language)
            else setDone(null)
          }}
        />
        <span>{t('userMenu.alertsToo')}</span>
      </label>
      <div role='status' aria-live='polite'>{done !== null && error === null && <p className='small muted'>{done}</p>}</div>
      <div role='alert'>{error !== null && <p className='notice notice-error'>{t('userMenu.alertsTooFailed', { message: error })}</p>}</div>
    </>
  )
}
