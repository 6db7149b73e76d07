import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import type { TFunction } from 'i18next'
import { Card } from '../../components/Card'
import { Page } from '../../components/Page'
import type { DeviceSession } from '../../../../schemas/devices'
import { auth } from '../../api'
import { ConfirmDialog } from '../../components/Dialog'
import { Facts } from '../../components/Facts'
import { useConfirmation } from '../../forms/useConfirmation'
import { useFormat } from '../../i18n/format'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'
import { PushSection } from './PushSection'
import './devices.css'

/** What the one confirmation dialog of the page is asking about. */
type Pending = { kind: 'one', session: DeviceSession } | { kind: 'others' }

/**
 * The server names a device "<browser> on <system>" (lib/devices.ts) with names that stay as they are
 * in every language; only the joining words are translated.
 */
function deviceName (t: TFunction, device: string | null): string {
  if (device === null) return t('devices.unknownDevice')
  const [browser, system] = device.split(' on ')
  return browser !== undefined && system !== undefined ? t('devices.browserOnSystem', { browser, system }) : device
}

/**
 * My devices: every signed-in session of the member (one per device or browser), newest use first,
 * with this device marked; any other one can be ended, or all of them at once. An ended session is
 * signed out at once, wherever it is. Chat-platform sign-ins on other devices have no entry of their
 * own (the server cannot list them), so "End all other sessions" is offered even when none is listed.
 */
export default function Devices () {
  const { t } = useTranslation()
  usePageTitle(t('nav.devices'))
  const [state, retry, replace] = useLoad((signal) => auth.sessions(signal))
  // Announced from here: ending a session removes its entry, and the outcome must outlive that.
  const { message, announce, pending, dialog, heading, ask: open, close } = useConfirmation<Pending>()

  const ask = (question: Pending): void => {
    announce(null)
    open(question)
  }

  const confirm = (sessions: DeviceSession[]): void => {
    if (pending === null) return
    void dialog.run(async () => {
      if (pending.kind === 'one') {
        await auth.endSession(pending.session.id)
        replace({ sessions: sessions.filter((s) => s.id !== pending.session.id) })
        announce(t('devices.ended', { device: deviceName(t, pending.session.device) }))
      } else {
        await auth.endOtherSessions()
        replace({ sessions: sessions.filter((s) => s.current) })
        announce(t('devices.endedOthers'))
      }
      close(true)
    })
  }

  return (
    <Page title={t('devices.title')} headingRef={heading} intro={t('devices.intro')} status={message}>
      <Status state={state} retry={retry}>
        {({ sessions }) => (
          <Card className='stack' title={t('devices.count', { count: sessions.length })} headingId='devices-list'>
            {sessions.length === 0
              ? <p className='muted'>{t('devices.none')}</p>
              : (
                <ul className='list' aria-labelledby='devices-list'>
                  {sessions.map((session) => <SessionItem key={session.id} session={session} end={() => { ask({ kind: 'one', session }) }} />)}
                </ul>
                )}
            <p className='small muted'>{t('devices.otherSignIns')}</p>
            <div><button type='button' className='button button-danger' onClick={() => { ask({ kind: 'others' }) }}>{t('devices.endOthers')}</button></div>
            <ConfirmDialog
              open={pending !== null}
              title={pending?.kind === 'one' ? t('devices.confirmEndTitle', { device: deviceName(t, pending.session.device) }) : t('devices.confirmOthersTitle')}
              confirmLabel={pending?.kind === 'one' ? t('devices.endSession') : t('devices.endOthers')}
              busy={dialog.busy}
              busyLabel={t('devices.ending')}
              error={dialog.error}
              danger
              onConfirm={() => { confirm(sessions) }}
              onCancel={() => { close() }}
            >
              <p>{pending?.kind === 'others' ? t('devices.confirmOthers') : t('devices.confirmEnd')}</p>
            </ConfirmDialog>
          </Card>
        )}
      </Status>
      <PushSection />
    </Page>
  )
}

function SessionItem ({ session, end }: { session: DeviceSession, end: () => void }) {
  const { t } = useTranslation()
  const format = useFormat()
  const id = useId()
  const when = (iso: string): string => format.dateTime(new Date(iso))
  const facts: Array<[string, string]> = [
    [t('devices.firstUsed'), when(session.firstUsedAt)],
    [t('devices.lastUsed'), session.current ? t('devices.now') : when(session.lastUsedAt)]
  ]
  // A sign-in without a refresh session lasts as long as its token; a refresh session is renewed while used.
  if (session.kind === 'token') facts.push([t('devices.validUntil'), when(session.expiresAt)])
  if (session.network !== null) facts.push([t('devices.network'), session.network])

  return (
    <li className='list-item device'>
      <div className='stack-tight device-main'>
        <h2 id={`${id}-name`} className='device-name'>
          {deviceName(t, session.device)}
          {session.current && <span className='badge'>{t('devices.thisDevice')}</span>}
        </h2>
        <Facts rows={facts} />
      </div>
      {!session.current && (
        <div>
          <button type='button' className='button' aria-describedby={`${id}-name`} onClick={end}>{t('devices.endSession')}</button>
        </div>
      )}
    </li>
  )
}
