import { StrictMode, Suspense, lazy } from 'react'
import { createRoot } from 'react-dom/client'
import { BrowserRouter, Navigate, Route, Routes } from 'react-router'
import { startBranding } from './branding'
import { loadAppText, setUpI18n } from './i18n'
import { AlarmTypePage, PAGES } from './pages'
import { getToken, rememberReturnPath } from './session'
import { FollowOtherTabs } from './shell/FollowOtherTabs'
import { NotFound } from './shell/NotFound'
import { PageBoundary } from './shell/PageBoundary'
import { PageLoading } from './shell/PageLoading'
import { applyStoredTheme } from './theme'
import './styles.css'

applyStoredTheme()
startBranding()

const Login = lazy(() => import('./features/sign-in/Login'))
const Callback = lazy(() => import('./features/sign-in/Callback'))
// The signed-in frame (navigation, profile, menus) is not part of the sign-in path either, nor are the
// words of the pages behind it.
const Layout = lazy(async () => (await Promise.all([import('./shell/Layout'), loadAppText()]))[0])
// The installed app's part (service worker, offline and new-version line): its own small chunk after the first paint.
const AppStatus = lazy(() => import('./pwa/AppStatus'))

function RequireSession () {
  if (getToken() !== null) return <Layout />
  rememberReturnPath(window.location.pathname)
  return <Navigate to='/login' replace />
}

/**
 * Declarative routing: the pages load their own data (shell/useLoad), so the data router's loaders and
 * actions would only add weight to the first download.
 */
function App () {
  return (
    <BrowserRouter>
      <Routes>
        <Route element={<FollowOtherTabs />}>
          <Route path='/login' element={<Login />} />
          <Route path='/auth/oidc/callback' element={<Callback method='oidc' />} />
          <Route path='/auth/discord/callback' element={<Callback method='discord' />} />
          <Route path='/auth/telegram/callback' element={<Callback method='telegram' />} />
          <Route element={<RequireSession />}>
            {PAGES.map(({ path, Component }) => <Route key={path} path={path} element={<Component />} />)}
            <Route path='/alarms/:type' element={<AlarmTypePage />} />
            <Route path='*' element={<NotFound />} />
          </Route>
        </Route>
      </Routes>
    </BrowserRouter>
  )
}

const root = document.getElementById('root')
if (root === null) throw new Error('index.html has no #root element')
void setUpI18n().then(() => {
  createRoot(root).render(
    <StrictMode>
      <PageBoundary>
        <Suspense fallback={<PageLoading />}>
          <App />
        </Suspense>
        <Suspense fallback={null}>
          <AppStatus />
        </Suspense>
      </PageBoundary>
    </StrictMode>
  )
})
