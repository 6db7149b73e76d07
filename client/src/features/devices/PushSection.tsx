import { useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { Static } from '@sinclair/typebox'
import { Card } from '../../components/Card'
import type { DeliveryModeSchema, PushDeviceSchema } from '../../../../schemas/push'
import { profiles, push } from '../../api'
import { Facts } from '../../components/Facts'
import { useSubmit } from '../../forms/useSubmit'
import { useFormat } from '../../i18n/format'
import { install, useAppState } from '../../pwa/app-state'
import { viewingAs } from '../../shell/impersonation'
import { useSession } from '../../shell/session-context'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { subscribeThisDevice, support, timeZone, unsubscribeThisDevice } from './push-device'

type PushDevice = Static<typeof PushDeviceSchema>
type DeliveryMode = Static<typeof DeliveryModeSchema>
const MODES: readonly DeliveryMode[] = ['chat', 'push', 'both']

/**
 * "Alerts on this device" (docs/push.md): installing the app, turning phone notifications on here (the
 * browser asks for permission only on that tap), every device of the member with push (a test, its
 * alarm types, its quiet hours, turning it off), and where each profile's alerts go. While the site
 * offers no push (the API answers 404) it says so and nothing more.
 */
export function PushSection () {
  const { t } = useTranslation()
  const [state, retry, replace] = useLoad(async (signal) => {
    const [{ devices }, delivery, profileList] = await Promise.all([push.devices(signal), push.delivery(signal), profiles.list(signal)])
    return { devices, delivery, profiles: profileList }
  })
  const reloadDevices = async (): Promise<void> => {
    if (state.status !== 'ready') return
    replace({ ...state.data, devices: (await push.devices()).devices })
  }

  return (
    <Card className='stack' title={t('push.title')}>
      <p className='muted'>{t('push.intro')}</p>
      {state.status === 'failed' && state.code === 404
        ? <p className='notice'>{t('push.siteOff')}</p>
        : (
          <Status state={state} retry={retry}>
            {(data) => (
              <>
                <InstallApp />
                <ThisDevice subscribed={data.devices.some((d) => d.current)} onSubscribed={reloadDevices} />
                {data.devices.length > 0 && (
                  <ul className='list' aria-label={t('push.devicesLabel')}>
                    {data.devices.map((device) => <PushDeviceItem key={device.id} device={device} changed={reloadDevices} />)}
                  </ul>
                )}
                <Delivery profiles={data.profiles} modes={data.delivery.modes} defaultMode={data.delivery.defaultMode} />
              </>
            )}
          </Status>
          )}
    </Card>
  )
}

/** The browser's install offer (Chromium), or the Home Screen steps on an iPhone or iPad not yet installed. */
function InstallApp () {
  const { t } = useTranslation()
  const { canInstall, installed } = useAppState()
  if (installed) return null
  if (support() === 'ios-not-installed') {
    return (
      <div className='notice stack-tight'>
        <p><strong>{t('push.iosTitle')}</strong></p>
        <ol className='push-steps'>
          <li>{t('push.iosStep1')}</li>
          <li>{t('push.iosStep2')}</li>
          <li>{t('push.iosStep3')}</li>
        </ol>
      </div>
    )
  }
  if (!canInstall) return null
  return (
    <div className='stack-tight'>
      <p className='small muted'>{t('push.installWhy')}</p>
      <div><button type='button' className='button' onClick={() => { void install() }}>{t('push.install')}</button></div>
    </div>
  )
}

/** Turning alerts on here, or why it cannot be. */
function ThisDevice ({ subscribed, onSubscribed }: { subscribed: boolean, onSubscribed: () => Promise<void> }) {
  const { t } = useTranslation()
  const { busy, error, run } = useSubmit()
  const [outcome, setOutcome] = useState<'denied' | 'dismissed' | null>(null)
  const supported = support()
  if (supported === 'ios-not-installed') return null
  if (supported === 'unsupported') return <p className='notice'>{t('push.unsupported')}</p>
  if (subscribed) return null
  // An admin acting as a member must not receive the member's alerts (the server refuses too).
  if (viewingAs()) return null
  if (Notification.permission === 'denied' || outcome === 'denied') return <p className='notice notice-error'>{t('push.denied')}</p>
  return (
    <div className='stack-tight'>
      <div>
        <button
          type='button'
          className='button button-primary'
          disabled={busy}
          onClick={() => {
            void run(async () => {
              const result = await subscribeThisDevice()
              setOutcome(result === 'subscribed' ? null : result)
              if (result === 'subscribed') await onSubscribed()
            })
          }}
        >
          {busy ? t('push.turningOn') : t('push.turnOn')}
        </button>
      </div>
      <p className='small muted'>{t('push.permissionWhy')}</p>
      {outcome === 'dismissed' && <p className='notice' role='status'>{t('push.dismissed')}</p>}
      {error !== null && <p className='notice notice-error' role='alert'>{error}</p>}
    </div>
  )
}

/** One device with push: a test, its alarm types, its quiet hours, and turning it off. */
function PushDeviceItem ({ device, changed }: { device: PushDevice, changed: () => Promise<void> }) {
  const { t } = useTranslation()
  const format = useFormat()
  const id = useId()
  const test = useSubmit()
  const off = useSubmit()
  const [tested, setTested] = useState(false)
  const facts: Array<[string, string]> = [
    [t('push.service'), device.pushService],
    [t('push.since'), format.dateTime(new Date(device.createdAt))],
    [t('push.lastSent'), device.lastSentAt === null ? t('push.never') : format.dateTime(new Date(device.lastSentAt))]
  ]
  const turnOff = async (): Promise<void> => {
    if (device.current) await unsubscribeThisDevice(device.id)
    else await push.remove(device.id)
    await changed()
  }
  return (
    <li className='list-item device push-device'>
      <div className='stack-tight device-main'>
        <h3 id={`${id}-name`} className='device-name'>
          {device.device}
          {device.current && <span className='badge'>{t('devices.thisDevice')}</span>}
        </h3>
        <Facts rows={facts} />
        <div className='push-actions'>
          <button
            type='button'
            className='button'
            aria-describedby={`${id}-name`}
            disabled={test.busy}
            onClick={() => {
              setTested(false)
              void test.run(async () => {
                await push.test(device.id, { title: t('push.testTitle'), body: t('push.testBody') })
                setTested(true)
              })
            }}
          >
            {test.busy ? t('push.testing') : t('push.test')}
          </button>
          <button type='button' className='button button-danger' aria-describedby={`${id}-name`} disabled={off.busy} onClick={() => { void off.run(turnOff) }}>
            {t('push.turnOff')}
          </button>
        </div>
        <div role='status' aria-live='polite'>{tested && <p className='notice'>{t('push.testSent')}</p>}</div>
        {test.error !== null && <p className='notice notice-error' role='alert'>{test.error}</p>}
        {off.error !== null && <p className='notice notice-error' role='alert'>{off.error}</p>}
        <AlarmTypes device={device} />
        <QuietHours device={device} />
      </div>
    </li>
  )
}

/** Which alarm types this device shows: all of them (the server's null) or the ticked ones. */
function AlarmTypes ({ device }: { device: PushDevice }) {
  const { t } = useTranslation()
  const { alarmTypes } = useSession()
  const { busy, error, run } = useSubmit()
  const [types, setTypes] = useState<PushDevice['types']>(device.types)
  const save = (next: PushDevice['types']): void => {
    void run(async () => {
      await push.change(device.id, { types: next })
      setTypes(next)
    })
  }
  const shown = (type: PushDevice['types'] extends Array<infer T> | null ? T : never): boolean => types === null || types.includes(type)
  return (
    <fieldset className='push-types' disabled={busy}>
      <legend>{t('push.types')}</legend>
      <label className='switch'>
        <input type='checkbox' checked={types === null} onChange={(e) => { save(e.target.checked ? null : []) }} />
        <span>{t('push.allTypes')}</span>
      </label>
      {types !== null && alarmTypes.map((type) => (
        <label key={type.type} className='switch'>
          <input
            type='checkbox'
            checked={shown(type.type)}
            onChange={(e) => { save(e.target.checked ? [...types, type.type] : types.filter((kept) => kept !== type.type)) }}
          />
          <span>{t(type.labelKey)}</span>
        </label>
      ))}
      {error !== null && <p className='notice notice-error' role='alert'>{error}</p>}
    </fieldset>
  )
}

/** Hours in which this device shows nothing, on the device's own clock. */
function QuietHours ({ device }: { device: PushDevice }) {
  const { t } = useTranslation()
  const id = useId()
  const { busy, error, run } = useSubmit()
  const [saved, setSaved] = useState(device.quietHours)
  const [start, setStart] = useState(device.quietHours?.start ?? '22:00')
  const [end, setEnd] = useState(device.quietHours?.end ?? '07:00')
  const [done, setDone] = useState(false)
  const save = (quietHours: PushDevice['quietHours']): void => {
    setDone(false)
    void run(async () => {
      await push.change(device.id, { quietHours })
      setSaved(quietHours)
      setDone(true)
    })
  }
  return (
    <fieldset className='push-quiet' disabled={busy}>
      <legend>{t('push.quietHours')}</legend>
      <label className='switch'>
        <input type='checkbox' checked={saved !== null} onChange={(e) => { save(e.target.checked ? { start, end, timeZone: timeZone() } : null) }} />
        <span>{t('push.quietOn')}</span>
      </label>
      {saved !== null && (
        <div className='push-quiet-times'>
          <label htmlFor={`${id}-start`}>{t('push.quietFrom')}</label>
          <input id={`${id}-start`} className='input' type='time' required value={start} onChange={(e) => { setStart(e.target.value) }} />
          <label htmlFor={`${id}-end`}>{t('push.quietTo')}</label>
          <input id={`${id}-end`} className='input' type='time' required value={end} onChange={(e) => { setEnd(e.target.value) }} />
          <button type='button' className='button' onClick={() => { save({ start, end, timeZone: timeZone() }) }}>{t('push.quietSave')}</button>
        </div>
      )}
      <span className='help'>{t('push.quietHelp', { zone: saved?.timeZone ?? timeZone() })}</span>
      <div role='status' aria-live='polite'>{done && <p className='small'>{t('status.saved')}</p>}</div>
      {error !== null && <p className='notice notice-error' role='alert'>{error}</p>}
    </fieldset>
  )
}

/** Where each profile's alerts go: chat only, push only (PoracleNG's hook), or both. */
function Delivery ({ profiles: list, modes, defaultMode }: { profiles: Array<{ profileNo: number, name: string }>, modes: Array<{ profileNo: number, mode: DeliveryMode }>, defaultMode: DeliveryMode }) {
  const { t } = useTranslation()
  return (
    <div className='stack-tight'>
      <h3 className='push-subtitle'>{t('push.deliveryTitle')}</h3>
      <p className='small muted'>{t('push.deliveryHelp')}</p>
      {list.map((profile) => (
        <DeliveryChoice key={profile.profileNo} profile={profile} mode={modes.find((m) => m.profileNo === profile.profileNo)?.mode ?? defaultMode} />
      ))}
    </div>
  )
}

function DeliveryChoice ({ profile, mode }: { profile: { profileNo: number, name: string }, mode: DeliveryMode }) {
  const { t } = useTranslation()
  const id = useId()
  const { busy, error, run } = useSubmit()
  const [chosen, setChosen] = useState(mode)
  return (
    <div className='push-delivery'>
      <label htmlFor={id}>{profile.name}</label>
      <select
        id={id}
        className='select'
        value={chosen}
        disabled={busy}
        onChange={(e) => {
          const next = e.target.value as DeliveryMode
          void run(async () => {
            await push.setDelivery(profile.profileNo, next)
            setChosen(next)
          })
        }}
      >
        {MODES.map((m) => <option key={m} value={m}>{t(`push.mode.${m}`)}</option>)}
      </select>
      {error !== null && <p className='notice notice-error' role='alert'>{error}</p>}
    </div>
  )
}
