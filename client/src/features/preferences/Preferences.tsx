import { useEffect, useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Card } from '../../components/Card'
import { Page } from '../../components/Page'
import { ApiError, preferences, userLocation } from '../../api'
import { useSubmit } from '../../forms/useSubmit'
import { loadSiteSettings } from '../../pickers/game-data'
import { useSession } from '../../shell/session-context'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'
import '../../forms/forms.css'
import { loadAlarmDefaults, saveAlarmDefaults, type AlarmDefaults } from '../../alarm-kit/editor-data'
import { TemplateInput } from '../../alarm-kit/TemplateInput'
import { ActiveHoursEditor, parseHours } from '../../forms/ActiveHoursEditor'

/** Languages the alert engine ships translations for, offered when the site does not restrict the list. */
const ENGINE_LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pl', 'pt-br', 'ru', 'sv', 'da', 'nb', 'ja', 'ko', 'zh-tw']

/** How alerts are delivered: auto-delete per type, the alerts' language, the quest summary schedule. */
export default function Preferences () {
  const { t } = useTranslation()
  usePageTitle(t('nav.preferences'))
  return (
    <Page title={t('nav.preferences')}>
      <AlarmDefaultsSection />
      <Cleaning />
      <Language />
      <SummarySchedule />
    </Page>
  )
}

function Cleaning () {
  const { t } = useTranslation()
  const { alarmTypes } = useSession()
  const [status, retry, replace] = useLoad((signal) => preferences.cleaning(signal))
  const { busy, error, run } = useSubmit()
  const [done, setDone] = useState<string | null>(null)
  const types = alarmTypes.filter((type) => type.cleaningName !== null)

  const set = (name: string | null, on: boolean): void => {
    setDone(null)
    void run(async () => {
      await (name === null ? preferences.setCleaningAll(on) : preferences.setCleaning(name, on))
      if (status.status === 'ready') replace(name === null ? Object.fromEntries(types.map((type) => [type.cleaningName!, on])) : { ...status.data, [name]: on })
      setDone(t('status.saved'))
    })
  }

  return (
    <Card title={t('preferences.cleaning.title')} help={t('preferences.cleaning.help')}>
      <Status state={status} retry={retry}>
        {(data) => (
          <>
            <div className='row'>
              <button type='button' className='button' disabled={busy} onClick={() => { set(null, true) }}>{t('preferences.cleaning.allOn')}</button>
              <button type='button' className='button' disabled={busy} onClick={() => { set(null, false) }}>{t('preferences.cleaning.allOff')}</button>
            </div>
            <ul className='list'>
              {types.map((type) => (
                <li key={type.type}>
                  <label className='switch'>
                    <input type='checkbox' role='switch' checked={data[type.cleaningName!] === true} disabled={busy} onChange={(e) => { set(type.cleaningName, e.target.checked) }} />
                    <span>{t(`alarms.types.${type.type}`)}</span>
                  </label>
                </li>
              ))}
            </ul>
          </>
        )}
      </Status>
      <Outcome done={done} error={error} />
    </Card>
  )
}

function Outcome ({ done, error }: { done: string | null, error: string | null }) {
  return (
    <>
      <div role='status' aria-live='polite'>{done !== null && error === null && <p className='small muted'>{done}</p>}</div>
      <div role='alert'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>
    </>
  )
}

function Language () {
  const { t } = useTranslation()
  const id = useId()
  const [state, retry] = useLoad(async (signal) => {
    const [current, settings] = await Promise.all([
      userLocation.language(signal),
      loadSiteSettings().catch(() => [])
    ])
    const allowed = settings.find((s) => s.key === 'allowed_languages')?.value?.split(',').map((l) => l.trim().toLowerCase()).filter((l) => l !== '') ?? []
    return { current: current.language, choices: allowed.length > 0 ? allowed : ENGINE_LANGUAGES }
  })
  const [value, setValue] = useState('')
  const { busy, error, run } = useSubmit()
  const [done, setDone] = useState<string | null>(null)
  useEffect(() => { if (state.status === 'ready') setValue(state.data.current ?? '') }, [state])
  const names = new Intl.DisplayNames([navigator.language, 'en'], { type: 'language' })
  const label = (code: string): string => { try { return names.of(code) ?? code } catch { return code } }

  return (
    <Card title={t('preferences.language.title')}>
      <Status state={state} retry={retry}>
        {(data) => (
          <form
            className='stack' onSubmit={(e) => {
              e.preventDefault()
              setDone(null)
              void run(async () => { await userLocation.setLanguage(value); setDone(t('status.saved')) })
            }}
          >
            <div className='field'>
              <label htmlFor={id}>{t('preferences.language.label')}</label>
              <select id={id} className='select' value={value} onChange={(e) => { setValue(e.target.value) }}>
                {value === '' && <option value=''>{t('preferences.language.default')}</option>}
                {[...new Set([...(data.current !== null ? [data.current] : []), ...data.choices])].map((code) => <option key={code} value={code}>{label(code)}</option>)}
              </select>
              <p className='help'>{t('preferences.language.help')}</p>
            </div>
            <div><button type='submit' className='button button-primary' disabled={busy || value === ''}>{busy ? t('status.saving') : t('preferences.save')}</button></div>
          </form>
        )}
      </Status>
      <Outcome done={done} error={error} />
    </Card>
  )
}

