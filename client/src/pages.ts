import { lazy, type ComponentType, type LazyExoticComponent } from 'react'

/**
 * Every page of the signed-in app, in navigation order. Each page is its own lazily loaded chunk, so
 * the sign-in path never downloads them and a new page does not grow the others. The router and the
 * navigation are both built from this list: adding a page is adding an entry here.
 */
export interface PageEntry {
  path: string
  /** i18n key of its navigation label (also the start of its page title). */
  label: string
  /** Navigation section. */
  section: 'main' | 'admin'
  adminOnly?: boolean
  Component: LazyExoticComponent<ComponentType>
}

export const PAGES: PageEntry[] = [
  { path: '/', label: 'nav.home', section: 'main', Component: lazy(() => import('./pages/Home')) },
  { path: '/admin/sign-in', label: 'nav.signInSettings', section: 'admin', adminOnly: true, Component: lazy(() => import('./pages/admin/SignInSettings')) }
]

/** One page serves every alarm type: `/alarms/<type path>`; the navigation lists the offered types. */
export const AlarmTypePage = lazy(() => import('./pages/alarms/AlarmTypePage'))
