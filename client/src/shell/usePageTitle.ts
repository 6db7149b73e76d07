import { useEffect } from 'react'
import { useTranslation } from 'react-i18next'

/** Sets the document title to "<page> · <site>", so tabs, history and screen readers name the page. */
export function usePageTitle (title: string): void {
  const { t } = useTranslation()
  const site = t('app.name')
  useEffect(() => {
    document.title = title === '' ? site : `${title} · ${site}`
  }, [title, site])
}
