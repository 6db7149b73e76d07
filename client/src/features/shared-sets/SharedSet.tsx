import { useEffect, useId, useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useParams } from 'react-router'
import { ApiError, profiles, sharedSets } from '../../api'
import type { CopyResult, SharedSetView } from '../../api/shared-sets'
import { alarmEditorPath, type AlarmTypeDescriptor } from '../../alarm-types'
import { AlarmIcon } from '../../alarm-kit/AlarmIcon'
import { describeCard, type Vocabulary } from '../../alarm-kit/describe'
import type { Alarm } from '../../alarm-kit/form-model'
import { useAnnouncer } from '../../alarm-kit/useAnnouncer'
import { FormEstimate } from '../../estimates/FormEstimate'
import { useSubmit } from '../../forms/useSubmit'
import { formatNumber, formatNumberRange } from '../../i18n/format'
import { loadRaidLevels, type RaidLevel } from '../../pickers/game-data'
import { useMonsters } from '../../pickers/useGameData'
import { useSession } from '../../shell/session-context'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'
import '../../forms/forms.css'
import '../../alarm-kit/alarms.css'
import './shared-sets.css'

const NO_GYMS = new Map<string, string>()

/**
 * A shared set as its link opens it: the alarms as the usual cards, what each would send the viewer and
 * which of the viewer's alarms already cover it, and "Add to profile…", which copies the chosen alarms in
 * one go, says how many were added and offers undo. What this site does not offer is listed and left out.
 */
export default function SharedSet () {
  const { t } = useTranslation()
  const { token = '' } = useParams()
  const [state, retry] = useLoad((signal) => sharedSets.open(token, signal), [token])
  usePageTitle(state.status === 'ready' ? state.data.title : t('sharedSets.pageTitle'))
  return (
    <div className='page'>
      <Status state={state} retry={retry}>{(set) => <SetView set={set} />}</Status>
    </div>
  )
}

function SetView ({ set }: { set: SharedSetView }) {
  const { t, i18n } = useTranslation()
  const { allAlarmTypes, user } = useSession()
  const { monsters } = useMonsters()
  const [raidLevels, setRaidLevels] = useState<RaidLevel[] | null>(null)
  useEffect(() => { void loadRaidLevels().then(setRaidLevels, () => undefined) }, [])
  const language = i18n.language
  const vocabulary: Vocabulary = useMemo(() => ({
    t,
    monsters,
    raidLevels,
    number: (value, options) => formatNumber(language, value, options),
    numberRange: (start, end, options) => formatNumberRange(language, start, end, options),
    gymNames: NO_GYMS
  }), [t, monsters, raidLevels, language])
  const unavailable = new Map(set.unavailable.map((u) => [u.index, u]))
  const offered = set.alarms.map((_, i) => i).filter((i) => !unavailable.has(i))
  const [chosen, setChosen] = useState<Set<number>>(() => new Set(offered))
  const choose = (index: number, on: boolean): void => {
    setChosen((c) => { const next = new Set(c); if (on) next.add(index); else next.delete(index); return next })
  }
  return (
    <>
      <h1>{set.title}</h1>
      <p className='muted'>{t('sharedSets.sharedBy', { name: set.sharer === 'a member' ? t('sharedSets.aMember') : set.sharer })} · {t('sharedSets.copiedTimes', { count: set.copies })}</p>
      {set.unavailable.length > 0 && (
        <div className='notice' role='note'>
          <p>{t('sharedSets.unavailableIntro', { count: set.unavailable.length })}</p>
          <ul>{set.unavailable.map((u) => <li key={u.index}>{t(`sharedSets.unavailable.${u.reason}`, { type: t(`alarms.types.${u.type}`) })}</li>)}</ul>
        </div>
      )}
      {set.mine ? <p className='help'>{t('sharedSets.yours')}</p> : <AddToProfile token={set.token} indexes={[...chosen].sort((a, b) => a - b)} />}
      {user.isAdmin && <TakeDown token={set.token} title={set.title} />}
      <ul className='shared-cards' aria-label={t('sharedSets.alarmsLabel', { count: set.alarms.length })}>
        {set.alarms.map((alarm, index) => {
          const descriptor = allAlarmTypes.find((d) => d.type === alarm.type)
          return (
            <li key={index}>
              {descriptor === undefined
                ? <p className='muted'>{t(`alarms.types.${alarm.type}`)}</p>
                : <SharedCard type={descriptor} alarm={alarm} index={index} vocabulary={vocabulary} offered={!unavailable.has(index)} chosen={chosen.has(index)} choose={set.mine ? null : choose} />}
            </li>
          )
        })}
      </ul>
    </>
  )
}

