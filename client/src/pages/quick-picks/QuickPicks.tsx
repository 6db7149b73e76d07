import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { api } from '../../api'
import { useDialogs } from '../../components/Dialog'
import { useSubmit } from '../../forms/useSubmit'
import { useSession } from '../../shell/session-context'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'

interface QuickPick {
  id: string
  name: string
  description: string | null
  category: string
  alarmType: string
  scope: 'global' | 'user'
}
interface Entry { definition: QuickPick, appliedState: { trackedUids: number[], profileNo: number } | null }

const ALARM_TYPES = ['monster', 'raid', 'egg', 'quest', 'invasion', 'lure', 'nest', 'gym', 'maxbattle'] as const

/**
 * Ready-made sets of alarms: a member applies one to the active profile (its alarms are created and
 * remembered) and removes it again (exactly those alarms go). Administrators define the global ones.
 */
export default function QuickPicks () {
  const { t } = useTranslation()
  const { user } = useSession()
  usePageTitle(t('nav.quickPicks'))
  const [state, retry] = useLoad((signal) => api<Entry[]>('/api/quick-picks', { signal }), [user.profileNo])
  // Announced from here: the list reloads after every change, and the outcome must outlive that.
  const [message, setMessage] = useState<string | null>(null)
  return (
    <div className='page'>
      <h1>{t('quickPicks.title')}</h1>
      <p className='muted'>{t('quickPicks.intro')}</p>
      <div role='status' aria-live='polite'>{message !== null && <p className='notice'>{message}</p>}</div>
      <Status state={state} retry={retry}>{(entries) => <PickList entries={entries} changed={(outcome) => { setMessage(outcome); retry() }} />}</Status>
      {user.isAdmin && <GlobalPickForm saved={retry} />}
    </div>
  )
}

function PickList ({ entries, changed }: { entries: Entry[], changed: (outcome: string) => void }) {
  const { t } = useTranslation()
  const { user } = useSession()
  const { busy, error, run } = useSubmit()
  const ask = useDialogs()
  const act = async (entry: Entry, action: 'apply' | 'remove' | 'delete'): Promise<void> => {
    const { id, name } = entry.definition
    if (action === 'delete' && !await ask.confirm({ title: t('quickPicks.confirmDelete', { name }), confirmLabel: t('dialog.delete'), danger: true })) return
    void run(async () => {
      if (action === 'apply') {
        const applied = await api<{ trackedUids: number[] }>(`/api/quick-picks/${id}/apply`, { method: 'POST', json: {} })
        changed(t('quickPicks.applied', { name, count: applied.trackedUids.length }))
      } else if (action === 'remove') {
        await api(`/api/quick-picks/${id}/remove`, { method: 'DELETE' })
        changed(t('quickPicks.removed', { name }))
      } else {
        await api(`/api/quick-picks/${id}`, { method: 'DELETE' })
        changed(t('quickPicks.deleted', { name }))
      }
    })
  }
  return (
    <section className='card stack' aria-labelledby='pick-list'>
      {ask.dialog}
      <h2 id='pick-list'>{t('quickPicks.listTitle')}</h2>
      <div role='alert'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>
      {entries.length === 0 && <p className='muted'>{t('quickPicks.none')}</p>}
      <ul className='list'>
        {entries.map((entry) => {
          const { definition: pick, appliedState: applied } = entry
          return (
            <li key={pick.id} className='list-item stack'>
              <div className='stack-tight'>
                <strong>{pick.name}</strong>
                <span className='small muted'>{pick.category} · {t(`quickPicks.types.${pick.alarmType}`)}</span>
                {pick.description !== null && <span>{pick.description}</span>}
                {applied !== null && <span className='badge'>{t('quickPicks.appliedState', { count: applied.trackedUids.length })}</span>}
              </div>
              <div className='row'>
                {applied === null
                  ? <button type='button' className='button button-primary' disabled={busy} onClick={() => { void act(entry, 'apply') }}>{t('quickPicks.apply', { name: pick.name })}</button>
                  : <button type='button' className='button' disabled={busy} onClick={() => { void act(entry, 'remove') }}>{t('quickPicks.remove', { name: pick.name })}</button>}
                {user.isAdmin && pick.scope === 'global' && <button type='button' className='button button-danger' disabled={busy} onClick={() => { void act(entry, 'delete') }}>{t('quickPicks.delete', { name: pick.name })}</button>}
              </div>
            </li>
          )
        })}
      </ul>
    </section>
  )
}

