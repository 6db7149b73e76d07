/**
 * Light, dark or the system's choice. The choice is stored per browser and applied as `data-theme` on
 * <html> by the entry script before React renders anything, so a reload never flashes the other theme
 * (the CSP allows no inline script in index.html that could do it earlier).
 */
export type ThemeChoice = 'light' | 'dark' | 'system'
export const THEMES: ThemeChoice[] = ['light', 'dark', 'system']
const THEME_KEY = 'aw.theme'

const dark = window.matchMedia('(prefers-color-scheme: dark)')

export function storedTheme (): ThemeChoice {
  const value = localStorage.getItem(THEME_KEY)
  return value === 'light' || value === 'dark' ? value : 'system'
}

function apply (choice: ThemeChoice): void {
  const effective = choice === 'system' ? (dark.matches ? 'dark' : 'light') : choice
  document.documentElement.dataset.theme = effective
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
