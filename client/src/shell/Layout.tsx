import { Suspense, useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { NavLink, Outlet, useLocation } from 'react-router'
import { pagePath } from '../alarm-types'
import { Brand } from '../branding'
import { PAGES } from '../pages'
import { AlertsToggle } from './AlertsToggle'
import { ImpersonationBanner } from './impersonation'
import { PageBoundary } from './PageBoundary'
import { PageLoading } from './PageLoading'
import { ProfileSwitcher } from './ProfileSwitcher'
import { featureOff, SessionProvider, useSession } from './session-context'
import { useMediaQuery } from './useMediaQuery'
import { UserMenu } from './UserMenu'

/**
 * From this width (the one where the navigation leaves its drawer) the profile switcher and the alerts
 * button sit in the top bar; below it they move into the user menu, so that a 320 px phone keeps the
 * menu button, the brand (with room for a logo) and the drawer button on screen.
 */
const WIDE_BAR = '(min-width: 48rem)'

/** The signed-in frame: top bar, navigation (a drawer on phones), and the page. */
export default function Layout () {
  return (
    <SessionProvider>
      <Frame />
    </SessionProvider>
  )
}

function Frame () {
  const { t } = useTranslation()
  const { pathname } = useLocation()
  const [navOpen, setNavOpen] = useState(false)
  const wide = useMediaQuery(WIDE_BAR)
  const { settings } = useSession()

  // A chosen page closes the drawer.
  useEffect(() => { setNavOpen(false) }, [pathname])

  return (
    <>
      <a className='skip-link' href='#main'>{t('shell.skipToContent')}</a>
      <header className='topbar'>
        <button
          type='button'
          className='button button-icon nav-toggle'
          aria-expanded={navOpen}
          aria-controls='site-nav'
          onClick={() => { setNavOpen((open) => !open) }}
        >
          <span aria-hidden='true'>☰</span>
          <span className='visually-hidden'>{t('shell.menu')}</span>
        </button>
        <Brand home='/' />
        <div className='topbar-tools'>
          {wide && !featureOff(settings, 'disable_profiles') && <ProfileSwitcher />}
          {wide && <AlertsToggle />}
          <UserMenu compact={!wide} />
        </div>
      </header>
      <ImpersonationBanner />
      <div className='frame'>
        <Navigation open={navOpen} wide={wide} />
        <main id='main' tabIndex={-1} className='frame-main'>
          <PageBoundary key={pathname}>
            <Suspense fallback={<PageLoading />}>
              <Outlet />
            </Suspense>
          </PageBoundary>
        </main>
      </div>
    </>
  )
}

/** The admin's extra link (`custom_page_*`): shown when it has both a name and an address. */
function customPageOf (settings: ReadonlyMap<string, string | null>): { name: string, url: string, icon: string } | null {
  const name = settings.get('custom_page_name')?.trim() ?? ''
  const url = settings.get('custom_page_url')?.trim() ?? ''
  if (name === '' || url === '') return null
  return { name, url, icon: settings.get('custom_page_icon')?.trim() ?? '' }
}

function Navigation ({ open, wide }: { open: boolean, wide: boolean }) {
  const { t } = useTranslation()
  const { user, alarmTypes, settings } = useSession()
  const delegate = (user.managedWebhooks ?? []).length > 0
  const pages = PAGES.filter((page) => (page.adminOnly !== true || user.isAdmin) && (page.delegatesOnly !== true || delegate) &&
    (page.feature === undefined || !featureOff(settings, page.feature)))
  const customPage = customPageOf(settings)
  const main = pages.filter((page) => page.section === 'main')
  const admin = pages.filter((page) => page.section === 'admin')
  const alarmList = alarmTypes.length > 0 && (
    <>
      <h2 className='nav-heading' id='nav-alarms'>{t('nav.alarms')}</h2>
      <ul className='nav-list' aria-labelledby='nav-alarms'>
        {alarmTypes.map((type) => <li key={type.type}><NavLink to={`/alarms/${pagePath(type)}`}>{t(type.labelKey)}</NavLink></li>)}
      </ul>
    </>
  )
  // In the phone's drawer the alarm types come right after Home, the settings pages after them: a member
  // opens the drawer for their alarms far more often than for their settings.
  const [home, ...settingsPages] = main
  return (
    <nav id='site-nav' className={open ? 'nav nav-open' : 'nav'} aria-label={t('shell.navigation')}>
      {!wide && home !== undefined && <ul className='nav-list'><li><NavLink to={home.path} end>{t(home.label)}</NavLink></li></ul>}
      {!wide && alarmList}
      {!wide && settingsPages.length > 0 && <h2 className='nav-heading' id='nav-settings'>{t('nav.settings')}</h2>}
      <ul className='nav-list' aria-labelledby={wide || settingsPages.length === 0 ? undefined : 'nav-settings'}>
        {(wide ? main : settingsPages).map((page) => <li key={page.path}><NavLink to={page.path} end>{t(page.label)}</NavLink></li>)}
        {customPage !== null && (
          <li>
            <a href={customPage.url} target='_blank' rel='noopener noreferrer'>
              {customPage.icon !== '' && <span className='nav-icon' aria-hidden='true'>{customPage.icon}</span>}
              {customPage.name}
              <span className='visually-hidden'> {t('nav.opensInNewTab')}</span>
            </a>
          </li>
        )}
      </ul>
      {wide && alarmList}
      {admin.length > 0 && (
        <>
          <h2 className='nav-heading' id='nav-admin'>{t('nav.admin')}</h2>
          <ul className='nav-list' aria-labelledby='nav-admin'>
            {admin.map((page) => <li key={page.path}><NavLink to={page.path}>{t(page.label)}</NavLink></li>)}
          </ul>
        </>
      )}
    </nav>
  )
}
