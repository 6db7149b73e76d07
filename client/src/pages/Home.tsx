import { useEffect, useState } from 'react'
import { api, ApiError, signOut } from '../api'
import { getRefreshToken, storeTokens } from '../session'
import type { User } from '../types'

type State = { status: 'loading' } | { status: 'ready', user: User } | { status: 'failed', message: string }

export function Home () {
  const [state, setState] = useState<State>({ status: 'loading' })
  const [signingOut, setSigningOut] = useState(false)

  useEffect(() => {
    const controller = new AbortController()
    api<User>('/api/auth/me', { signal: controller.signal })
      .then((user) => {
        // The active profile changed outside this site: the server re-issued the JWT to match.
        if (user.token !== undefined) storeTokens(user.token, getRefreshToken())
        setState({ status: 'ready', user })
      })
      .catch((err: unknown) => {
        if (controller.signal.aborted) return
        setState({ status: 'failed', message: err instanceof ApiError ? err.message : 'Something went wrong.' })
      })
    return () => { controller.abort() }
  }, [])

  const onSignOut = (): void => {
    setSigningOut(true)
    void signOut()
  }

  return (
    <main className='page'>
      <section className='card'>
        {state.status === 'loading' && <p className='muted'>Loading your account…</p>}
        {state.status === 'failed' && <p className='notice notice-error' role='alert'>{state.message}</p>}
        {state.status === 'ready' && <UserCard user={state.user} />}
        <button type='button' className='button' onClick={onSignOut} disabled={signingOut}>
          {signingOut ? 'Signing out…' : 'Sign out'}
        </button>
      </section>
    </main>
  )
}

function UserCard ({ user }: { user: User }) {
  return (
    <div className='user'>
      {user.avatarUrl !== null && user.avatarUrl !== '' && (
        <img className='avatar' src={user.avatarUrl} alt='' width={56} height={56} referrerPolicy='no-referrer' />
      )}
      <div>
        <h1 className='user-name'>{user.username}</h1>
        <p className='muted small'>
          {user.profileName !== null && user.profileName !== '' ? `Profile: ${user.profileName}` : `Id ${user.id}`}
          {user.isAdmin && <span className='badge'>Admin</span>}
        </p>
      </div>
    </div>
  )
}
