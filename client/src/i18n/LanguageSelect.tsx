import { useEffect, useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { SiteSetting } from '../types'
import { allowedLanguages, changeLanguage, keepAllowed, LANGUAGES } from '.'

/** Each language named in itself, as people look for their own language's name. */
export const nativeName = (language: string): string => new Intl.DisplayNames([language], { type: 'language' }).of(language) ?? language

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
