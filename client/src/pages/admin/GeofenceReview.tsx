import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import L from 'leaflet'
import { api } from '../../api'
import { useSubmit } from '../../forms/useSubmit'
import { MapView, fitTo, toLatLngs } from '../../maps/MapView'
import type { UserFence } from '../maps/Geofences'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'

type Submission = UserFence & { ownerName: string | null, humanId: string }

/** Pending geofence submissions, one at a time on the map: approve (it becomes a public area) or reject with a reason. */
export default function GeofenceReview () {
  const { t } = useTranslation()
  usePageTitle(t('nav.geofenceReview'))
  const [state, retry, replace] = useLoad((signal) => api<Submission[]>('/api/admin/geofences/submissions', { signal }))
  // Kept here, not in the list: the last decision is still announced when it empties the queue.
  const [outcome, setOutcome] = useState<string | null>(null)
  return (
    <div className='page'>
      <h1>{t('geofenceReview.title')}</h1>
      <div role='status' aria-live='polite'>{outcome !== null && <p className='notice'>{outcome}</p>}</div>
      <Status state={state} retry={retry}>
        {(list) => list.length === 0
          ? <p className='muted'>{t('geofenceReview.none')}</p>
          : <Review list={list} done={(id, message) => { setOutcome(message); replace(list.filter((s) => s.id !== id)) }} />}
      </Status>
    </div>
  )
}

function Review ({ list, done }: { list: Submission[], done: (id: number, outcome: string) => void }) {
  const { t } = useTranslation()
  const [shown, setShown] = useState(list[0]?.id ?? 0)
  const [reason, setReason] = useState('')
  const { busy, error, run } = useSubmit()
  const current = list.find((s) => s.id === shown) ?? list[0]

  const draw = (map: L.Map): () => void => {
    const layers = list.map((s) => L.polygon(toLatLngs(s.polygon), {
      color: s.id === current?.id ? '#b45309' : '#6b7280', weight: s.id === current?.id ? 3 : 1, fillOpacity: 0.15
    }).bindTooltip(s.displayName).on('click', () => { setShown(s.id) }).addTo(map))
    const focus = layers[list.findIndex((s) => s.id === current?.id)]
    if (focus !== undefined) fitTo(map, [focus])
    return () => { for (const layer of layers) layer.remove() }
  }

  const decide = (submission: Submission, decision: 'approve' | 'reject'): void => {
    void run(async () => {
      const body = decision === 'approve' ? {} : { reviewNotes: reason.trim() }
      await api(`/api/admin/geofences/submissions/${submission.id}/${decision}`, { method: 'POST', json: body })
      setReason('')
      done(submission.id, t(decision === 'approve' ? 'geofenceReview.approved' : 'geofenceReview.rejected', { name: submission.displayName }))
    })
  }

  return (
    <>
      <MapView label={t('geofenceReview.map')} onReady={draw} version={`${current?.id ?? 0}|${list.length}`} />
      <div role='alert'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>
      <ul className='list'>
        {list.map((s) => (
          <li key={s.id} className='list-item stack'>
            <div className='stack-tight'>
              <strong>{s.displayName}</strong>
              <span className='small muted'>{t('geofenceReview.by', { owner: s.ownerName ?? s.humanId, count: s.pointCount })}</span>
            </div>
            {s.id === current?.id
              ? (
                <div className='stack'>
                  <div className='row'>
                    <button type='button' className='button button-primary' disabled={busy} onClick={() => { decide(s, 'approve') }}>{t('geofenceReview.approve', { name: s.displayName })}</button>
                  </div>
                  <div className='field'>
                    <label htmlFor={`reason-${s.id}`}>{t('geofenceReview.reason')}</label>
                    <textarea id={`reason-${s.id}`} className='input' maxLength={2000} value={reason} onChange={(e) => { setReason(e.target.value) }} />
                  </div>
                  <div><button type='button' className='button button-danger' disabled={busy || reason.trim() === ''} onClick={() => { decide(s, 'reject') }}>{t('geofenceReview.reject', { name: s.displayName })}</button></div>
                </div>
                )
              : <div><button type='button' className='button' onClick={() => { setShown(s.id) }}>{t('geofenceReview.show', { name: s.displayName })}</button></div>}
          </li>
        ))}
      </ul>
    </>
  )
}
