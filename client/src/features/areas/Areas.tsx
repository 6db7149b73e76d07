import { useMemo, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import L from 'leaflet'
import { Card } from '../../components/Card'
import { Page } from '../../components/Page'
import { ApiError, areas } from '../../api'
import '../../forms/forms.css'
import { MapView, fitTo, toLatLngs } from '../../maps/MapView'
import { Status } from '../../shell/Status'
import { useLoad } from '../../shell/useLoad'
import { usePageTitle } from '../../shell/usePageTitle'

type MapFence = Awaited<ReturnType<typeof areas.fences>>['geofence'][number]

interface Loaded { fences: MapFence[], selected: string[] }

async function load (signal: AbortSignal): Promise<Loaded> {
  const [map, selected] = await Promise.all([
    areas.fences(signal),
    areas.chosen(signal)
  ])
  // The engine matches area names case-insensitively and stores them lower-cased.
  return { fences: map.geofence.filter((f) => f.userSelectable !== false), selected: selected.map((n) => n.toLowerCase()) }
}

/**
 * The areas of the active profile: tap a polygon or tick it in the list. Every change is written at
 * once, and the list of areas the engine answered with is shown, so what stuck is never a guess.
 */
export default function Areas () {
  const { t } = useTranslation()
  usePageTitle(t('nav.areas'))
  const [state, retry] = useLoad(load)
  return (
    <Page title={t('maps.areasTitle')} intro={t('maps.areasIntro')}>
      <Status state={state} retry={retry}>{(data) => <AreaPicker {...data} />}</Status>
    </Page>
  )
}

interface Group { name: string, all: MapFence[], shown: MapFence[] }

/**
 * The selection answers a tap at once and is written behind it. Only one write is under way at a
 * time; taps made meanwhile are gathered and the newest selection is written next, so the engine
 * always ends on what the screen shows. A refused write puts the ticks back to what the engine last
 * confirmed and says why.
 */
function useOptimisticAreas (initial: string[]): {
  selected: string[]
  confirmed: string[] | null
  saving: boolean
  failure: string | null
  choose: (next: string[]) => void
} {
  const { t } = useTranslation()
  const [selected, setSelected] = useState(initial)
  const [confirmed, setConfirmed] = useState<string[] | null>(null)
  const [saving, setSaving] = useState(false)
  const [failure, setFailure] = useState<string | null>(null)
  const lastSaved = useRef(initial)
  const wanted = useRef(initial)
  const writing = useRef(false)

  const write = async (): Promise<void> => {
    writing.current = true
    setSaving(true)
    try {
      while (true) {
        const sending = wanted.current
        const saved = await areas.choose(sending)
        lastSaved.current = saved.map((n) => n.toLowerCase())
        if (wanted.current === sending) {
          wanted.current = lastSaved.current
          setSelected(lastSaved.current)
          setConfirmed(saved)
          break
        }
      }
    } catch (err) {
      wanted.current = lastSaved.current
      setSelected(lastSaved.current)
      setConfirmed(null)
      setFailure(t('placesAndSearch.rolledBack', { reason: err instanceof ApiError ? err.message : t('status.failed') }))
    } finally {
      writing.current = false
      setSaving(false)
    }
  }

  const choose = (next: string[]): void => {
    wanted.current = next
    setSelected(next)
    setFailure(null)
    if (!writing.current) void write()
  }

  return { selected, confirmed, saving, failure, choose }
}

function AreaPicker ({ fences, selected: initial }: Loaded) {
  const { t } = useTranslation()
  const { selected, confirmed, saving, failure, choose } = useOptimisticAreas(initial)
  const [search, setSearch] = useState('')
  // Map callbacks outlive renders; they read the latest selection through this.
  const latest = useRef(selected)
  latest.current = selected
  // The view is fitted to the areas once; later redraws (after a tap) keep where the user is looking.
  const fitted = useRef(false)
  const polygons = useRef<L.Polygon[]>([])

  const toggle = (name: string): void => {
    const key = name.toLowerCase()
    choose(latest.current.includes(key) ? latest.current.filter((n) => n !== key) : [...latest.current, key])
  }

  /** Ticks (or unticks) every area listed in a group, leaving the other groups as they are. */
  const setGroup = (list: MapFence[], on: boolean): void => {
    const keys = list.map((f) => f.name.toLowerCase())
    const others = latest.current.filter((n) => !keys.includes(n))
    choose(on ? [...others, ...keys] : others)
  }

  const groups = useMemo((): Group[] => {
    const needle = search.trim().toLowerCase()
    const byGroup = new Map<string, Group>()
    for (const fence of fences) {
      const name = fence.group ?? ''
      const group = byGroup.get(name) ?? { name, all: [], shown: [] }
      byGroup.set(name, group)
      group.all.push(fence)
      const haystack = `${fence.name} ${name} ${fence.description ?? ''}`.toLowerCase()
      if (needle === '' || haystack.includes(needle)) group.shown.push(fence)
    }
    return [...byGroup.values()].filter((g) => g.shown.length > 0).sort((a, b) => a.name.localeCompare(b.name))
  }, [fences, search])

  const draw = (map: L.Map): () => void => {
    const layers: L.Polygon[] = []
    for (const fence of fences) {
      const rings = fence.multipath ?? (fence.path !== undefined ? [fence.path] : [])
      if (rings.length === 0) continue
      const chosen = selected.includes(fence.name.toLowerCase())
      // The name sits on the area itself, as on a paper map; the list below is the accessible way to choose.
      const polygon = L.polygon(rings.map(toLatLngs), {
        color: chosen ? '#1d4ed8' : '#6b7280',
        weight: chosen ? 3 : 1,
        fillOpacity: chosen ? 0.35 : 0.08,
        className: chosen ? 'area-selected' : 'area'
      }).bindTooltip(fence.name, { permanent: true, direction: 'center', className: chosen ? 'area-label area-label-selected' : 'area-label' })
      polygon.on('click', () => { toggle(fence.name) })
      polygon.addTo(map)
      polygon.getElement()?.setAttribute('data-area', fence.name.toLowerCase())
      layers.push(polygon)
    }
    polygons.current = layers
    if (!fitted.current) {
      fitTo(map, layers)
      fitted.current = true
    }
    return () => { for (const layer of layers) layer.remove() }
  }

  return (
    <>
      {fences.length === 0
        ? <p className='notice'>{t('maps.noAreas')}</p>
        : <MapView label={t('maps.areasMap')} onReady={draw} version={selected.join('|')} fit={{ label: t('placesAndSearch.fitAreas'), to: (map) => { fitTo(map, polygons.current) } }} />}
      <div role='status' aria-live='polite'>
        {saving && <p className='muted'>{t('status.saving')}</p>}
        {confirmed !== null && !saving && (
          <p className='notice'>{confirmed.length === 0 ? t('maps.engineAnswerNone') : t('maps.engineAnswer', { areas: confirmed.join(', ') })}</p>
        )}
      </div>
      <div role='alert'>{failure !== null && <p className='notice notice-error'>{failure}</p>}</div>
      <Card title={t('maps.areaList', { count: selected.length })}>
        <div className='field'>
          <label htmlFor='area-search'>{t('maps.searchAreas')}</label>
          <input id='area-search' className='input' type='search' value={search} onChange={(e) => { setSearch(e.target.value) }} />
        </div>
        {groups.length === 0 && <p className='muted'>{t('maps.noMatch')}</p>}
        {groups.map((group) => {
          const label = group.name === '' ? t('maps.ungrouped') : group.name
          const ticked = group.all.filter((f) => selected.includes(f.name.toLowerCase())).length
          const shownTicked = group.shown.filter((f) => selected.includes(f.name.toLowerCase())).length
          return (
            <fieldset key={group.name} className='area-group field'>
              <legend>{label} <span className='muted area-count'>{t('placesAndSearch.groupCount', { count: ticked, total: group.all.length })}</span></legend>
              <div className='row area-group-actions'>
                <button type='button' className='button' disabled={shownTicked === group.shown.length} aria-label={t('placesAndSearch.selectAllIn', { group: label })} onClick={() => { setGroup(group.shown, true) }}>{t('placesAndSearch.selectAll')}</button>
                <button type='button' className='button' disabled={shownTicked === 0} aria-label={t('placesAndSearch.selectNoneIn', { group: label })} onClick={() => { setGroup(group.shown, false) }}>{t('placesAndSearch.selectNone')}</button>
              </div>
              <div className='check-list check-columns'>
                {group.shown.map((fence) => (
                  <label key={fence.name} className='check'>
                    <input type='checkbox' checked={selected.includes(fence.name.toLowerCase())} onChange={() => { toggle(fence.name) }} />
                    <span>{fence.name}</span>
                  </label>
                ))}
              </div>
            </fieldset>
          )
        })}
      </Card>
    </>
  )
}
