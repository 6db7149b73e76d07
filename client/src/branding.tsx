import { useState, useSyncExternalStore } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { settings } from './api'
import { setAccent } from './theme'
import type { SiteSetting } from './types'

/**
 * The site's branding as the admin set it (site settings, readable without signing in): the name in the
 * top bar and on the login page, the browser-tab title, the logo, the favicon and the accent colour.
 * The last answer is kept in this browser, so a reload paints the brand at once; the server's answer
 * replaces it as soon as it arrives.
 */
export interface Branding {
  siteName: string | null
  pageTitle: string | null
  logoUrl: string | null
  hideLogo: boolean
  faviconUrl: string | null
  accent: string | null
}

const STORAGE_KEY = 'aw.branding'
const NONE: Branding = { siteName: null, pageTitle: null, logoUrl: null, hideLogo: false, faviconUrl: null, accent: null }

/** Branding from site-setting values by key; empty values count as not set. */
export function brandingFrom (values: ReadonlyMap<string, string | null>): Branding {
  const text = (key: string): string | null => {
    const value = values.get(key)?.trim()
    return value === undefined || value === '' ? null : value
  }
  return {
    siteName: text('site_name'),
    pageTitle: text('custom_title'),
    logoUrl: text('header_logo_url'),
    hideLogo: values.get('hide_header_logo') === 'true',
    faviconUrl: text('favicon_url'),
    accent: text('accent_color')
  }
}

function stored (): Branding {
  try {
    const value = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null') as Partial<Branding> | null
    return value === null ? NONE : { ...NONE, ...value }
  } catch {
    return NONE
  }
}

let current: Branding = NONE
const listeners = new Set<() => void>()
let builtInFavicon: { href: string | null, type: string | null } | null = null

function applyFavicon (url: string | null): void {
  const link = document.querySelector<HTMLLinkElement>('link[rel~="icon"]')
  if (link === null) return
  builtInFavicon ??= { href: link.getAttribute('href'), type: link.getAttribute('type') }
  if (url === null) {
    if (builtInFavicon.href !== null) link.setAttribute('href', builtInFavicon.href)
    if (builtInFavicon.type !== null) link.setAttribute('type', builtInFavicon.type)
  } else {
    // The admin's icon may be any image format; a stale type would make the browser skip it.
    link.removeAttribute('type')
    link.setAttribute('href', url)
  }
}

/** Applies `branding` to the page (accent, favicon; names and logo through useBranding) and keeps it. */
export function setBranding (branding: Branding): void {
  current = branding
  setAccent(branding.accent)
  applyFavicon(branding.faviconUrl)
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(branding))
  } catch {
    // Storage full or blocked: the brand is fetched again on the next visit.
  }
  for (const listener of listeners) listener()
}

let publicSettings: Promise<SiteSetting[]> | null = null

/**
 * The settings readable without signing in (branding, `allowed_languages`), read once per page load and
 * shared by the branding and the sign-in page's language menu; a failed read is tried again next time.
 */
export function loadPublicSettings (): Promise<SiteSetting[]> {
  publicSettings ??= settings.listPublic().catch((error: unknown) => {
    publicSettings = null
    throw error
  })
  return publicSettings
}

/** At start: the kept branding now, then the server's. A failed read keeps what is shown. */
export function startBranding (): void {
  setBranding(stored())
  loadPublicSettings()
    .then((rows) => { setBranding(brandingFrom(new Map(rows.map((row) => [row.key, row.value])))) })
    .catch(() => undefined)
}

function subscribe (listener: () => void): () => void {
  listeners.add(listener)
  return () => { listeners.delete(listener) }
}

export function useBranding (): Branding {
  return useSyncExternalStore(subscribe, () => current)
}

/** The name the site goes by: the admin's site name, else the page title, else the built-in name. */
export function useSiteName (): string {
  const { t } = useTranslation()
  const { siteName, pageTitle } = useBranding()
  return siteName ?? pageTitle ?? t('app.name')
}

/** What the browser tab says after the page's name: the page title, else the site name. */
export function useTabTitle (): string {
  const { t } = useTranslation()
  const { siteName, pageTitle } = useBranding()
  return pageTitle ?? siteName ?? t('app.name')
}

/**
 * The logo (unless hidden or broken) and the site name; a link home in the signed-in frame. The logo
 * is decorative (alt=""): the name beside it says what it would.
 */
export function Brand ({ home }: { home?: string }) {
  const { logoUrl, hideLogo } = useBranding()
  const name = useSiteName()
  const [broken, setBroken] = useState<string | null>(null)
  const content = (
    <>
      {!hideLogo && logoUrl !== null && logoUrl !== broken && (
        <img className='brand-logo' src={logoUrl} alt='' onError={() => { setBroken(logoUrl) }} />
      )}
      <span className='brand-name'>{name}</span>
    </>
  )
  return home === undefined ? <span className='brand'>{content}</span> : <Link to={home} className='brand'>{content}</Link>
}
