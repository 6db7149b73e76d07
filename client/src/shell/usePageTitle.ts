import { useEffect } from 'react'
import { useTabTitle } from '../branding'

/**
 * Sets the document title to "<page> · <site>", so tabs, history and screen readers name the page; the
 * site part is the admin's page title or site name (branding.tsx).
 */
export function usePageTitle (title: string): void {
  const site = useTabTitle()
  useEffect(() => {
    document.title = title === '' ? site : `${title} · ${site}`
  }, [title, site])
}