function SharedCard ({ type, alarm, index, vocabulary, offered, chosen, choose }: {
  type: AlarmTypeDescriptor
  alarm: Record<string, unknown>
  index: number
  vocabulary: Vocabulary
  offered: boolean
  chosen: boolean
  choose: ((index: number, on: boolean) => void) | null
}) {
  const { t } = useTranslation()
  const { type: _type, ...filters } = alarm
  const asAlarm = { ...filters, uid: 0 } as Alarm
  const { subject, sentence, pills } = describeCard(type, asAlarm, vocabulary)
  return (
    <div className={`alarm-card${offered ? '' : ' alarm-card-unavailable'}`} data-index={index}>
      {choose !== null && offered && (
        <label className='alarm-select'>
          <input type='checkbox' checked={chosen} onChange={(e) => { choose(index, e.target.checked) }} />
          <span className='visually-hidden'>{t('sharedSets.choose', { alarm: sentence })}</span>
        </label>
      )}
      <span className='alarm-sprite'><AlarmIcon type={type.type} alarm={asAlarm} label={subject} /></span>
      <p className='visually-hidden alarm-text'>{sentence}</p>
      <div className='alarm-main' aria-hidden='true'>
        <p className='alarm-title'><strong>{subject}</strong></p>
        <ul className='pills'>{pills.map((p) => <li key={p.key} className={`pill pill-${p.tone}`}>{p.text}</li>)}</ul>
      </div>
      {offered && <div className='shared-estimate'><FormEstimate type={type.type} body={filters} alarmLink={(uid) => ({ to: alarmEditorPath(type, uid), words: null })} /></div>}
    </div>
  )
}

function AddToProfile ({ token, indexes }: { token: string, indexes: number[] }) {
  const { t } = useTranslation()
  const { user } = useSession()
  const [list] = useLoad((signal) => profiles.list(signal), [])
  const [profileNo, setProfileNo] = useState(user.profileNo)
  const [announcer, announce] = useAnnouncer()
  const { busy, run } = useSubmit()
  const id = useId()

  const outcome = (result: CopyResult): string => {
    const count = (reasons: string[]) => result.skipped.filter((s) => reasons.includes(s.reason)).length
    const parts = [
      t('sharedSets.addedCount', { count: result.added.length }),
      ...([['sharedSets.existingCount', count(['already-have', 'repeated'])], ['sharedSets.keptYoursCount', count(['would-change-yours', 'same-key'])],
        ['sharedSets.notOfferedCount', count(['type-off', 'type-not-offered', 'unknown-area'])], ['sharedSets.refusedCount', count(['refused'])]] as const)
        .filter(([, n]) => n > 0).map(([key, n]) => t(key, { count: n }))
    ]
    return parts.join(' ')
  }

  const add = (): void => {
    void run(async () => {
      const result = await sharedSets.copy(token, { profileNo, indexes })
      announce({
        message: outcome(result),
        tone: 'info',
        ...(result.added.length > 0 && {
          undo: () => {
            sharedSets.undoCopy(result.undo).then(
              () => { announce({ message: t('sharedSets.undone', { count: result.added.length }), tone: 'info' }) },
              (err: unknown) => { announce({ message: err instanceof ApiError ? err.message : t('status.failed'), tone: 'error' }) })
          }
        })
      })
    }, (err) => { announce({ message: err instanceof ApiError ? err.message : t('status.failed'), tone: 'error' }) })
  }

  return (
    <section className='shared-add stack' aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} className='visually-hidden'>{t('sharedSets.addHeading')}</h2>
      <div className='field'>
        <label className='label' htmlFor={`${id}-profile`}>{t('sharedSets.profile')}</label>
        <select id={`${id}-profile`} className='select' value={profileNo} onChange={(e) => { setProfileNo(Number(e.target.value)) }}>
          {list.status === 'ready'
            ? list.data.map((p) => <option key={p.profileNo} value={p.profileNo}>{p.name}</option>)
            : <option value={user.profileNo}>{t('sharedSets.activeProfile')}</option>}
        </select>
      </div>
      <button type='button' className='button button-primary' disabled={busy || indexes.length === 0} onClick={add}>
        {busy ? t('status.saving') : t('sharedSets.add', { count: indexes.length })}
      </button>
      {announcer}
    </section>
  )
}

/** An administrator's take-down of the set: its link and catalogue entry end at once. */
function TakeDown ({ token, title }: { token: string, title: string }) {
  const { t } = useTranslation()
  const [done, setDone] = useState(false)
  const { busy, error, run } = useSubmit()
  return (
    <div className='stack'>
      <div role='status' aria-live='polite'>{done && <p className='notice'>{t('sharedSets.takenDown', { title })}</p>}</div>
      {!done && (
        <button type='button' className='button button-danger' disabled={busy} onClick={() => { void run(async () => { await sharedSets.setHidden(token, true); setDone(true) }) }}>
          {t('sharedSets.takeDown', { title })}
        </button>
      )}
      {error !== null && <p className='notice notice-error' role='alert'>{error}</p>}
    </div>
  )
}
