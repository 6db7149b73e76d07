import { useEffect } from 'react'
import { Outlet, useLocation, useNavigate } from 'react-router'
import { onOtherTabSignInChange } from '../session'

/** Follows sign-ins and sign-outs made in other tabs of the same browser. */
export function FollowOtherTabs () {
  const navigate = useNavigate()
  const { pathname } = useLocation()

  useEffect(() => onOtherTabSignInChange((signedIn) => {
    if (!signedIn && pathname !== '/login') void navigate('/login?loggedout=1', { replace: true })
    if (signedIn && pathname === '/login') void navigate('/', { replace: true })
  }), [navigate, pathname])

  return <Outlet />
}