/** Administrators: a global pick from a name, an alarm type and the alarm fields as JSON, or the built-in set. */
function GlobalPickForm ({ saved }: { saved: () => void }) {
  const { t } = useTranslation()
  const [name, setName] = useState('')
  const [category, setCategory] = useState('')
  const [alarmType, setAlarmType] = useState<typeof ALARM_TYPES[number]>('monster')
  const [filters, setFilters] = useState('{ "min_iv": 100 }')
  const [done, setDone] = useState<string | null>(null)
  const { busy, error, setError, run } = useSubmit()
  const ask = useDialogs()
  return (
    <form
      className='card stack' aria-labelledby='pick-new' onSubmit={(e) => {
        e.preventDefault()
        setDone(null)
        let parsed: unknown
        try {
          parsed = JSON.parse(filters)
        } catch {
          setError(t('quickPicks.filtersNotJson'))
          return
        }
        void run(async () => {
          const body = { name: name.trim(), alarmType, filters: parsed, ...(category.trim() !== '' && { category: category.trim() }) }
          await api('/api/quick-picks', { method: 'POST', json: body })
          setDone(t('quickPicks.saved', { name: name.trim() }))
          setName('')
          saved()
        })
      }}
    >
      <h2 id='pick-new'>{t('quickPicks.newTitle')}</h2>
      <div className='field'>
        <label htmlFor='pick-name'>{t('quickPicks.name')}</label>
        <input id='pick-name' className='input' required maxLength={200} value={name} onChange={(e) => { setName(e.target.value) }} />
      </div>
      <div className='field'>
        <label htmlFor='pick-category'>{t('quickPicks.category')}</label>
        <input id='pick-category' className='input' maxLength={50} value={category} onChange={(e) => { setCategory(e.target.value) }} />
      </div>
      <div className='field'>
        <label htmlFor='pick-type'>{t('quickPicks.alarmType')}</label>
        <select id='pick-type' className='input' value={alarmType} onChange={(e) => { setAlarmType(e.target.value as typeof ALARM_TYPES[number]) }}>
          {ALARM_TYPES.map((type) => <option key={type} value={type}>{t(`quickPicks.types.${type}`)}</option>)}
        </select>
      </div>
      <div className='field'>
        <label htmlFor='pick-filters'>{t('quickPicks.filters')}</label>
        <textarea id='pick-filters' className='input' rows={4} aria-describedby='pick-filters-help' value={filters} onChange={(e) => { setFilters(e.target.value) }} />
        <p id='pick-filters-help' className='help'>{t('quickPicks.filtersHelp')}</p>
      </div>
      <div className='row'>
        <button type='submit' className='button button-primary' disabled={busy}>{t('quickPicks.save')}</button>
        <button
          type='button' className='button' disabled={busy} onClick={() => {
            void ask.confirm({ title: t('quickPicks.confirmSeed'), confirmLabel: t('quickPicks.seed') }).then(async (yes) => {
              if (!yes) return
              await run(async () => {
                await api('/api/quick-picks/seed', { method: 'POST' })
                setDone(t('quickPicks.seeded'))
                saved()
              })
            })
          }}
        >{t('quickPicks.seed')}
        </button>
      </div>
      <div role='status' aria-live='polite'>{done !== null && <p className='notice'>{done}</p>}</div>
      <div role='alert'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>
      {ask.dialog}
    </form>
  )
}
