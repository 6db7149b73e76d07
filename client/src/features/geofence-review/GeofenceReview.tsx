import { useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import L from 'leaflet'
import { Page } from '../../components/Page'
import { geofences } from '../../api'
import { Dialog } from '../../components/Dialog'
import { useSubmit } from '../../forms/useSubmit'
import { MapView, fitTo, toLatLngs } from '../../maps/MapView'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'
import '../../forms/forms.css'

type Submission = Awaited<ReturnType<typeof geofences.submissions>>[number]
type Region = Awaited<ReturnType<typeof geofences.regions>>[number]
type View = 'queue' | 'all'

/**
 * Geofences of members. The queue shows pending submissions one at a time on the map: approve (it
 * becomes a public area under a name, region and group the admin chooses) or reject with a reason the
 * member sees. "All geofences" shows every member fence on one map, with deletion.
 */
export default function GeofenceReview () {
  const { t } = useTranslation()
  usePageTitle(t('nav.geofenceReview'))
  const [view, setView] = useState<View>('queue')
  const id = useId()
  return (
    <Page title={t('geofenceReview.title')}>
      <fieldset className='field'>
        <legend className='visually-hidden'>{t('geofenceReview.view')}</legend>
        <div className='segmented'>
          {(['queue', 'all'] as const).map((choice) => (
            <label key={choice} className='segmented-option'>
              <input type='radio' name={`${id}-view`} value={choice} checked={view === choice} onChange={() => { setView(choice) }} />
              <span>{t(`geofenceReview.views.${choice}`)}</span>
            </label>
          ))}
        </div>
      </fieldset>
      {view === 'queue' ? <Queue /> : <AllFences />}
    </Page>
  )
}

function Queue () {
  const { t } = useTranslation()
  const [state, retry, replace] = useLoad(async (signal) => {
    const [list, regions] = await Promise.all([
      geofences.submissions(signal),
      geofences.regions(signal).catch(() => [])
    ])
    return { list, regions }
  })
  // Kept here, not in the list: the last decision is still announced when it empties the queue.
  const [outcome, setOutcome] = useState<string | null>(null)
  return (
    <>
      <div role='status' aria-live='polite'>{outcome !== null && <p className='notice'>{outcome}</p>}</div>
      <Status state={state} retry={retry}>
        {({ list, regions }) => list.length === 0
          ? <p className='muted'>{t('geofenceReview.none')}</p>
          : <Review list={list} regions={regions} done={(id, message) => { setOutcome(message); replace({ list: list.filter((s) => s.id !== id), regions }) }} />}
      </Status>
    </>
  )
}

function Review ({ list, regions, done }: { list: Submission[], regions: Region[], done: (id: number, outcome: string) => void }) {
  const { t } = useTranslation()
  const [shown, setShown] = useState(list[0]?.id ?? 0)
  const current = list.find((s) => s.id === shown) ?? list[0]

  const draw = (map: L.Map): () => void => {
    const layers = list.map((s) => L.polygon(toLatLngs(s.polygon), {
      color: s.id === current?.id ? '#b45309' : '#6b7280', weight: s.id === current?.id ? 3 : 1, fillOpacity: 0.15
    }).bindTooltip(s.displayName).on('click', () => { setShown(s.id) }).addTo(map))
    const focus = layers[list.findIndex((s) => s.id === current?.id)]
    if (focus !== undefined) fitTo(map, [focus])
    return () => { for (const layer of layers) layer.remove() }
  }

  return (
    <>
      <MapView label={t('geofenceReview.map')} onReady={draw} version={`${current?.id ?? 0}|${list.length}`} />
      <ul className='list'>
        {list.map((s) => (
          <li key={s.id} className='list-item stack'>
            <div className='stack-tight'>
              <strong>{s.displayName}</strong>
              <span className='small muted'>{t('geofenceReview.by', { owner: s.ownerName ?? s.humanId, count: s.pointCount })}</span>
            </div>
            {s.id === current?.id
              ? <Decision key={s.id} submission={s} regions={regions} done={done} />
              : <div><button type='button' className='button' onClick={() => { setShown(s.id) }}>{t('geofenceReview.show', { name: s.displayName })}</button></div>}
          </li>
        ))}
      </ul>
    </>
  )
}

/** The name rule of the server (1–50 characters of letters, digits, space and - ' . ( ) &). */
const NAME_RULE = /^[A-Za-z0-9 \-'.()&]{1,50}$/

function Decision ({ submission, regions, done }: { submission: Submission, regions: Region[], done: (id: number, outcome: string) => void }) {
  const { t } = useTranslation()
  const id = useId()
  const [name, setName] = useState(submission.displayName)
  const [region, setRegion] = useState(submission.parentId !== undefined && submission.parentId !== null ? String(submission.parentId) : '')
  const [group, setGroup] = useState(submission.groupName)
  const [reason, setReason] = useState('')
  const [nameProblem, setNameProblem] = useState<string | null>(null)
  const { busy, error, run } = useSubmit()

  const approve = (): void => {
    if (!NAME_RULE.test(name.trim())) { setNameProblem(t('geofenceReview.nameRule')); return }
    setNameProblem(null)
    void run(async () => {
      const chosen = regions.find((r) => String(r.id) === region)
      await geofences.approve(submission.id, {
        promotedName: name.trim(),
        groupName: group.trim() === '' && chosen !== undefined ? chosen.displayName : group.trim(),
        ...(chosen !== undefined && { parentId: chosen.id })
      })
      done(submission.id, t('geofenceReview.approved', { name: name.trim() }))
    })
  }
  const reject = (): void => {
    void run(async () => {
      await geofences.reject(submission.id, reason.trim())
      done(submission.id, t('geofenceReview.rejected', { name: submission.displayName }))
    })
  }

  return (
    <div className='stack'>
      <form className='stack' noValidate onSubmit={(e) => { e.preventDefault(); approve() }} aria-labelledby={`${id}-approve`}>
        <h3 id={`${id}-approve`} className='label'>{t('geofenceReview.approveTitle')}</h3>
        <div className='field'>
          <label htmlFor={`${id}-name`}>{t('geofenceReview.publicName')}</label>
          <input
            id={`${id}-name`} className='input' maxLength={50} value={name} aria-invalid={nameProblem !== null}
            aria-describedby={nameProblem !== null ? `${id}-name-error ${id}-name-help` : `${id}-name-help`} onChange={(e) => { setName(e.target.value) }}
          />
          <span id={`${id}-name-help`} className='help'>{t('geofenceReview.publicNameHelp')}</span>
          {nameProblem !== null && <p id={`${id}-name-error`} className='field-error'>{nameProblem}</p>}
        </div>
        <div className='field'>
          <label htmlFor={`${id}-region`}>{t('geofenceReview.region')}</label>
          <select id={`${id}-region`} className='select' value={region} onChange={(e) => { setRegion(e.target.value) }}>
            <option value=''>{t('geofenceReview.noRegion')}</option>
            {regions.map((r) => <option key={r.id} value={String(r.id)}>{r.displayName}</option>)}
          </select>
          <span className='help'>{regions.length === 0 ? t('geofenceReview.noRegions') : t('geofenceReview.regionHelp')}</span>
        </div>
        <div className='field'>
          <label htmlFor={`${id}-group`}>{t('geofenceReview.group')}</label>
          <input id={`${id}-group`} className='input' maxLength={100} value={group} onChange={(e) => { setGroup(e.target.value) }} />
          <span className='help'>{t('geofenceReview.groupHelp')}</span>
        </div>
        <div><button type='submit' className='button button-primary' disabled={busy}>{t('geofenceReview.approve', { name: submission.displayName })}</button></div>
      </form>
      <div className='field'>
        <label htmlFor={`${id}-reason`}>{t('geofenceReview.reason')}</label>
        <textarea id={`${id}-reason`} className='input' maxLength={2000} value={reason} onChange={(e) => { setReason(e.target.value) }} />
      </div>
      <div><button type='button' className='button button-danger' disabled={busy || reason.trim() === ''} onClick={reject}>{t('geofenceReview.reject', { name: submission.displayName })}</button></div>
      <div role='alert'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>
    </div>
  )
}

const STATUS_COLOUR: Record<string, string> = { active: '#2563eb', pending_review: '#b45309', approved: '#15803d', rejected: '#b91c1c' }

function AllFences () {
  const { t } = useTranslation()
  const [state, retry, replace] = useLoad((signal) => geofences.all(signal))
  const [pending, setPending] = useState<Submission | null>(null)
  const [message, setMessage] = useState<string | null>(null)
  const remove = useSubmit()

  return (
    <>
      <div role='status' aria-live='polite'>{message !== null && <p className='notice'>{message}</p>}</div>
      <Status state={state} retry={retry}>
        {(list) => {
          if (list.length === 0) return <p className='muted'>{t('geofenceReview.noneAtAll')}</p>
          const draw = (map: L.Map): () => void => {
            const layers = list.map((s) => L.polygon(toLatLngs(s.polygon), { color: STATUS_COLOUR[s.status] ?? '#6b7280', weight: 2, fillOpacity: 0.15 })
              .bindTooltip(`${s.displayName} · ${t(`geofenceReview.status.${s.status}`)}`).addTo(map))
            fitTo(map, layers)
            return () => { for (const layer of layers) layer.remove() }
          }
          return (
            <>
              <MapView label={t('geofenceReview.allMap')} onReady={draw} version={String(list.length)} />
              <ul className='list'>
                {list.map((s) => (
                  <li key={s.id} className='list-item stack'>
                    <div className='stack-tight'>
                      <strong>{s.displayName}</strong>
                      <span className='small muted'>{t(`geofenceReview.status.${s.status}`)} · {t('geofenceReview.by', { owner: s.ownerName ?? s.humanId, count: s.pointCount })}</span>
                    </div>
                    <div><button type='button' className='button button-danger' onClick={() => { remove.setError(null); setPending(s) }}>{t('geofenceReview.delete', { name: s.displayName })}</button></div>
                  </li>
                ))}
              </ul>
              <Dialog
                open={pending !== null}
                title={t('geofenceReview.deleteTitle')}
                onClose={() => { setPending(null) }}
                footer={(
                  <>
                    <button type='button' className='button' onClick={() => { setPending(null) }}>{t('dialog.cancel')}</button>
                    <button
                      type='button'
                      className='button button-danger'
                      disabled={remove.busy}
                      onClick={() => {
                        const fence = pending
                        if (fence === null) return
                        void remove.run(async () => {
                          await geofences.removeAny(fence.id)
                          setPending(null)
                          setMessage(t('geofenceReview.deleted', { name: fence.displayName }))
                          replace(list.filter((f) => f.id !== fence.id))
                        })
                      }}
                    >
                      {remove.busy ? t('status.saving') : t('geofenceReview.deleteYes')}
                    </button>
                  </>
                )}
              >
                {pending !== null && <p>{t('geofenceReview.deleteText', { name: pending.displayName, owner: pending.ownerName ?? pending.humanId })}</p>}
                {remove.error !== null && <p className='notice notice-error' role='alert'>{remove.error}</p>}
              </Dialog>
            </>
          )
        }}
      </Status>
    </>
  )
}
