import { StrictMode, useEffect, type ReactNode } from 'react'
import { createRoot } from 'react-dom/client'
import { createBrowserRouter, Link, Navigate, Outlet, useLocation, useNavigate } from 'react-router'
import { RouterProvider } from 'react-router/dom'
import { Callback } from './pages/Callback'
import { Home } from './pages/Home'
import { Login } from './pages/Login'
import { getToken, onOtherTabSignInChange } from './session'
import './styles.css'

/** The frame of every page; also follows sign-ins and sign-outs made in other tabs. */
function Shell () {
  const navigate = useNavigate()
  const { pathname } = useLocation()

  useEffect(() => onOtherTabSignInChange((signedIn) => {
    if (!signedIn && pathname !== '/login') void navigate('/login?loggedout=1', { replace: true })
    if (signedIn && pathname === '/login') void navigate('/', { replace: true })
  }), [navigate, pathname])

  return (
    <>
      <header className='topbar'>
        <Link to='/' className='brand'>Alarms</Link>
      </header>
      <Outlet />
    </>
  )
}

function RequireSession ({ children }: { children: ReactNode }) {
  return getToken() === null ? <Navigate to='/login' replace /> : children
}

function NotFound () {
  return (
    <main className='page page-narrow'>
      <section className='card'>
        <h1>Page not found</h1>
        <Link className='button' to='/'>Go to the start page</Link>
      </section>
    </main>
  )
}

const router = createBrowserRouter([
  {
    element: <Shell />,
    children: [
      { path: '/', element: <RequireSession><Home /></RequireSession> },
      { path: '/login', element: <Login /> },
      { path: '/auth/oidc/callback', element: <Callback method='oidc' /> },
      { path: '/auth/discord/callback', element: <Callback method='discord' /> },
      { path: '*', element: <NotFound /> }
    ]
  }
])

const root = document.getElementById('root')
if (root === null) throw new Error('index.html has no #root element')
createRoot(root).render(<StrictMode><RouterProvider router={router} /></StrictMode>)
