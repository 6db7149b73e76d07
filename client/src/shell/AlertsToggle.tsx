import { useTranslation } from 'react-i18next'
import { auth } from '../api'
import { useSession } from './session-context'
import { useSubmit } from '../forms/useSubmit'

/** Pauses or resumes the user's alert delivery (POST /api/auth/alerts/toggle). */
export function AlertsToggle () {
  const { t } = useTranslation()
  const { user, update } = useSession()
  const { busy, error, run } = useSubmit()
  const toggle = () => run(async () => {
    const { enabled } = await auth.toggleAlerts()
    update({ enabled })
  })

  return (
    <div className='alerts-toggle'>
      <button
        type='button'
        className={user.enabled ? 'button' : 'button button-warning'}
        aria-pressed={!user.enabled}
        disabled={busy}
        onClick={() => { void toggle() }}
      >
        {user.enabled ? t('alerts.pause') : t('alerts.resume')}
      </button>
      <span className='visually-hidden' role='status'>{user.enabled ? t('alerts.on') : t('alerts.paused')}</span>
      {error !== null && <p className='notice notice-error popover-note' role='alert'>{error}</p>}
    </div>
  )
}
