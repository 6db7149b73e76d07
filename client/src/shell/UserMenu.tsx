import { useEffect, useId, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { signOut } from '../api'
import { LanguageChoice } from '../i18n/LanguageChoice'
import { PAGES } from '../pages'
import { setTheme, storedTheme, THEMES, type ThemeChoice } from '../theme'
import { AlertsToggle } from './AlertsToggle'
import { viewingAs } from './impersonation'
import { ProfileSwitcher } from './ProfileSwitcher'
import { featureOff, useSession } from './session-context'

/**
 * The user's menu: who is signed in, language, theme, the menu's pages and sign-out. Escape or a click outside closes it.
 * `compact` (a narrow top bar) also puts the profile switcher and the alerts button in it, and marks the
 * button while alerts are paused, since the bar no longer shows the "Resume alerts" button.
 */
export function UserMenu ({ compact }: { compact: boolean }) {
  const { t } = useTranslation()
  const { user, settings } = useSession()
  const [open, setOpen] = useState(false)
  const [theme, setThemeChoice] = useState<ThemeChoice>(storedTheme)
  const [signingOut, setSigningOut] = useState(false)
  const panelId = useId()
  const root = useRef<HTMLDivElement>(null)
  const button = useRef<HTMLButtonElement>(null)

  useEffect(() => {
    if (!open) return
    const onKey = (event: KeyboardEvent): void => {
      if (event.key === 'Escape') {
        setOpen(false)
        button.current?.focus()
      }
    }
    const onClick = (event: MouseEvent): void => {
      if (root.current !== null && !root.current.contains(event.target as Node)) setOpen(false)
    }
    document.addEventListener('keydown', onKey)
    document.addEventListener('mousedown', onClick)
    return () => {
      document.removeEventListener('keydown', onKey)
      document.removeEventListener('mousedown', onClick)
    }
  }, [open])

  const links = PAGES.filter((page) => page.section === 'menu' && (page.ownerOnly !== true || !viewingAs()))

  const chooseTheme = (choice: ThemeChoice): void => {
    setTheme(choice)
    setThemeChoice(choice)
  }

  return (
    <div className='user-menu' ref={root}>
      <button
        ref={button}
        type='button'
        className='button user-menu-button'
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => { setOpen((o) => !o) }}
      >
        {user.avatarUrl !== null && user.avatarUrl !== ''
          ? <img className='avatar' src={user.avatarUrl} alt='' width={28} height={28} referrerPolicy='no-referrer' />
          : <span className='avatar avatar-initial' aria-hidden='true'>{user.username.slice(0, 1).toUpperCase()}</span>}
        <span className='user-menu-name'>{user.username}</span>
        <span className='visually-hidden'>{t('userMenu.open')}</span>
        {compact && !user.enabled && (
          <>
            <span className='user-menu-flag' aria-hidden='true' />
            <span className='visually-hidden'>{t('alerts.paused')}</span>
          </>
        )}
      </button>
      <div id={panelId} className='user-menu-panel' hidden={!open}>
        <p className='muted small user-menu-who'>
          {t('userMenu.signedInAs', { name: user.username })}
          {user.isAdmin && <span className='badge'>{t('userMenu.admin')}</span>}
        </p>
        {compact && !featureOff(settings, 'disable_profiles') && <ProfileSwitcher inMenu />}
        {compact && <AlertsToggle />}
        <LanguageChoice />
        <fieldset className='field'>
          <legend>{t('userMenu.theme')}</legend>
          <div className='segmented'>
            {THEMES.map((choice) => (
              <label key={choice} className='segmented-option'>
                <input type='radio' name={`${panelId}-theme`} value={choice} checked={theme === choice} onChange={() => { chooseTheme(choice) }} />
                <span>{t(`theme.${choice}`)}</span>
              </label>
            ))}
          </div>
        </fieldset>
        {links.map((page) => <Link key={page.path} className='button' to={page.path} onClick={() => { setOpen(false) }}>{t(page.label)}</Link>)}
        <button
          type='button'
          className='button'
          disabled={signingOut}
          onClick={() => {
            setSigningOut(true)
            void signOut()
          }}
        >
          {signingOut ? t('userMenu.signingOut') : t('userMenu.signOut')}
        </button>
      </div>
    </div>
  )
}
