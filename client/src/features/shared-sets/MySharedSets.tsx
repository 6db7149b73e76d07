import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Page } from '../../components/Page'
import { ApiError, sharedSets } from '../../api'
import type { OwnSharedSet } from '../../api/shared-sets'
import { ConfirmDialog } from '../../components/Dialog'
import { useSubmit } from '../../forms/useSubmit'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'
import { LinkActions } from '../../share-links/LinkActions'
import '../../forms/forms.css'
import './shared-sets.css'

/** The member's links: how often each was copied, when it ends, and revoke, which ends it at once. */
export default function MySharedSets () {
  const { t, i18n } = useTranslation()
  usePageTitle(t('sharedSets.nav'))
  const [state, retry] = useLoad((signal) => sharedSets.mine(signal), [])
  const [revoking, setRevoking] = useState<OwnSharedSet | null>(null)
  const [message, setMessage] = useState<string | null>(null)
  const { busy, error, setError, run } = useSubmit()
  const revoke = (): void => {
    if (revoking === null) return
    void run(async () => {
      await sharedSets.revoke(revoking.token)
      setMessage(t('sharedSets.revoked', { title: revoking.title }))
      setRevoking(null)
      retry()
    }, (err) => { setError(err instanceof ApiError ? err.message : t('status.failed')) })
  }
  return (
    <Page title={t('sharedSets.nav')} intro={t('sharedSets.mineIntro')} status={message}>
      <Status state={state} retry={retry}>
        {(sets) => sets.length === 0
          ? <p className='muted'>{t('sharedSets.none')}</p>
          : (
            <ul className='shared-list'>
              {sets.map((set) => (
                <li key={set.token}>
                  <h2 className='h3'>{set.title}</h2>
                  <p className='small muted'>
                    {t('sharedSets.alarmCount', { count: set.alarms })} · {t('sharedSets.copiedTimes', { count: set.copies })} · {set.hidden
                      ? t('sharedSets.hidden')
                      : set.expired ? t('sharedSets.expired') : set.expiresAt === null ? t('sharedSets.noExpiry') : t('sharedSets.expires', { date: new Intl.DateTimeFormat(i18n.language, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(`${set.expiresAt.replace(' ', 'T')}Z`)) })}
                    {set.inCatalogue && ` · ${t('sharedSets.listed')}`}
                  </p>
                  {!set.expired && !set.hidden && <LinkActions url={set.url} title={set.title} />}
                  <button type='button' className='button button-danger' onClick={() => { setError(null); setRevoking(set) }}>{t('sharedSets.revoke', { title: set.title })}</button>
                </li>
              ))}
            </ul>
            )}
      </Status>
      <ConfirmDialog
        open={revoking !== null}
        title={t('sharedSets.revokeTitle')}
        confirmLabel={t('sharedSets.revokeConfirm')}
        busy={busy}
        busyLabel={t('status.saving')}
        error={error}
        danger
        onConfirm={revoke}
        onCancel={() => { setRevoking(null) }}
      >
        <p>{t('sharedSets.revokeBody', { title: revoking?.title ?? '' })}</p>
      </ConfirmDialog>
    </Page>
  )
}
