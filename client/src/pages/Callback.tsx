import { useEffect, useState } from 'react'
import { Link, useLocation, useNavigate } from 'react-router'
import { startSession, type SignInMethod } from '../session'

/**
 * Where the server sends the browser after a successful sign-in, with the tokens in the fragment
 * (`#token=…[&refresh_token=…]`) so they never reach a server log. Stores them and replaces this
 * history entry, so the tokens do not stay in the browser history either.
 */
export function Callback ({ method }: { method: SignInMethod }) {
  const { hash } = useLocation()
  const navigate = useNavigate()
  const [missing, setMissing] = useState(false)

  useEffect(() => {
    const params = new URLSearchParams(hash.slice(1))
    const token = params.get('token')
    const error = params.get('error')
    if (token !== null && token !== '') {
      startSession(method, token, params.get('refresh_token') || null)
      void navigate('/', { replace: true })
    } else if (error !== null) {
      void navigate(`/login#error=${encodeURIComponent(error)}`, { replace: true })
    } else {
      setMissing(true)
    }
  }, [hash, method, navigate])

  return (
    <main className='page page-narrow'>
      <section className='card'>
        {missing
          ? (
            <>
              <h1>Sign-in incomplete</h1>
              <p className='notice notice-error' role='alert'>No sign-in token was received.</p>
              <Link className='button button-primary' to='/login'>Back to sign-in</Link>
            </>
            )
          : <p className='muted'>Signing you in…</p>}
      </section>
    </main>
  )
}
