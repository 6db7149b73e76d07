import { AA_TEXT, HEX_COLOUR, accentPalette, hexFromComputed, lowestContrast } from './contrast'

/**
 * Light, dark or the system's choice. The choice is stored per browser and applied as `data-theme` on
 * <html> by the entry script before React renders anything, so a reload never flashes the other theme
 * (the CSP allows no inline script in index.html that could do it earlier).
 */
export type ThemeChoice = 'light' | 'dark' | 'system'
export const THEMES: ThemeChoice[] = ['light', 'dark', 'system']
const THEME_KEY = 'aw.theme'

const dark = window.matchMedia('(prefers-color-scheme: dark)')
const root = document.documentElement

export function storedTheme (): ThemeChoice {
  const value = localStorage.getItem(THEME_KEY)
  return value === 'light' || value === 'dark' ? value : 'system'
}

function apply (choice: ThemeChoice): void {
  const effective = choice === 'system' ? (dark.matches ? 'dark' : 'light') : choice
  root.dataset.theme = effective
  markAccentLinks()
}

export function setTheme (choice: ThemeChoice): void {
  if (choice === 'system') localStorage.removeItem(THEME_KEY)
  else localStorage.setItem(THEME_KEY, choice)
  apply(choice)
}

/** Applies the stored choice now and follows the system setting while the choice is "system". */
export function applyStoredTheme (): void {
  apply(storedTheme())
  dark.addEventListener('change', () => { if (storedTheme() === 'system') apply('system') })
}

/**
 * The admin's accent colour (`accent_color`), or null for the theme's own. Set as custom properties on
 * <html> through the DOM API, never as style text; styles.css gives them to the page below <html>:
 * - buttons, badges and selected options fill with the accent and write in black or white, whichever
 *   contrasts more (always at least 4.58:1); hover moves the fill away from that text colour;
 * - links and focus rings take the accent only while it reaches 4.5:1 (WCAG AA) on every page colour of
 *   the theme in use (`--bg`, `--surface`, `--surface-2`), and keep the theme's own colour otherwise;
 *   this is decided again whenever the theme changes.
 */
let accent: string | null = null
const PAGE_COLOURS = ['--bg', '--surface', '--surface-2']
const ACCENT_PROPERTIES = ['--brand-accent', '--brand-accent-text', '--brand-accent-hover']

/**
 * The accent's lowest contrast on the page colours of the theme shown now. The colours are read as the
 * browser computes them (the stylesheet may spell them any way once minified), through a probe element.
 */
export function accentContrastOnPage (hex: string): number {
  const probe = document.createElement('span')
  probe.hidden = true
  root.append(probe)
  const colours = PAGE_COLOURS.map((name) => {
    probe.style.setProperty('color', `var(${name})`)
    return hexFromComputed(getComputedStyle(probe).color) ?? ''
  })
  probe.remove()
  return lowestContrast(hex, colours)
}

function markAccentLinks (): void {
  if (accent === null) return
  root.dataset.brand = accentContrastOnPage(accent) >= AA_TEXT ? 'accent links' : 'accent'
}

export function setAccent (hex: string | null): void {
  if (hex === null || !HEX_COLOUR.test(hex)) {
    accent = null
    for (const name of ACCENT_PROPERTIES) root.style.removeProperty(name)
    delete root.dataset.brand
    return
  }
  const palette = accentPalette(hex)
  accent = palette.accent
  root.style.setProperty('--brand-accent', palette.accent)
  root.style.setProperty('--brand-accent-text', palette.text)
  root.style.setProperty('--brand-accent-hover', palette.hover)
  markAccentLinks()
}
