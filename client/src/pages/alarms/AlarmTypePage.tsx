import { useEffect, useMemo, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useParams } from 'react-router'
import { api, ApiError } from '../../api'
import { ALARM_TYPE_SWITCHES, pagePath, type AlarmTypeDescriptor } from '../../alarm-types'
import { AlarmCard } from '../../alarms/AlarmCard'
import { AlarmForm } from '../../alarms/AlarmForm'
import { ProfileTotal } from '../../features/estimates/ProfileTotal'
import type { Vocabulary } from '../../alarms/describe'
import { recreateBody, type Alarm } from '../../alarms/form-model'
import { useAnnouncer } from '../../alarms/useAnnouncer'
import { useFormat } from '../../i18n/format'
import { loadRaidLevels, loadSiteSettings, type RaidLevel } from '../../pickers/game-data'
import { useGymNames, useMonsters } from '../../pickers/useGameData'
import { useSession } from '../../shell/session-context'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'
import '../../forms/forms.css'

/**
 * The alarms of one type in the active profile, rendered from the type's descriptor: the same page,
 * cards and form serve all ten types. A type the site or the engine switched off says why.
 */
export default function AlarmTypePage () {
  const { t } = useTranslation()
  const { type: path } = useParams()
  const { alarmTypes } = useSession()
  const page = ALARM_TYPE_SWITCHES.find((entry) => pagePath(entry) === path)
  const type = alarmTypes.find((entry) => pagePath(entry) === path)
  const title = page === undefined ? t('notFound.title') : t(`alarms.types.${page.type}`)
  usePageTitle(title)

  if (page === undefined) {
    return <div className='page'><h1>{title}</h1><Link to='/'>{t('notFound.home')}</Link></div>
  }
  return (
    <div className='page'>
      <h1>{title}</h1>
      {type !== undefined && <ProfileTotal types={[type.type]} />}
      {type === undefined ? <Unavailable disableKey={page.disableKey} /> : <AlarmList key={type.type} type={type} />}
    </div>
  )
}

/** Why a type is not offered: the site's switch, the engine's switch, or an engine without the type. */
function Unavailable ({ disableKey }: { disableKey: string }) {
  const { t } = useTranslation()
  const [reason] = useLoad(async (signal) => {
    const [settings, upstream] = await Promise.all([
      loadSiteSettings(),
      api<string[]>('/api/settings/upstream-disabled', { signal })
    ])
    if (settings.some((s) => s.key === disableKey && s.value === 'true')) return 'site'
    return upstream.includes(disableKey) ? 'engine' : 'unsupported'
  }, [disableKey])
  return (
    <div className='notice notice-warning' role='status'>
      <p>{reason.status === 'ready' ? t(`alarms.unavailable.${reason.data}`) : t('alarms.unavailable.site')}</p>
      <p><Link to='/'>{t('notFound.home')}</Link></p>
    </div>
  )
}