/** The quest summary schedule; the whole section is left out when the engine has no summaries (501) or they are off. */
function SummarySchedule () {
  const { t } = useTranslation()
  const [state, retry] = useLoad(async (signal) => {
    try {
      const { enabled } = await preferences.summaryCapability(signal)
      if (!enabled) return null
      const schedule = await preferences.summarySchedule('quest', signal).catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 404) return { activeHours: '[]' }
        throw err
      })
      return parseHours(schedule.activeHours)
    } catch (err) {
      if (err instanceof ApiError && (err.status === 501 || err.status === 403)) return null
      throw err
    }
  })
  const { busy, error, run } = useSubmit()
  const [done, setDone] = useState<string | null>(null)
  if (state.status === 'ready' && state.data === null) return null
  return (
    <Card title={t('preferences.summary.title')} help={t('preferences.summary.help')}>
      <Status state={state} retry={retry}>
        {(rules) => rules !== null && (
          <ActiveHoursEditor
            initial={rules} busy={busy} onSave={(next) => {
              setDone(null)
              void run(async () => {
                if (next.length === 0) await preferences.deleteSummarySchedule('quest')
                else await preferences.saveSummarySchedule('quest', { activeHours: next })
                setDone(t('status.saved'))
              })
            }}
          />
        )}
      </Status>
      <Outcome done={done} error={error} />
      {state.status === 'ready' && <SendSummaryNow />}
    </Card>
  )
}

/** Asks the engine to send today's quest summary at once, outside the schedule (limited like test alerts). */
function SendSummaryNow () {
  const { t } = useTranslation()
  const { busy, error, run } = useSubmit()
  const [done, setDone] = useState<string | null>(null)
  const send = (): void => {
    setDone(null)
    void run(async () => {
      await preferences.triggerSummary('quest')
      setDone(t('preferences.summary.sent'))
    })
  }
  return (
    <div className='form-actions'>
      <button type='button' className='button' disabled={busy} onClick={send}>{busy ? t('preferences.summary.sending') : t('preferences.summary.sendNow')}</button>
      <Outcome done={done} error={error} />
    </div>
  )
}

/** The distance, clean-up and template every new alarm starts with, kept on the server for every device. */
function AlarmDefaultsSection () {
  const { t } = useTranslation()
  const [state, retry] = useLoad(() => loadAlarmDefaults())
  return (
    <Card title={t('preferences.defaultsTitle')} help={t('preferences.defaultsIntro')}>
      <Status state={state} retry={retry}>{(data) => <AlarmDefaultsForm initial={data} />}</Status>
    </Card>
  )
}

function AlarmDefaultsForm ({ initial }: { initial: AlarmDefaults }) {
  const { t } = useTranslation()
  const { busy, error, run } = useSubmit()
  const [distance, setDistance] = useState(initial.distance === null ? '' : String(initial.distance))
  const [clean, setClean] = useState(initial.clean ?? 0)
  const [template, setTemplate] = useState(initial.template ?? '')
  const [done, setDone] = useState<string | null>(null)
  const [invalid, setInvalid] = useState(false)
  const save = (event: React.FormEvent): void => {
    event.preventDefault()
    setDone(null)
    const n = distance.trim() === '' ? null : Number(distance)
    if (n !== null && (!Number.isInteger(n) || n < 0 || n > 40_000_000)) { setInvalid(true); return }
    setInvalid(false)
    void run(async () => {
      await saveAlarmDefaults({ distance: n, clean: clean === 0 ? null : clean, template: template.trim() === '' ? null : template.trim() })
      setDone(t('preferences.defaultsSaved'))
    })
  }
  return (
    <form className='stack' noValidate onSubmit={save}>
      <div className='field'>
        <label className='label' htmlFor='default-distance'>{t('preferences.defaultsDistance')}</label>
        <span className='input-unit'>
          <input id='default-distance' className='input' inputMode='numeric' value={distance} aria-invalid={invalid} aria-describedby='default-distance-help' onChange={(e) => { setDistance(e.target.value) }} />
          <span className='unit' aria-hidden='true'>m</span>
        </span>
        <p id='default-distance-help' className={invalid ? 'field-error' : 'help'}>{invalid ? t('fields.errors.range', { min: 0, max: 40_000_000 }) : t('preferences.defaultsDistanceHelp')}</p>
      </div>
      <fieldset className='field'>
        <legend className='label'>{t('preferences.defaultsClean')}</legend>
        {[1, 2, 4].map((bit) => (
          <label key={bit} className='check'>
            <input type='checkbox' checked={(clean & bit) !== 0} onChange={(e) => { setClean(e.target.checked ? clean | bit : clean & ~bit) }} />
            <span>{t(`pickers.values.clean.${bit}`)}</span>
          </label>
        ))}
      </fieldset>
      <div className='field'>
        <label className='label' htmlFor='default-template'>{t('preferences.defaultsTemplate')}</label>
        <TemplateInput id='default-template' type='pokemon' value={template} onChange={setTemplate} />
      </div>
      <div className='row'><button type='submit' className='button button-primary' disabled={busy}>{t('preferences.defaultsSave')}</button></div>
      <div role='status' aria-live='polite'>{done !== null && <p className='notice'>{done}</p>}</div>
      <div role='alert'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>
    </form>
  )
}
