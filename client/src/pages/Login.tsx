import { useEffect, useState, type ReactNode } from 'react'
import { Navigate, useLocation, useSearchParams } from 'react-router'
import { publicApi } from '../api'
import { clearSession, getToken } from '../session'
import type { Providers } from '../types'

/** The codes the server puts in `/login#error=<code>` when a sign-in is refused. */
const ERROR_MESSAGES: Record<string, string> = {
  oidc_disabled: 'Single sign-on is turned off on this site.',
  oidc_invalid_state: 'The sign-in expired or was started in another tab. Please try again.',
  oidc_provider_error: 'The sign-in provider reported a problem. Please try again.',
  oidc_token_exchange_failed: 'The sign-in provider did not confirm your sign-in. Please try again.',
  oidc_userinfo_failed: 'Your profile could not be read from the sign-in provider. Please try again.',
  oidc_no_identity: 'The sign-in provider did not say who you are. Please tell an administrator.',
  discord_disabled: 'Signing in with Discord is turned off on this site.',
  discord_user_fetch_failed: 'Your Discord profile could not be read. Please try again.',
  token_exchange_failed: 'Discord did not confirm your sign-in. Please try again.',
  missing_code: 'The sign-in was cancelled or did not finish. Please try again.',
  user_not_registered: 'You are not registered with the alert bot yet. Register with the bot first, then sign in again.',
  not_in_guild: 'You need to be a member of the community server to sign in.',
  missing_required_role: 'Your account does not have a role that is allowed to sign in.',
  role_check_failed: 'Your roles could not be checked right now. Please try again in a few minutes.',
  engine_unavailable: 'The alert service is not reachable right now. Please try again in a few minutes.',
  account_blocked: 'This account has been blocked by an administrator.'
}

const errorMessage = (code: string): string => ERROR_MESSAGES[code] ?? `Sign-in failed (${code}).`

/** If the options cannot be loaded, offer the chat-platform sign-in so nobody is locked out. */
const FALLBACK: Providers = {
  oidc: { configured: false, enabledByAdmin: false, providerName: '', endSession: false, refresh: false },
  discord: { configured: true, enabledByAdmin: true },
  telegram: { configured: false, enabledByAdmin: false, botUsername: '' }
}

type State = { status: 'loading' } | { status: 'ready', providers: Providers, failed: boolean }

export function Login () {
  const { hash } = useLocation()
  const [search] = useSearchParams()
  const error = new URLSearchParams(hash.slice(1)).get('error')
  const loggedOut = search.get('loggedout') === '1'
  const [state, setState] = useState<State>({ status: 'loading' })

  useEffect(() => {
    // A refused sign-in leaves nothing usable behind.
    if (error !== null) clearSession()
  }, [error])

  useEffect(() => {
    const controller = new AbortController()
    const timeout = setTimeout(() => { controller.abort() }, 10_000)
    publicApi<Providers>('/api/auth/providers', { signal: controller.signal })
      .then((providers) => { setState({ status: 'ready', providers, failed: false }) })
      .catch(() => { setState({ status: 'ready', providers: FALLBACK, failed: true }) })
      .finally(() => { clearTimeout(timeout) })
    return () => { controller.abort() }
  }, [])

  const sso = state.status === 'ready' && state.providers.oidc.configured && state.providers.oidc.enabledByAdmin
  const redirecting = sso && error === null && !loggedOut

  useEffect(() => {
    // SSO sites skip this page, except to show a refused sign-in or the signed-out notice.
    if (redirecting) window.location.assign('/api/auth/oidc/login')
  }, [redirecting])

  if (error === null && !loggedOut && getToken() !== null) return <Navigate to='/' replace />

  return (
    <main className='page page-narrow'>
      <section className='card'>
        <h1>Sign in</h1>
        {error !== null && <p className='notice notice-error' role='alert'>{errorMessage(error)}</p>}
        {loggedOut && error === null && <p className='notice' role='status'>You have been signed out.</p>}
        {state.status === 'loading' || redirecting
          ? <p className='muted'>{redirecting ? 'Redirecting to sign-in…' : 'Loading sign-in options…'}</p>
          : <SignInOptions providers={state.providers} failed={state.failed} />}
      </section>
    </main>
  )
}

function SignInOptions ({ providers, failed }: { providers: Providers, failed: boolean }) {
  const { oidc, discord } = providers
  if (!oidc.configured && !discord.configured) {
    return <p className='muted'>No sign-in method is set up on this site yet.</p>
  }
  // The method the site uses comes first; one kept for administrators follows.
  const ssoFirst = oidc.configured && oidc.enabledByAdmin
  const sso = oidc.configured && (
    <ProviderButton key='oidc' href='/api/auth/oidc/login' primary={ssoFirst || !discord.configured} adminOnly={!oidc.enabledByAdmin}>
      Sign in with {oidc.providerName === '' ? 'single sign-on' : oidc.providerName}
    </ProviderButton>
  )
  const chat = discord.configured && (
    <ProviderButton key='discord' href='/api/auth/discord/login' primary={!ssoFirst} adminOnly={!discord.enabledByAdmin}>
      Sign in with Discord
    </ProviderButton>
  )
  return (
    <div className='stack'>
      {failed && <p className='muted'>The sign-in options could not be loaded.</p>}
      {ssoFirst ? [sso, chat] : [chat, sso]}
    </div>
  )
}

interface ProviderButtonProps { href: string, primary: boolean, adminOnly: boolean, children: ReactNode }

/** Sign-in is a full-page navigation: the server redirects on to the provider. */
function ProviderButton ({ href, primary, adminOnly, children }: ProviderButtonProps) {
  return (
    <div className='stack-tight'>
      <a className={primary ? 'button button-primary' : 'button'} href={href}>{children}</a>
      {adminOnly && <span className='muted small'>Turned off for everyone except administrators.</span>}
    </div>
  )
}
