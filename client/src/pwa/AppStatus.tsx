import { useTranslation } from 'react-i18next'
import { reloadToUpdate, useAppState } from './app-state'
import './app-status.css'

/**
 * The app shell's line at the bottom of every page, signed in or not: "offline" while the browser has
 * no network (the pages shown are the kept app, their data may be old, saving waits), and a new version
 * with its "Reload" button. Announced politely: neither interrupts what the member is doing.
 */
export default function AppStatus () {
  const { t } = useTranslation()
  const { offline, updateReady } = useAppState()
  return (
    <div className='app-status' role='status' aria-live='polite'>
      {offline && <p className='app-status-line app-status-offline'>{t('app.offline')}</p>}
      {updateReady && (
        <p className='app-status-line'>
          <span>{t('app.updateReady')}</span>
          <button type='button' className='button button-small' onClick={reloadToUpdate}>{t('app.reload')}</button>
        </p>
      )}
    </div>
  )
}
