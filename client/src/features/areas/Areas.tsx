import { useMemo, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import L from 'leaflet'
import { areas } from '../../api'
import { useSubmit } from '../../forms/useSubmit'
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
    <div className='page'>
      <h1>{t('maps.areasTitle')}</h1>
      <p className='muted'>{t('maps.areasIntro')}</p>
      <Status state={state} retry={retry}>{(data) => <AreaPicker {...data} />}</Status>
    </div>
  )
}

function AreaPicker ({ fences, selected: initial }: Loaded) {
  const { t } = useTranslation()
  const [selected, setSelected] = useState(initial)
  const [answer, setAnswer] = useState<string[] | null>(null)
  const [search, setSearch] = useState('')
  const { busy, error, run } = useSubmit()
  // Map callbacks outlive renders; they read the latest selection through this.
  const latest = useRef(selected)
  latest.current = selected
  // The view is fitted to the areas once; later redraws (after a tap) keep where the user is looking.
  const fitted = useRef(false)

  const toggle = (name: string): void => {
    const key = name.toLowerCase()
    const next = latest.current.includes(key) ? latest.current.filter((n) => n !== key) : [...latest.current, key]
    void run(async () => {
      const saved = await areas.choose(next)
      const lower = saved.map((n) => n.toLowerCase())
      setSelected(lower)
      setAnswer(saved)
    })
  }

  const groups = useMemo(() => {
    const needle = search.trim().toLowerCase()
    const byGroup = new Map<string, MapFence[]>()
    for (const fence of fences) {
      const haystack = `${fence.name} ${fence.group ?? ''} ${fence.description ?? ''}`.toLowerCase()
      if (needle !== '' && !haystack.includes(needle)) continue
      const group = fence.group ?? ''
      byGroup.set(group, [...(byGroup.get(group) ?? []), fence])
    }
    return [...byGroup.entries()].sort(([a], [b]) => a.localeCompare(b))
  }, [fences, search])

  const draw = (map: L.Map): () => void => {
    const layers: L.Polygon[] = []
    for (const fence of fences) {
      const rings = fence.multipath ?? (fence.path !== undefined ? [fence.path] : [])
      if (rings.length === 0) continue
      const chosen = selected.includes(fence.name.toLowerCase())
      const polygon = L.polygon(rings.map(toLatLngs), {
        color: chosen ? '#1d4ed8' : '#6b7280',
        weight: chosen ? 3 : 1,
        fillOpacity: chosen ? 0.35 : 0.08,
        className: chosen ? 'area-selected' : 'area'
      }).bindTooltip(fence.name, { sticky: true })
      polygon.on('click', () => { toggle(fence.name) })
      // Leaflet draws paths without a name; the list below is the accessible way to choose.
      polygon.addTo(map)
      polygon.getElement()?.setAttribute('data-area', fence.name.toLowerCase())
      layers.push(polygon)
    }
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
        : <MapView label={t('maps.areasMap')} onReady={draw} version={selected.join('|')} />}
      <div role='status' aria-live='polite'>
        {busy && <p className='muted'>{t('status.saving')}</p>}
        {answer !== null && !busy && (
          <p className='notice'>{answer.length === 0 ? t('maps.engineAnswerNone') : t('maps.engineAnswer', { areas: answer.join(', ') })}</p>
        )}
      </div>
      <div role='alert'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>
      <section className='card' aria-labelledby='areas-list'>
        <h2 id='areas-list'>{t('maps.areaList', { count: selected.length })}</h2>
        <div className='field'>
          <label htmlFor='area-search'>{t('maps.searchAreas')}</label>
          <input id='area-search' className='input' type='search' value={search} onChange={(e) => { setSearch(e.target.value) }} />
        </div>
        {groups.length === 0 && <p className='muted'>{t('maps.noMatch')}</p>}
        {groups.map(([group, list]) => (
          <fieldset key={group} className='area-group field'>
            <legend>{group === '' ? t('maps.ungrouped') : group}</legend>
            <div className='check-list check-columns'>
              {list.map((fence) => (
                <label key={fence.name} className='check'>
                  <input type='checkbox' disabled={busy} checked={selected.includes(fence.name.toLowerCase())} onChange={() => { toggle(fence.name) }} />
                  <span>{fence.name}</span>
                </label>
              ))}
            </div>
          </fieldset>
        ))}
      </section>
    </>
  )
}
