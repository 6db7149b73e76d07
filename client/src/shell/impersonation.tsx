import { useTranslation } from 'react-i18next'
import { VIEW_AS_KEY as ADMIN_TOKENS_KEY, getRefreshToken, getToken, storeTokens } from '../session'
import { useSession } from './session-context'

/** Switches this browser to `token` (an impersonation JWT) and remembers the way back. */
export function startViewingAs (token: string): void {
  const own = getToken()
  if (own !== null) localStorage.setItem(ADMIN_TOKENS_KEY, JSON.stringify({ token: own, refreshToken: getRefreshToken() }))
  storeTokens(token, null)
  window.location.assign('/')
}

function stopViewingAs (): void {
  const saved = localStorage.getItem(ADMIN_TOKENS_KEY)
  localStorage.removeItem(ADMIN_TOKENS_KEY)
  if (saved !== null) {
    const { token, refreshToken } = JSON.parse(saved) as { token: string, refreshToken: string | null }
    storeTokens(token, refreshToken)
  }
  window.location.assign('/admin/users')
}

/** Stays on top of every page while an administrator views the site as another user. */
export function ImpersonationBanner () {
  const { t } = useTranslation()
  const { user } = useSession()
  if (localStorage.getItem(ADMIN_TOKENS_KEY) === null) return null
  return (
    <div className='notice notice-warning view-as-banner' role='status'>
      <p>{t('adminUsers.viewingAs', { name: user.username })}</p>
      <div><button type='button' className='button' onClick={stopViewingAs}>{t('adminUsers.stopViewingAs')}</button></div>
    </div>
  )
}