function AlarmList ({ type }: { type: AlarmTypeDescriptor }) {
  const { t } = useTranslation()
  const format = useFormat()
  const { user } = useSession()
  const { monsters, iconBase } = useMonsters()
  const [raidLevels, setRaidLevels] = useState<RaidLevel[] | null>(null)
  const [alarms, retry, replace] = useLoad((signal) => api<Alarm[]>(type.path, { signal }), [type.path, user.profileNo])
  const [editing, setEditing] = useState<Alarm | 'new' | null>(null)
  const [selected, setSelected] = useState<Set<number>>(new Set())
  const [busy, setBusy] = useState(false)
  const [announcer, announce] = useAnnouncer()
  const addButton = useRef<HTMLButtonElement>(null)

  useEffect(() => { void loadRaidLevels().then(setRaidLevels, () => undefined) }, [])
  const list = alarms.status === 'ready' ? alarms.data : []
  const gymNames = useGymNames(list.flatMap((a) => typeof a.gym_id === 'string' && a.gym_id !== '' ? [a.gym_id] : []))
  const vocabulary: Vocabulary = useMemo(() => ({ t, monsters, raidLevels, number: format.number, gymNames }), [t, monsters, raidLevels, format.number, gymNames])
  // Selections of alarms that are gone (deleted, re-keyed) are dropped.
  const chosen = list.filter((a) => selected.has(a.uid)).map((a) => a.uid)

  /** Reads the list again without the loading state, so the page does not jump. */
  const refresh = async (): Promise<void> => {
    try {
      replace(await api<Alarm[]>(type.path))
    } catch (err) {
      announce({ message: err instanceof ApiError ? err.message : t('status.failed'), tone: 'error' })
    }
  }

  /** Runs one action at a time; its failure is announced with the server's message. */
  const act = async (work: () => Promise<void>): Promise<void> => {
    if (busy) return
    setBusy(true)
    try {
      await work()
    } catch (err) {
      announce({ message: err instanceof ApiError ? err.message : t('status.failed'), tone: 'error' })
      await refresh()
    } finally {
      setBusy(false)
    }
  }

  const recreate = (gone: Alarm[]) => async (): Promise<void> => {
    await act(async () => {
      for (const alarm of gone) await api(type.path, { method: 'POST', json: recreateBody(type, alarm) })
      await refresh()
      announce({ message: t('alarms.restored', { count: gone.length }), tone: 'info' })
    })
  }

  const remove = (uids: number[]) => act(async () => {
    const gone = list.filter((a) => uids.includes(a.uid))
    const done: Alarm[] = []
    try {
      for (const alarm of gone) {
        await api(`${type.path}/${alarm.uid}`, { method: 'DELETE' })
        done.push(alarm)
      }
    } finally {
      if (done.length > 0) {
        replace(list.filter((a) => !done.some((d) => d.uid === a.uid)))
        setSelected(new Set())
        announce({ message: t('alarms.deleted', { count: done.length }), tone: 'info', undo: recreate(done) })
      }
    }
  })

  const setDistance = (distance: number, uids: number[] | null) => act(async () => {
    const { updated } = uids === null
      ? await api<{ updated: number }>(`${type.path}/distance`, { method: 'PUT', json: distance })
      : await api<{ updated: number }>(`${type.path}/distance/bulk`, { method: 'PUT', json: { uids, distance } })
    await refresh()
    setSelected(new Set())
    announce({ message: t('alarms.distanceSet', { count: updated }), tone: 'info' })
  })

  const test = (alarm: Alarm) => act(async () => {
    const { message } = await api<{ message: string }>(`/api/test-alert/${type.type}/${alarm.uid}`, { method: 'POST' })
    announce({ message, tone: 'info' })
  })

  const closeForm = (): void => {
    setEditing(null)
    requestAnimationFrame(() => { addButton.current?.focus() })
  }

  return (
    <>
      {announcer}
      {editing !== null
        ? (
          <AlarmForm
            type={type}
            alarm={editing === 'new' ? undefined : editing}
            onCancel={closeForm}
            onDone={(outcome) => {
              closeForm()
              announce({ message: outcome.kind === 'saved' ? t('status.saved') : t('alarms.unchanged'), tone: 'info' })
              void refresh()
            }}
          />
          )
        : (
          <div className='toolbar'>
            <button ref={addButton} type='button' className='button button-primary' onClick={() => { setEditing('new') }}>{t('alarms.add')}</button>
          </div>
          )}
      <Status state={alarms} retry={retry}>
        {(data) => data.length === 0
          ? <p className='muted'>{t('alarms.empty')}</p>
          : (
            <section aria-label={t('alarms.listLabel', { type: t(`alarms.types.${type.type}`) })}>
              <BulkBar
                count={data.length}
                chosen={chosen}
                busy={busy}
                onSelectAll={(on) => { setSelected(new Set(on ? data.map((a) => a.uid) : [])) }}
                onDelete={() => { void remove(chosen) }}
                onDistance={(distance, all) => { void setDistance(distance, all ? null : chosen) }}
              />
              <ul className='alarm-list'>
                {data.map((alarm) => (
                  <AlarmCard
                    key={alarm.uid}
                    type={type}
                    alarm={alarm}
                    vocabulary={vocabulary}
                    iconBase={iconBase}
                    selected={selected.has(alarm.uid)}
                    busy={busy}
                    onSelect={(on) => { setSelected((s) => { const next = new Set(s); if (on) next.add(alarm.uid); else next.delete(alarm.uid); return next }) }}
                    onEdit={() => { setEditing(alarm); window.scrollTo({ top: 0 }) }}
                    onDelete={() => { void remove([alarm.uid]) }}
                    onTest={type.testAlert ? () => { void test(alarm) } : undefined}
                  />
                ))}
              </ul>
            </section>
            )}
      </Status>
    </>
  )
}

interface BulkProps {
  count: number
  chosen: number[]
  busy: boolean
  onSelectAll: (on: boolean) => void
  onDelete: () => void
  onDistance: (distance: number, all: boolean) => void
}

/** Select all, and what to do with the selection (delete, distance) or with every alarm (distance). */
function BulkBar ({ count, chosen, busy, onSelectAll, onDelete, onDistance }: BulkProps) {
  const { t } = useTranslation()
  const [distance, setDistance] = useState('')
  const [error, setError] = useState<string | null>(null)
  const apply = (all: boolean): void => {
    const n = Number(distance)
    if (distance.trim() === '' || !Number.isInteger(n) || n < 0 || n > 40_000_000) {
      setError(t('fields.errors.range', { min: 0, max: 40_000_000 }))
      return
    }
    setError(null)
    onDistance(n, all)
  }
  return (
    <div className='bulk-bar'>
      <label className='check'>
        <input type='checkbox' checked={chosen.length === count} ref={(el) => { if (el !== null) el.indeterminate = chosen.length > 0 && chosen.length < count }} onChange={(e) => { onSelectAll(e.target.checked) }} />
        <span>{t('alarms.selectAll')}</span>
      </label>
      <span className='muted small' aria-live='polite'>{t('alarms.selectedCount', { count: chosen.length })}</span>
      <div className='bulk-distance'>
        <label className='label' htmlFor='bulk-distance'>{t('alarms.distanceLabel')}</label>
        <span className='input-unit'>
          <input id='bulk-distance' className='input' inputMode='numeric' value={distance} aria-invalid={error !== null} aria-describedby={error !== null ? 'bulk-distance-error' : undefined} onChange={(e) => { setDistance(e.target.value) }} />
          <span className='unit' aria-hidden='true'>m</span>
        </span>
        {error !== null && <p id='bulk-distance-error' className='field-error'>{error}</p>}
        <div className='bulk-buttons'>
          <button type='button' className='button' disabled={busy || chosen.length === 0} onClick={() => { apply(false) }}>{t('alarms.distanceSelected', { count: chosen.length })}</button>
          <button type='button' className='button' disabled={busy} onClick={() => { apply(true) }}>{t('alarms.distanceAll')}</button>
          <button type='button' className='button button-danger' disabled={busy || chosen.length === 0} onClick={onDelete}>{t('alarms.deleteSelected', { count: chosen.length })}</button>
        </div>
      </div>
    </div>
  )
}
