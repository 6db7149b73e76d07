import { useTranslation } from 'react-i18next'
import { Page } from '../../components/Page'
import { admin } from '../../api'
import { useSubmit } from '../../forms/useSubmit'
import { viewAs } from '../../shell/impersonation'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'
import { stateKey } from '../../webhook-state'
import '../../forms/forms.css'
import './webhooks.css'

/**
 * The webhooks an administrator lets this person manage. "Manage alarms" views the site as the webhook;
 * the banner's way back returns here. Access is checked live on the server, so a list that was loaded
 * before a grant was revoked shows the refusal instead of switching.
 */
export default function MyWebhooks () {
  const { t } = useTranslation()
  usePageTitle(t('nav.myWebhooks'))
  const [state, retry] = useLoad((signal) => admin.myWebhooks(signal))
  const { busy, error, run } = useSubmit()
  return (
    <Page title={t('myWebhooks.title')} intro={t('myWebhooks.intro')} error={error}>
      <Status state={state} retry={retry}>
        {(webhooks) => webhooks.length === 0
          ? <p className='muted'>{t('myWebhooks.none')}</p>
          : (
            <ul className='list webhook-list'>
              {webhooks.map((webhook) => (
                <li key={webhook.id} className='list-item webhook'>
                  <div className='stack-tight'>
                    <h2 className='webhook-name'>{webhook.name === '' ? t('adminWebhooks.unnamed') : webhook.name}</h2>
                    <span className='small muted'>{t(stateKey(webhook))}</span>
                  </div>
                  <div>
                    <button type='button' className='button button-primary' disabled={busy} onClick={() => { void run(() => viewAs(webhook.id)) }}>
                      {t('adminWebhooks.manage')}
                    </button>
                  </div>
                </li>
              ))}
            </ul>
            )}
      </Status>
    </Page>
  )
}
