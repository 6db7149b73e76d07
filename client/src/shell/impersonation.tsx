import { useTranslation } from 'react-i18next'
import { admin } from '../api'
import { VIEW_AS_KEY, clearSession, getRefreshToken, getToken, storeTokens } from '../session'
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
  const { token } = await admin.impersonate(userId)
  startViewingAs(token)
}

/** The session put aside by startViewingAs, or null when it is missing or not what was stored. */
function savedSession (): SavedSession | null {
  try {
    const saved: unknown = JSON.parse(localStorage.getItem(VIEW_AS_KEY) ?? 'null')
    return typeof saved === 'object' && saved !== null && typeof (saved as SavedSession).token === 'string' ? saved as SavedSession : null
  } catch {
    return null
  }
}

function stopViewingAs (): void {
  const saved = savedSession()
  localStorage.removeItem(VIEW_AS_KEY)
  // Without one's own tokens there is no way back but signing in again: the borrowed session must not stay.
  if (saved === null) {
    clearSession()
    window.location.assign('/login')
    return
  }
  storeTokens(saved.token, saved.refreshToken)
  // Only a path of this site: the stored value is never taken as an address elsewhere.
  const back = saved.returnTo
  window.location.assign(typeof back === 'string' && back.startsWith('/') && !back.startsWith('//') ? back : '/')
}

/** Whether this browser views the site as another account (its own tokens are put aside). */
export const viewingAs = (): boolean => localStorage.getItem(VIEW_AS_KEY) !== null

/** Stays on top of every page while an administrator or a delegate views the site as another account. */
export function ImpersonationBanner () {
  const { t } = useTranslation()
  const { user } = useSession()
  if (!viewingAs()) return null
  return (
    <div className='notice notice-warning view-as-banner' role='status'>
      <p>{t('viewAs.banner', { name: user.username })}</p>
      <div><button type='button' className='button' onClick={stopViewingAs}>{t('viewAs.back')}</button></div>
    </div>
  )
}
