import { createContext, useCallback, useContext, useEffect, useMemo, useRef, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { alarms, auth, signOut } from '../api'
import type { AlarmTypeDescriptor } from '../alarm-types'
import { announceSettingsChange, onSettingsChange } from '../cross-tab'
import { loadSiteSettings } from '../pickers/game-data'
import { getRefreshToken, storeTokens } from '../session'
import type { User } from '../types'
import { Status } from './Status'
import { useLoad } from './useLoad'

interface SessionValue {
  user: User
  /** Alarm types this site offers right now. */
  alarmTypes: AlarmTypeDescriptor[]
  /** All ten, the ones not offered with their reason. */
  allAlarmTypes: AlarmTypeDescriptor[]
  /** The site settings a member may read (feature switches, links, language list), by key. */
  settings: ReadonlyMap<string, string | null>
  /** Takes over a setting an admin just saved, so the navigation follows without a reload. */
  setSetting: (key: string, value: string | null) => void
  /** Reads /me again (after a profile switch, a pause, an impersonation). */
  reload: () => void
  /** Replaces the user without a round trip, when an answer already said what changed. */
  update: (change: Partial<User>) => void
}

const SessionContext = createContext<SessionValue | null>(null)

interface Loaded { user: User, alarmTypes: AlarmTypeDescriptor[], allAlarmTypes: AlarmTypeDescriptor[], settings: ReadonlyMap<string, string | null> }

const offered = (allAlarmTypes: AlarmTypeDescriptor[]): Pick<Loaded, 'alarmTypes' | 'allAlarmTypes'> =>
  ({ alarmTypes: allAlarmTypes.filter((type) => type.available), allAlarmTypes })

async function loadSession (signal: AbortSignal): Promise<Loaded> {
  const user = await auth.me(signal)
  // The active profile changed outside this site: the server re-issued the JWT to match.
  if (user.token !== undefined) storeTokens(user.token, getRefreshToken())
  // Without the settings the site still works, with every feature shown: the server refuses what is off.
  const [allAlarmTypes, rows] = await Promise.all([alarms.types(signal), loadSiteSettings().catch(() => [])])
  return { user, ...offered(allAlarmTypes), settings: new Map(rows.map((row) => [row.key, row.value])) }
}

/** Loads the signed-in user once for every page of the shell. */
export function SessionProvider ({ children }: { children: ReactNode }) {
  const [state, reload, replace] = useLoad(loadSession)
  const update = useCallback((change: Partial<User>) => {
    if (state.status !== 'ready') return
    replace({ ...state.data, user: { ...state.data.user, ...change } })
  }, [state, replace])
  // The alarm types are read with the session; a type switched off or back on (by an admin here, in
  // another tab, or on another device while this tab was hidden) is read again, so the navigation follows
  // without a reload. The latest state is reached through a ref: the answer lands on what is current then.
  const latest = useRef(state)
  useEffect(() => { latest.current = state })
  const refreshTypes = useCallback(() => {
    void alarms.types().then((allAlarmTypes) => {
      const now = latest.current
      if (now.status === 'ready') replace({ ...now.data, ...offered(allAlarmTypes) })
    }, () => undefined)
  }, [replace])
  useEffect(() => {
    const shown = (): void => { if (document.visibilityState === 'visible') refreshTypes() }
    document.addEventListener('visibilitychange', shown)
    const unsubscribe = onSettingsChange(refreshTypes)
    return () => { document.removeEventListener('visibilitychange', shown); unsubscribe() }
  }, [refreshTypes])
  const setSetting = useCallback((key: string, value: string | null) => {
    if (state.status !== 'ready') return
    replace({ ...state.data, settings: new Map(state.data.settings).set(key, value) })
    announceSettingsChange()
    if (state.data.allAlarmTypes.some((type) => type.disableKey === key)) refreshTypes()
  }, [state, replace, refreshTypes])
  const value = useMemo(() => state.status === 'ready' ? { ...state.data, reload, update, setSetting } : null, [state, reload, update, setSetting])
  if (state.status === 'failed') return <SessionUnavailable message={state.message} code={state.code} retry={reload} />
  return (
    <Status state={state} retry={reload}>
      {() => value !== null && <SessionContext.Provider value={value}>{children}</SessionContext.Provider>}
    </Status>
  )
}

/**
 * Without the signed-in user no page can be drawn (the user comes from the alarm engine): a page of its
 * own says so in the reader's language, keeps the server's sentence as the detail, and offers to try
 * again or to sign out, instead of a bare error box on an empty screen.
 */
function SessionUnavailable ({ message, code, retry }: { message: string, code: number, retry: () => void }) {
  const { t } = useTranslation()
  const outage = code === 0 || code >= 500
  return (
    <main id='main' className='page page-narrow'>
      <section className='card' role='alert'>
        <h1>{t(outage ? 'shell.unavailable.outageTitle' : 'shell.unavailable.title')}</h1>
        <p>{t(outage ? 'shell.unavailable.outage' : 'shell.unavailable.text')}</p>
        <p className='small muted'>{message}</p>
        <div className='row'>
          <button type='button' className='button button-primary' onClick={retry}>{t('status.retry')}</button>
          <button type='button' className='button' onClick={() => { void signOut() }}>{t('userMenu.signOut')}</button>
        </div>
      </section>
    </main>
  )
}

/** A feature is off when its `disable_*` switch is exactly "true", as the server reads it. */
export const featureOff = (settings: ReadonlyMap<string, string | null>, disableKey: string): boolean => settings.get(disableKey) === 'true'

export function useSession (): SessionValue {
  const value = useContext(SessionContext)
  if (value === null) throw new Error('useSession is used outside SessionProvider')
  return value
}
