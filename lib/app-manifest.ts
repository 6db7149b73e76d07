import type { WebAppManifest } from '../schemas/app-manifest.js'

/**
 * The installed app's manifest from the site's branding (site settings `site_name`, `custom_title`,
 * `accent_color`): the same name and colour as the top bar. The icons are the built-in set
 * (client/public/icons, made by scripts/app-icons.ts): an admin's favicon has no known size, and a
 * phone refuses to install an app without a large enough icon.
 */

const BUILT_IN_NAME = 'Alarms'
/** The client's own accent (client/src/styles.css) when the admin chose none. */
const BUILT_IN_ACCENT = '#1d4ed8'
const SHORT_NAME_MAX = 12

const ICONS: WebAppManifest['icons'] = [
  { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
  { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
  { src: '/icons/maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' }
]

export function webAppManifest (values: ReadonlyMap<string, string | null>): WebAppManifest {
  const text = (key: string): string | null => {
    const value = values.get(key)?.trim()
    return value === undefined || value === '' ? null : value
  }
  const name = text('site_name') ?? text('custom_title') ?? BUILT_IN_NAME
  // Cut at a word where one ends in time: "Alarms of Springfield" reads better as "Alarms" than "Alarms of Sp".
  const firstWords = name.split(/\s+/).reduce((kept, word) => {
    const next = kept === '' ? word : `${kept} ${word}`
    return next.length <= SHORT_NAME_MAX ? next : kept
  }, '')
  const accent = text('accent_color')
  return {
    id: '/',
    name,
    short_name: firstWords === '' ? [...name].slice(0, SHORT_NAME_MAX).join('') : firstWords,
    start_url: '/',
    scope: '/',
    display: 'standalone',
    theme_color: accent !== null && /^#[0-9a-fA-F]{6}$/.test(accent) ? accent : BUILT_IN_ACCENT,
    background_color: '#ffffff',
    icons: ICONS
  }
}
