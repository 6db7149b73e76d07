import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useLocation, useNavigate } from 'react-router'
import { ApiError, auth } from '../../api'
import { startSession, takeReturnPath, takeSignInBinding, type SignInMethod } from '../../session'
import { usePageTitle } from '../../shell/usePageTitle'

/** The Telegram widget's fields, as it appends them to the return address. */
const TELEGRAM_FIELDS = ['id', 'first_name', 'last_name', 'username', 'photo_url', 'auth_date', 'hash']

/** Refusals of POST /api/auth/telegram/verify, as the login page's error codes. */
function telegramErrorCode (err: unknown): string {
  if (!(err instanceof ApiError)) return 'telegram_failed'
  if (err.status === 403 && /not registered/i.test(err.message)) return 'user_not_registered'
  if (err.status === 403 && /blocked/i.test(err.message)) return 'account_blocked'
  if (err.status === 503) return 'engine_unavailable'
  if (err.status === 400 && /disabled/i.test(err.message)) return 'telegram_disabled'
  return 'telegram_failed'
}

/**
 * Where the browser lands after a sign-in elsewhere. OIDC and the chat platform put the tokens in the
 * fragment (`#token=…[&refresh_token=…]`) so they never reach a server log; Telegram's widget puts its
 * signed fields in the query, which are exchanged for a token here. Either way the address is replaced,
 * so nothing sensitive stays in the browser history.
 */
export default function Callback ({ method }: { method: SignInMethod }) {
  const { t } = useTranslation()
  const { hash, search } = useLocation()
  const navigate = useNavigate()
  const [missing, setMissing] = useState(false)
  const [foreign, setForeign] = useState(false)
  usePageTitle(t('login.title'))

  useEffect(() => {
    const failed = (code: string): void => { void navigate(`/login#error=${encodeURIComponent(code)}`, { replace: true }) }
    if (method === 'telegram') {
      const query = new URLSearchParams(search)
      if (!query.has('id') || !query.has('hash')) {
        setMissing(true)
        return
      }
      const fields = Object.fromEntries(TELEGRAM_FIELDS.filter((f) => query.has(f)).map((f) => [f, query.get(f) ?? '']))
      // The address holds the signed fields: drop them from history before anything else happens.
      window.history.replaceState(null, '', '/auth/telegram/callback')
      auth.telegramVerify(fields)
        .then(({ token }) => {
          startSession('telegram', token, null)
          void navigate(takeReturnPath(), { replace: true })
        })
        .catch((err: unknown) => { failed(telegramErrorCode(err)) })
      return
    }
    const params = new URLSearchParams(hash.slice(1))
    const token = params.get('token')
    const error = params.get('error')
    if (token !== null && token !== '') {
      // A sign-in this tab did not start (a link carrying someone else's tokens): nothing is stored, and
      // the tokens leave the address and the history at once.
      if (!takeSignInBinding(params.get('binding'))) {
        window.history.replaceState(null, '', window.location.pathname)
        setForeign(true)
        return
      }
      startSession(method, token, params.get('refresh_token') || null)
      void navigate(takeReturnPath(), { replace: true })
    } else if (error !== null) {
      failed(error)
    } else {
      setMissing(true)
    }
  }, [hash, search, method, navigate])

  return (
    <main id='main' className='page page-narrow'>
      <section className='card'>
        {missing || foreign
          ? (
            <>
              <h1>{t('callback.incomplete')}</h1>
              <p className='notice notice-error' role='alert'>{t(foreign ? 'callback.notStartedHere' : 'callback.noToken')}</p>
              <Link className='button button-primary' to='/login'>{t('callback.back')}</Link>
            </>
            )
          : <p className='muted' role='status'>{t('callback.signingIn')}</p>}
      </section>
    </main>
  )
}
