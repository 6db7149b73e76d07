import { useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import L from 'leaflet'
import type { Static } from '@sinclair/typebox'
import { Card } from '../../components/Card'
import { Page } from '../../components/Page'
import type { ImportProblemSchema } from '../../../../schemas/geofences'
import { ApiError, areas as areasApi, geofences } from '../../api'
import { useDialogs } from '../../components/Dialog'
import { useSubmit } from '../../forms/useSubmit'
import { MapView, fitTo, toLatLngs } from '../../maps/MapView'
import { downloadJson } from '../../maps/download'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'

/** The server's limit (MAX_FENCES_PER_USER), shown so nobody draws an eleventh to find out. */
const FENCE_LIMIT = 10

type UserFence = Awaited<ReturnType<typeof geofences.custom>>[number]
type ImportProblem = Static<typeof ImportProblemSchema>

interface Loaded { fences: UserFence[], areas: string[] }

async function load (signal: AbortSignal): Promise<Loaded> {
  const [fences, areas] = await Promise.all([
    geofences.custom(signal),
    areasApi.chosen(signal)
  ])
  return { fences, areas: areas.map((a) => a.toLowerCase()) }
}

/**
 * The user's own geofences: draw one by tapping its corners on the map, rename, turn alerts for it on
 * and off, delete, send it for review, and move them in and out as GeoJSON files.
 */
export default function Geofences () {
  const { t } = useTranslation()
  usePageTitle(t('nav.geofences'))
  const [state, retry, replace] = useLoad(load)
  return (
    <Page title={t('geofences.title')} intro={t('geofences.intro')}>
      <Status state={state} retry={retry}>{(data) => <Editor data={data} reload={retry} replace={replace} />}</Status>
    </Page>
  )
}

function Editor ({ data, reload, replace }: { data: Loaded, reload: () => void, replace: (d: Loaded) => void }) {
  const { t } = useTranslation()
  const [drawing, setDrawing] = useState(false)
  const [points, setPoints] = useState<Array<[number, number]>>([])
  const [name, setName] = useState('')
  const [problems, setProblems] = useState<ImportProblem[]>([])
  const { busy, error, setError, run } = useSubmit()
  const ask = useDialogs()
  const full = data.fences.length >= FENCE_LIMIT
  const drawingRef = useRef(drawing)
  drawingRef.current = drawing
  const fitted = useRef(false)

  const draw = (map: L.Map): () => void => {
    const layers: L.Polygon[] = data.fences.map((fence) => L.polygon(toLatLngs(fence.polygon), {
      color: fence.status === 'rejected' ? '#9b1c1c' : '#1d4ed8', weight: 2, fillOpacity: 0.15
    }).bindTooltip(fence.displayName).addTo(map))
    const sketch = points.length > 0 ? L.polygon(toLatLngs(points), { color: '#b45309', dashArray: '6 4', weight: 3, interactive: false }).addTo(map) : null
    const corners = points.map((p) => L.circleMarker(p, { radius: 6, color: '#b45309', fillOpacity: 1, interactive: false }).addTo(map))
    const add = (event: L.LeafletMouseEvent): void => {
      if (!drawingRef.current) return
      setPoints((current) => [...current, [round(event.latlng.lat), round(event.latlng.lng)]])
    }
    map.on('click', add)
    if (!fitted.current && layers.length > 0) {
      fitTo(map, layers)
      fitted.current = true
    }
    return () => {
      map.off('click', add)
      for (const layer of [...layers, ...corners]) layer.remove()
      sketch?.remove()
    }
  }

  const save = (): void => {
    void run(async () => {
      await geofences.create(name.trim(), points)
      setDrawing(false)
      setPoints([])
      setName('')
      reload()
    })
  }

  const act = async (fence: UserFence, action: 'activate' | 'deactivate' | 'submit' | 'delete'): Promise<void> => {
    if (action === 'delete' && !await ask.confirm({ title: t('geofences.confirmDelete', { name: fence.displayName }), confirmLabel: t('geofences.delete'), danger: true })) return
    void run(async () => {
      if (action === 'delete') await geofences.remove(fence.id)
      else await geofences.act(fence.id, action)
      reload()
    })
  }

  const rename = async (fence: UserFence): Promise<void> => {
    const next = await ask.prompt({ title: t('geofences.rename'), confirmLabel: t('geofences.rename'), input: { label: t('geofences.renamePrompt'), value: fence.displayName } })
    if (next === null || next.trim() === '' || next === fence.displayName) return
    void run(async () => {
      const renamed = await geofences.rename(fence.id, next.trim())
      replace({ ...data, fences: data.fences.map((f) => f.id === fence.id ? renamed : f) })
    })
  }

  const importFile = (file: File): void => {
    setProblems([])
    void run(async () => {
      let body: unknown
      try {
        body = JSON.parse(await file.text())
      } catch {
        setError(t('geofences.notJson'))
        return
      }
      try {
        await geofences.importGeoJson(body)
        reload()
      } catch (err) {
        if (err instanceof ApiError) setProblems(importProblems(err.body))
        throw err
      }
    })
  }

  const exportFile = (): void => {
    void run(async () => { downloadJson('geofences.geojson', await geofences.exportGeoJson()) })
  }

  return (
    <>
      {ask.dialog}
      <div className={drawing ? 'map-drawing' : undefined}>
        <MapView label={t('geofences.map')} onReady={draw} version={`${data.fences.map((f) => f.id).join(',')}|${points.length}`} />
      </div>
      <Card className='stack' title={t('geofences.drawTitle')}>
        <p className='muted'>{t('geofences.count', { count: data.fences.length, limit: FENCE_LIMIT })}</p>
        {!drawing && (
          <div className='row'>
            <button type='button' className='button button-primary' disabled={full} onClick={() => { setDrawing(true); setPoints([]) }}>{t('geofences.startDrawing')}</button>
            {full && <span className='muted'>{t('geofences.full')}</span>}
          </div>
        )}
        {drawing && (
          <div className='stack'>
            <p role='status' aria-live='polite'>{t('geofences.drawHelp', { count: points.length })}</p>
            <div className='field'>
              <label htmlFor='fence-name'>{t('geofences.name')}</label>
              <input id='fence-name' className='input' value={name} maxLength={200} onChange={(e) => { setName(e.target.value) }} />
            </div>
            <div className='row'>
              <button type='button' className='button' disabled={points.length === 0} onClick={() => { setPoints((p) => p.slice(0, -1)) }}>{t('geofences.undoPoint')}</button>
              <button type='button' className='button' onClick={() => { setDrawing(false); setPoints([]) }}>{t('geofences.cancel')}</button>
              <button type='button' className='button button-primary' disabled={busy || points.length < 3 || name.trim() === ''} onClick={save}>{t('geofences.save')}</button>
            </div>
          </div>
        )}
      </Card>
      <div role='alert'>
        {error !== null && (
          <div className='notice notice-error'>
            <p>{error}</p>
            {problems.length > 0 && (
              <ul className='import-problems'>
                {problems.map((p, i) => <li key={i}><strong>{p.featureName}</strong>: {p.reason}</li>)}
              </ul>
            )}
          </div>
        )}
      </div>
      <Card className='stack' title={t('geofences.listTitle')}>
        {data.fences.length === 0 && <p className='muted'>{t('geofences.none')}</p>}
        <ul className='list'>
          {data.fences.map((fence) => {
            const active = data.areas.includes((fence.promotedName ?? fence.kojiName).toLowerCase())
            return (
              <li key={fence.id} className='list-item stack'>
                <div className='stack-tight'>
                  <strong>{fence.displayName}</strong>
                  <span className='fence-status'>
                    {t(`geofences.status.${fence.status}`)} · {t('geofences.points', { count: fence.pointCount })} · {active ? t('geofences.alertsOn') : t('geofences.alertsOff')}
                  </span>
                  {fence.status === 'rejected' && fence.reviewNotes !== null && <span className='notice notice-warning'>{t('geofences.rejectedBecause', { reason: fence.reviewNotes })}</span>}
                  {fence.status === 'approved' && fence.promotedName !== null && <span className='muted'>{t('geofences.approvedAs', { name: fence.promotedName })}</span>}
                </div>
                <div className='row'>
                  <button type='button' className='button' disabled={busy} onClick={() => { void act(fence, active ? 'deactivate' : 'activate') }}>
                    {active ? t('geofences.deactivate', { name: fence.displayName }) : t('geofences.activate', { name: fence.displayName })}
                  </button>
                  {(fence.status === 'active' || fence.status === 'rejected') && <button type='button' className='button' disabled={busy} onClick={() => { void rename(fence) }}>{t('geofences.rename')}</button>}
                  {fence.status === 'active' && <button type='button' className='button' disabled={busy} onClick={() => { void act(fence, 'submit') }}>{t('geofences.submit')}</button>}
                  <button type='button' className='button button-danger' disabled={busy} onClick={() => { void act(fence, 'delete') }}>{t('geofences.delete')}</button>
                </div>
              </li>
            )
          })}
        </ul>
      </Card>
      <Card className='stack' title={t('geofences.filesTitle')}>
        <div className='field'>
          <label htmlFor='fence-import'>{t('geofences.import')}</label>
          <input
            id='fence-import' type='file' accept='.geojson,.json,application/geo+json,application/json' disabled={busy || full} onChange={(e) => {
              const file = e.target.files?.[0]
              e.target.value = ''
              if (file !== undefined) importFile(file)
            }}
          />
          <p className='help'>{t('geofences.importHelp')}</p>
        </div>
        <div><button type='button' className='button' disabled={busy || data.fences.length === 0} onClick={exportFile}>{t('geofences.export')}</button></div>
      </Card>
    </>
  )
}

/** Six decimals is about 10 cm: enough for a fence, and keeps the stored polygon readable. */
const round = (value: number): number => Math.round(value * 1e6) / 1e6

/** The per-feature reasons of a refused import (`errors` of the 400 answer). */
function importProblems (body: unknown): ImportProblem[] {
  const list = (body as { errors?: unknown } | undefined)?.errors
  return Array.isArray(list) ? list as ImportProblem[] : []
}
