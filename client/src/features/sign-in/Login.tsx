import { useEffect, useRef, useState, type MouseEvent, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { Navigate, useLocation, useSearchParams } from 'react-router'
import { auth } from '../../api'
import { Brand, loadPublicSettings } from '../../branding'
import { LanguageSelect } from '../../i18n/LanguageSelect'
import { boundSignInUrl, clearSession, getToken } from '../../session'
import { usePageTitle } from '../../shell/usePageTitle'
import type { Providers } from '../../types'

/** The codes the server puts in `/login#error=<code>` when a sign-in is refused (each has a message). */
const KNOWN_ERRORS = new Set([
  'oidc_disabled', 'oidc_invalid_state', 'oidc_provider_error', 'oidc_token_exchange_failed', 'oidc_userinfo_failed',
  'oidc_no_identity', 'discord_disabled', 'discord_user_fetch_failed', 'token_exchange_failed', 'missing_code',
  'user_not_registered', 'not_in_guild', 'missing_required_role', 'role_check_failed', 'engine_unavailable',
  'account_blocked', 'telegram_disabled', 'telegram_failed', 'server_error'
])

/** If the options cannot be loaded, offer the chat-platform sign-in so nobody is locked out. */
const FALLBACK: Providers = {
  oidc: { configured: false, enabledByAdmin: false, providerName: '', endSession: false, refresh: false },
  discord: { configured: true, enabledByAdmin: true },
  telegram: { configured: false, enabledByAdmin: false, botUsername: '' }
}

/** Telegram's login widget: a script that draws the button in an iframe from oauth.telegram.org. */
const TELEGRAM_WIDGET = 'https://telegram.org/js/telegram-widget.js?22'

type State = { status: 'loading' } | { status: 'ready', providers: Providers, failed: boolean }

export default function Login () {
  const { t } = useTranslation()
  const { hash } = useLocation()
  const [search] = useSearchParams()
  const error = new URLSearchParams(hash.slice(1)).get('error')
  const loggedOut = search.get('loggedout') === '1'
  const [state, setState] = useState<State>({ status: 'loading' })
  usePageTitle(t('login.title'))

  useEffect(() => {
    // A refused sign-in leaves nothing usable behind.
    if (error !== null) clearSession()
  }, [error])

  useEffect(() => {
    const controller = new AbortController()
    const timeout = setTimeout(() => { controller.abort() }, 10_000)
    auth.providers(controller.signal)
      .then((providers) => { setState({ status: 'ready', providers, failed: false }) })
      .catch(() => { setState({ status: 'ready', providers: FALLBACK, failed: true }) })
      .finally(() => { clearTimeout(timeout) })
    return () => { controller.abort() }
  }, [])

  const sso = state.status === 'ready' && state.providers.oidc.configured && state.providers.oidc.enabledByAdmin
  const redirecting = sso && error === null && !loggedOut

  useEffect(() => {
    // SSO sites skip this page, except to show a refused sign-in (no retry loop) or the signed-out notice.
    if (redirecting) window.location.assign(boundSignInUrl(auth.OIDC_LOGIN_URL))
  }, [redirecting])

  if (error === null && !loggedOut && getToken() !== null) return <Navigate to='/' replace />

  return (
    <main id='main' className='page page-narrow'>
      <div className='login-brand'><Brand /></div>
      <section className='card'>
        <h1>{t('login.title')}</h1>
        {error !== null && (
          <div className='notice notice-error' role='alert'>
            <p>{KNOWN_ERRORS.has(error) ? t(`login.errors.${error}`) : t('login.errors.unknown', { code: error })}</p>
            {sso && <p className='small'>{t('login.ssoRefusedHelp')}</p>}
          </div>
        )}
        {loggedOut && error === null && <p className='notice' role='status'>{t('login.signedOut')}</p>}
        {state.status === 'loading' || redirecting
          ? <p className='muted' role='status'>{redirecting ? t('login.redirecting') : t('login.loadingOptions')}</p>
          : <SignInOptions providers={state.providers} failed={state.failed} />}
      </section>
      <div className='login-language'>
        <LanguageSelect loadSettings={loadPublicSettings} />
      </div>
    </main>
  )
}

function SignInOptions ({ providers, failed }: { providers: Providers, failed: boolean }) {
  const { t } = useTranslation()
  const { oidc, discord, telegram } = providers
  const telegramOffered = telegram.configured && telegram.botUsername !== ''
  if (!oidc.configured && !discord.configured && !telegramOffered) {
    return <p className='muted'>{t('login.noMethods')}</p>
  }
  // The method the site uses comes first; one kept for administrators follows.
  const ssoFirst = oidc.configured && oidc.enabledByAdmin
  const sso = oidc.configured && (
    <ProviderButton key='oidc' href={auth.OIDC_LOGIN_URL} primary={ssoFirst || !discord.configured} adminOnly={!oidc.enabledByAdmin}>
      {t('login.withProvider', { provider: oidc.providerName === '' ? t('login.sso') : oidc.providerName })}
    </ProviderButton>
  )
  const chat = discord.configured && (
    <ProviderButton key='discord' href={auth.DISCORD_LOGIN_URL} primary={!ssoFirst} adminOnly={!discord.enabledByAdmin}>
      {t('login.withProvider', { provider: 'Discord' })}
    </ProviderButton>
  )
  const widget = telegramOffered && (
    <div key='telegram' className='stack-tight'>
      <TelegramWidget botUsername={telegram.botUsername} />
      {!telegram.enabledByAdmin && <span className='muted small'>{t('login.adminOnly')}</span>}
    </div>
  )
  return (
    <div className='stack'>
      {failed && <p className='muted'>{t('login.optionsFailed')}</p>}
      {ssoFirst ? [sso, chat, widget] : [chat, widget, sso]}
    </div>
  )
}

interface ProviderButtonProps { href: string, primary: boolean, adminOnly: boolean, children: ReactNode }

/**
 * Sign-in is a full-page navigation: the server redirects on to the provider. The address gets this
 * tab's binding value when followed (session.ts `boundSignInUrl`), so the callback knows the tab started it.
 */
function ProviderButton ({ href, primary, adminOnly, children }: ProviderButtonProps) {
  const { t } = useTranslation()
  const start = (event: MouseEvent<HTMLAnchorElement>) => {
    event.preventDefault()
    window.location.assign(boundSignInUrl(href))
  }
  return (
    <div className='stack-tight'>
      <a className={primary ? 'button button-primary' : 'button'} href={href} onClick={start}>{children}</a>
      {adminOnly && <span className='muted small'>{t('login.adminOnly')}</span>}
    </div>
  )
}

/**
 * Telegram's widget in redirect mode (`data-auth-url`): after the member confirms in Telegram, the
 * browser comes back to /auth/telegram/callback with the signed fields in the query, which that page
 * posts to the API. A callback function instead would need the CSP to allow evaluated script.
 */
function TelegramWidget ({ botUsername }: { botUsername: string }) {
  const { t } = useTranslation()
  const container = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const host = container.current
    if (host === null) return
    const script = document.createElement('script')
    script.async = true
    script.src = TELEGRAM_WIDGET
    script.dataset.telegramLogin = botUsername
    script.dataset.size = 'large'
    script.dataset.authUrl = `${window.location.origin}/auth/telegram/callback`
    script.dataset.requestAccess = 'write'
    host.replaceChildren(script)
    return () => { host.replaceChildren() }
  }, [botUsername])
  return <div ref={container} className='telegram-widget' aria-label={t('login.withProvider', { provider: 'Telegram' })} role='group' />
}
