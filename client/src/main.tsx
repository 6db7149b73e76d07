import { StrictMode, Suspense, lazy } from 'react'
import { createRoot } from 'react-dom/client'
import { createBrowserRouter, Navigate } from 'react-router'
import { RouterProvider } from 'react-router/dom'
import { setUpI18n } from './i18n'
import { AlarmTypePage, PAGES } from './pages'
import { getToken } from './session'
import { FollowOtherTabs } from './shell/FollowOtherTabs'
import { NotFound } from './shell/NotFound'
import { PageLoading } from './shell/PageLoading'
import { applyStoredTheme } from './theme'
import './styles.css'

applyStoredTheme()

const Login = lazy(() => import('./pages/Login'))
const Callback = lazy(() => import('./pages/Callback'))
// The signed-in frame (navigation, profile, menus) is not part of the sign-in path either.
const Layout = lazy(() => import('./shell/Layout'))

function RequireSession () {
  return getToken() === null ? <Navigate to='/login' replace /> : <Layout />
}

const router = createBrowserRouter([
  {
    element: <FollowOtherTabs />,
    children: [
      { path: '/login', element: <Login /> },
      { path: '/auth/oidc/callback', element: <Callback method='oidc' /> },
      { path: '/auth/discord/callback', element: <Callback method='discord' /> },
      { path: '/auth/telegram/callback', element: <Callback method='telegram' /> },
      {
        element: <RequireSession />,
        children: [
          ...PAGES.map(({ path, Component }) => ({ path, element: <Component /> })),
          { path: '/alarms/:type', element: <AlarmTypePage /> },
          { path: '*', element: <NotFound /> }
        ]
      }
    ]
  }
])

const root = document.getElementById('root')
if (root === null) throw new Error('index.html has no #root element')
void setUpI18n().then(() => {
  createRoot(root).render(
    <StrictMode>
      <Suspense fallback={<PageLoading />}>
        <RouterProvider router={router} />
      </Suspense>
    </StrictMode>
  )
})
