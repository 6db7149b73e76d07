import { useTranslation } from 'react-i18next'
import { api } from '../api'
import { VIEW_AS_KEY, getRefreshToken, getToken, storeTokens } from '../session'
import { useSession } from './session-context'

/** What is put aside while viewing as someone: one's own tokens and the page to come back to. */
interface SavedSession { token: string, refreshToken: string | null, returnTo?: string }

/**
 * Switches this browser to `token` (an impersonation JWT) and remembers the way back: one's own tokens
 * and the page this started from, so an admin returns to the users or webhooks list and a delegate to
 * "My webhooks".
 */
function startViewingAs (token: string): void {
  const own = getToken()
  if (own !== null) {
    const saved: SavedSession = { token: own, refreshToken: getRefreshToken(), returnTo: window.location.pathname }
    localStorage.setItem(VIEW_AS_KEY, JSON.stringify(saved))
  }
  storeTokens(token, null)
  window.location.assign('/')
}

/**
 * Acting as `userId`: admins as anyone, delegates as the webhooks they manage (the server decides, live).
 * Throws the server's refusal, so the page that asked shows it.
 */
export async function viewAs (userId: string): Promise<void> {
  const { token } = await api<{ token: string }>('/api/admin/impersonate', { method: 'POST', json: { userId } })
  startViewingAs(token)
}

function stopViewingAs (): void {
  const stored = localStorage.getItem(VIEW_AS_KEY)
  localStorage.removeItem(VIEW_AS_KEY)
  const saved = stored === null ? null : JSON.parse(stored) as SavedSession
  if (saved !== null) storeTokens(saved.token, saved.refreshToken)
  // Only a path of this site: the stored value is never taken as an address elsewhere.
  const back = saved?.returnTo
  window.location.assign(back !== undefined && back.startsWith('/') && !back.startsWith('//') ? back : '/')
}

/** Stays on top of every page while an administrator or a delegate views the site as another account. */
export function ImpersonationBanner () {
  const { t } = useTranslation()
  const { user } = useSession()
  if (localStorage.getItem(VIEW_AS_KEY) === null) return null
  return (
    <div className='notice notice-warning view-as-banner' role='status'>
      <p>{t('viewAs.banner', { name: user.username })}</p>
      <div><button type='button' className='button' onClick={stopViewingAs}>{t('viewAs.back')}</button></div>
    </div>
  )
}
