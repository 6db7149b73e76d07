import { createContext, useCallback, useContext, useMemo, type ReactNode } from 'react'
import { api } from '../api'
import { loadAlarmTypes, type AlarmTypeDescriptor } from '../alarm-types'
import { getRefreshToken, storeTokens } from '../session'
import type { User } from '../types'
import { Status } from './Status'
import { useLoad } from './useLoad'

interface SessionValue {
  user: User
  /** Alarm types this site offers right now. */
  alarmTypes: AlarmTypeDescriptor[]
  /** Reads /me again (after a profile switch, a pause, an impersonation). */
  reload: () => void
  /** Replaces the user without a round trip, when an answer already said what changed. */
  update: (change: Partial<User>) => void
}

const SessionContext = createContext<SessionValue | null>(null)

interface Loaded { user: User, alarmTypes: AlarmTypeDescriptor[] }

async function loadSession (signal: AbortSignal): Promise<Loaded> {
  const user = await api<User>('/api/auth/me', { signal })
  // The active profile changed outside this site: the server re-issued the JWT to match.
  if (user.token !== undefined) storeTokens(user.token, getRefreshToken())
  return { user, alarmTypes: await loadAlarmTypes(signal) }
}

/** Loads the signed-in user once for every page of the shell. */
export function SessionProvider ({ children }: { children: ReactNode }) {
  const [state, reload, replace] = useLoad(loadSession)
  const update = useCallback((change: Partial<User>) => {
    if (state.status !== 'ready') return
    replace({ ...state.data, user: { ...state.data.user, ...change } })
  }, [state, replace])
  const value = useMemo(() => state.status === 'ready' ? { ...state.data, reload, update } : null, [state, reload, update])
  return (
    <Status state={state} retry={reload}>
      {() => value !== null && <SessionContext.Provider value={value}>{children}</SessionContext.Provider>}
    </Status>
  )
}

export function useSession (): SessionValue {
  const value = useContext(SessionContext)
  if (value === null) throw new Error('useSession is used outside SessionProvider')
  return value
}
