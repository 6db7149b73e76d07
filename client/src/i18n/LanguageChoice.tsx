import { useEffect, useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { api } from '../api'
import { useSubmit } from '../forms/useSubmit'
import { loadSiteSettings } from '../pickers/game-data'
import type { SiteSetting } from '../types'
import { allowedLanguages, changeLanguage, engineLanguage, keepAllowed, LANGUAGES } from '.'

/** Whether the member wants their alerts in the interface language too; kept in this browser. */
const ALERTS_TOO_KEY = 'aw.languageForAlerts'

/** Each language named in itself, as people look for their own language's name. */
const nativeName = (language: string): string => new Intl.DisplayNames([language], { type: 'language' }).of(language) ?? language

interface LanguageSelectProps {
  /** The site settings to read `allowed_languages` from: the member's, or the anonymous list on the sign-in page. */
  loadSettings: () => Promise<SiteSetting[]>
  /** Called after the interface has switched to the chosen language. */
  onChosen?: (language: string) => void
}

/**
 * The interface language as a labelled native select (keyboard and screen-reader usable as it is), offering
 * only the languages the site's `allowed_languages` allows; a language no longer allowed is left at once.
 */
export function LanguageSelect ({ loadSettings, onChosen }: LanguageSelectProps) {
  const { t, i18n } = useTranslation()
  const languageId = useId()
  const [languages, setLanguages] = useState(LANGUAGES)

  useEffect(() => {
    let live = true
    // Without the settings every shipped language stays offered: the menu must not break on a failed read.
    void loadSettings().catch(() => []).then(async (settings) => {
      const allowed = allowedLanguages(settings.find((s) => s.key === 'allowed_languages')?.value)
      if (!live) return
      setLanguages(allowed)
      await keepAllowed(allowed)
    })
    return () => { live = false }
  }, [loadSettings])

  return (
    <div className='field'>
      <label htmlFor={languageId}>{t('userMenu.language')}</label>
      <select
        id={languageId} className='select' value={i18n.language} onChange={(e) => {
          const language = e.target.value
          void changeLanguage(language).then(() => { onChosen?.(language) })
        }}
      >
        {languages.map((language) => <option key={language} value={language} lang={language}>{nativeName(language)}</option>)}
      </select>
    </div>
  )
}

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
      await api('/api/location/language', { method: 'PUT', json: { language: engineLanguage(language) } })
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
