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
  /** Navigation section; `menu` pages are linked from the user menu instead, `hidden` ones from other pages. */
  section: 'main' | 'admin' | 'menu' | 'hidden'
  adminOnly?: boolean
  /** Listed only for people an administrator lets manage at least one webhook (admins have the admin page). */
  delegatesOnly?: boolean
  /** Left out while someone views the site as this account: its sessions are its owner's alone. */
  ownerOnly?: boolean
  /** The site switch that turns the page's feature off (`disable_*`): off, the page leaves the navigation. */
  feature?: string
  Component: LazyExoticComponent<ComponentType>
}

export const PAGES: PageEntry[] = [
  { path: '/', label: 'nav.home', section: 'main', Component: lazy(() => import('./features/dashboard/Home')) },
  { path: '/profiles', label: 'nav.profiles', section: 'main', feature: 'disable_profiles', Component: lazy(() => import('./features/profiles/Profiles')) },
  { path: '/preferences', label: 'nav.preferences', section: 'main', Component: lazy(() => import('./features/preferences/Preferences')) },
  { path: '/location', label: 'nav.location', section: 'main', feature: 'disable_location', Component: lazy(() => import('./features/location/Location')) },
  { path: '/areas', label: 'nav.areas', section: 'main', feature: 'disable_areas', Component: lazy(() => import('./features/areas/Areas')) },
  { path: '/geofences', label: 'nav.geofences', section: 'main', feature: 'disable_user_geofences', Component: lazy(() => import('./features/geofences/Geofences')) },
  { path: '/quick-picks', label: 'nav.quickPicks', section: 'main', Component: lazy(() => import('./features/quick-picks/QuickPicks')) },
  { path: '/shared', label: 'sharedSets.catalogue', section: 'main', feature: 'disable_shared_catalogue', Component: lazy(() => import('./features/shared-sets/Catalogue')) },
  { path: '/why', label: 'explanations.nav', section: 'main', Component: lazy(() => import('./features/explanations/Explanations')) },
  { path: '/my-webhooks', label: 'nav.myWebhooks', section: 'main', delegatesOnly: true, Component: lazy(() => import('./features/webhooks/MyWebhooks')) },
  { path: '/shared/mine', label: 'sharedSets.nav', section: 'hidden', feature: 'disable_sharing', Component: lazy(() => import('./features/shared-sets/MySharedSets')) },
  { path: '/s/:token', label: 'sharedSets.pageTitle', section: 'hidden', feature: 'disable_sharing', Component: lazy(() => import('./features/shared-sets/SharedSet')) },
  { path: '/devices', label: 'nav.devices', section: 'menu', ownerOnly: true, Component: lazy(() => import('./features/devices/Devices')) },
  { path: '/help', label: 'nav.help', section: 'menu', Component: lazy(() => import('./features/help/Help')) },
  { path: '/admin/users', label: 'nav.adminUsers', section: 'admin', adminOnly: true, Component: lazy(() => import('./features/admin-users/Users')) },
  { path: '/admin/webhooks', label: 'nav.adminWebhooks', section: 'admin', adminOnly: true, Component: lazy(() => import('./features/webhooks/Webhooks')) },
  { path: '/admin/geofences', label: 'nav.geofenceReview', section: 'admin', adminOnly: true, Component: lazy(() => import('./features/geofence-review/GeofenceReview')) },
  { path: '/admin/sign-in', label: 'nav.signInSettings', section: 'admin', adminOnly: true, Component: lazy(() => import('./features/sign-in-settings/SignInSettings')) },
  { path: '/admin/settings', label: 'nav.siteSettings', section: 'admin', adminOnly: true, Component: lazy(() => import('./features/site-settings/SiteSettings')) },
  { path: '/admin/insights', label: 'insights.nav', section: 'admin', adminOnly: true, Component: lazy(() => import('./features/insights/Insights')) },
  { path: '/admin/audit', label: 'nav.audit', section: 'admin', adminOnly: true, Component: lazy(() => import('./features/audit/Audit')) },
  { path: '/admin/users/edit', label: 'nav.adminUserEdit', section: 'hidden', adminOnly: true, Component: lazy(() => import('./features/admin-users/UserEdit')) }
]

/** One page serves every alarm type: `/alarms/<type path>`; the navigation lists the offered types. */
export const AlarmTypePage = lazy(() => import('./features/alarms/AlarmTypePage'))
