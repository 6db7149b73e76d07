import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import L from 'leaflet'
import type { Explanation } from '../../../schemas/alarm-explanations'
import type { AlarmTypeDescriptor } from '../alarm-types'
import { ApiError, explanations, userLocation } from '../api'
import { alarmSentence, reason, reasons } from '../explain/sentences'
import { MapView } from '../maps/MapView'
import { loadRaidLevels, monsterName, raidLevelName, type RaidLevel } from '../pickers/game-data'
import { EVENT_OF, EventFields, eventOf, initialValues, type CheckValues } from './CheckEvent'
import { describeAlarm, type Vocabulary } from './describe'
import '../explain/sentences.css'
import type { Alarm } from './form-model'

/** The kinds of alarm an event can be described for here: pokemon and raids below, the others by their fields (CheckEvent.tsx). */
export const CHECKABLE = new Set(['pokemon', 'raid', ...Object.keys(EVENT_OF)])
/** How many of the member's other alarms the answer names; the rest are counted. */
const OTHERS_SHOWN = 8
/** The engine's "every pokemon" / "by level" markers, never a species to describe an event with. */
const NOT_A_SPECIES = new Set([0, 9000])

interface Point { latitude: number, longitude: number }
type Answer = { status: 'idle' } | { status: 'checking' } | { status: 'failed', message: string } | { status: 'ready', answer: Explanation }

const timeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone
const whole = (text: string, min: number, max: number): number | null => {
  const n = Number(text)
  return text.trim() !== '' && Number.isInteger(n) && n >= min && n <= max ? n : null
}

/**
 * "Check this alarm": the member describes an event of the alarm's type (a pokemon's species, stats, CP
 * and level; a raid's level and boss; the other types' own fields, CheckEvent.tsx) and a place (their pin or a point on the map) and sees whether this alarm, as saved, would alert them,
 * and which of their other alarms would. The server decides, with the engine's rules (docs/explanations.md).
 */
export function AlarmCheck ({ type, alarm, vocabulary }: { type: AlarmTypeDescriptor, alarm: Alarm, vocabulary: Vocabulary }) {
  const { t } = useTranslation()
  const id = useId()
  const [open, setOpen] = useState(false)
  const raid = type.type === 'raid'
  const described = type.type !== 'pokemon' && !raid
  const [values, setValues] = useState<CheckValues>(() => initialValues(type.type, alarm))
  const setValue = useCallback((field: string, value: string) => { setValues((v) => ({ ...v, [field]: value })) }, [])
  const savedSpecies = Number(alarm.pokemon_id ?? 0)
  const [species, setSpecies] = useState(() => NOT_A_SPECIES.has(savedSpecies) ? (raid ? '0-0' : '1-0') : `${savedSpecies}-${Number(alarm.form ?? 0)}`)
  const [stats, setStats] = useState({ attack: '15', defense: '15', stamina: '15' })
  const [cp, setCp] = useState('1500')
  const [level, setLevel] = useState('30')
  const savedLevel = Number(alarm.level ?? 0)
  const [raidLevel, setRaidLevel] = useState(String(savedLevel > 0 && savedLevel < 90 ? savedLevel : 5))
  const [raidLevels, setRaidLevels] = useState<RaidLevel[] | null>(null)
  const [where, setWhere] = useState<'pin' | 'map'>('pin')
  const [pin, setPin] = useState<Point | null | undefined>(undefined)
  const [point, setPoint] = useState<Point | null>(null)
  // The map loads in a chunk of its own: until it is drawn it has no centre to take.
  const [mapReady, setMapReady] = useState(false)
  const [answer, setAnswer] = useState<Answer>({ status: 'idle' })
  const [problem, setProblem] = useState<string | null>(null)
  const mapRef = useRef<L.Map | null>(null)

  useEffect(() => {
    if (!open) return
    const controller = new AbortController()
    userLocation.get(controller.signal)
      // The engine keeps 0, 0 for a member who has not set a pin.
      .then((found) => { setPin(found.latitude === 0 && found.longitude === 0 ? null : { latitude: found.latitude, longitude: found.longitude }) })
      .catch(() => { if (!controller.signal.aborted) setPin(null) })
    if (raid) void loadRaidLevels().then(setRaidLevels, () => undefined)
    return () => { controller.abort() }
  }, [open, raid])
  useEffect(() => { if (pin === null) setWhere('map') }, [pin])

  const speciesChoices = useMemo(() => {
    const list = (vocabulary.monsters ?? []).map((m) => ({ key: `${m.id}-${m.form.id}`, name: monsterName(vocabulary.monsters, m.id, m.form.id) }))
    if (!list.some((c) => c.key === species)) {
      const [idText, formText] = species.split('-')
      if (Number(idText) > 0) list.unshift({ key: species, name: monsterName(vocabulary.monsters, Number(idText), Number(formText)) })
    }
    return list
  }, [vocabulary.monsters, species])

  const numbers = { attack: whole(stats.attack, 0, 15), defense: whole(stats.defense, 0, 15), stamina: whole(stats.stamina, 0, 15) }
  const iv = numbers.attack === null || numbers.defense === null || numbers.stamina === null ? null : ((numbers.attack + numbers.defense + numbers.stamina) * 100) / 45
  const place = where === 'pin' ? pin ?? null : point

  const check = async (event: React.FormEvent): Promise<void> => {
    event.preventDefault()
    const cpValue = whole(cp, 10, 10_000)
    const levelValue = whole(level, 1, 55)
    const raidLevelValue = whole(raidLevel, 1, 15)
    const now = Math.floor(Date.now() / 1000)
    const other = described && place !== null ? eventOf(type.type, values, place, now) : null
    const missing = place === null
      ? t('check.choosePoint')
      : described ? (other === null ? t('check.badAmounts') : null) : raid ? (raidLevelValue === null ? t('check.badNumbers') : null) : iv === null || cpValue === null || levelValue === null ? t('check.badNumbers') : null
    setProblem(missing)
    if (missing !== null || place === null) return
    const [pokemonId, form] = species.split('-').map(Number) as [number, number]
    const scanned = other ?? (raid
      ? { type: 'raid' as const, message: { ...place, gym_id: 'check', level: raidLevelValue, end: now + 2700, pokemon_id: pokemonId, form } }
      : { type: 'pokemon' as const, message: { ...place, pokemon_id: pokemonId, form, disappear_time: now + 1800, individual_attack: numbers.attack, individual_defense: numbers.defense, individual_stamina: numbers.stamina, cp: cpValue, pokemon_level: levelValue } })
    setAnswer({ status: 'checking' })
    try {
      setAnswer({ status: 'ready', answer: await explanations.explainEvent(scanned, timeZone()) })
    } catch (err) {
      setAnswer({ status: 'failed', message: err instanceof ApiError ? err.message : t('status.failed') })
    }
  }

  const onMap = (map: L.Map): (() => void) => {
    mapRef.current = map
    setMapReady(true)
    const start = point ?? pin
    if (start !== null && start !== undefined) map.setView([start.latitude, start.longitude], 14)
    const marker = point === null ? null : L.circleMarker([point.latitude, point.longitude], { radius: 8, color: '#1d4ed8', fillOpacity: 1 }).addTo(map)
    const clicked = (e: L.LeafletMouseEvent) => { setPoint({ latitude: e.latlng.lat, longitude: e.latlng.lng }) }
    map.on('click', clicked)
    return () => { map.off('click', clicked); marker?.remove(); mapRef.current = null; setMapReady(false) }
  }
  const takeCentre = (): void => {
    const centre = mapRef.current?.getCenter()
    if (centre !== undefined) setPoint({ latitude: centre.lat, longitude: centre.lng })
  }
  const coordinates = (p: Point): string => t('check.point', { lat: vocabulary.number(p.latitude, { maximumFractionDigits: 4 }), lon: vocabulary.number(p.longitude, { maximumFractionDigits: 4 }) })
  const statField = (name: keyof typeof stats) => (
    <label key={name} className='range-input'>
      <span className='small'>{t(`check.${name}`)}</span>
      <input className='input' inputMode='numeric' value={stats[name]} onChange={(e) => { setStats((s) => ({ ...s, [name]: e.target.value })) }} />
    </label>
  )

  return (
    <section className='alarm-check' aria-labelledby={`${id}-title`}>
      <h4 id={`${id}-title`} className='visually-hidden'>{t('check.title')}</h4>
      <button type='button' className='button' aria-expanded={open} aria-controls={`${id}-panel`} onClick={() => { setOpen((o) => !o) }}>{t('check.open')}</button>
      <div id={`${id}-panel`} hidden={!open}>
        {open && (
          <form className='stack-tight' noValidate onSubmit={(e) => { void check(e) }} aria-busy={answer.status === 'checking'}>
            <p className='small muted'>{t('check.intro')}</p>
            {raid && (
              <div className='field'>
                <label className='label' htmlFor={`${id}-level`}>{t('check.raidLevel')}</label>
                <select id={`${id}-level`} className='select' value={raidLevel} onChange={(e) => { setRaidLevel(e.target.value) }}>
                  {(raidLevels ?? [1, 3, 5, 6].map((value) => ({ value, name: String(value) }))).map((l) => <option key={l.value} value={l.value}>{raidLevelName(t, l.value, l.name)}</option>)}
                </select>
              </div>
            )}
            {described && <EventFields type={type.type} values={values} set={setValue} id={id} species={speciesChoices} />}
            {!described && (
              <div className='field'>
                <label className='label' htmlFor={`${id}-species`}>{raid ? t('check.boss') : t('check.species')}</label>
                <select id={`${id}-species`} className='select' value={species} onChange={(e) => { setSpecies(e.target.value) }}>
                  {raid && <option value='0-0'>{t('check.egg')}</option>}
                  {speciesChoices.map((c) => <option key={c.key} value={c.key}>{c.name}</option>)}
                </select>
              </div>
            )}
            {!raid && !described && (
              <>
                <fieldset className='field'>
                  <legend className='label'>{t('check.stats')}</legend>
                  <div className='range-inputs'>{(['attack', 'defense', 'stamina'] as const).map(statField)}</div>
                  <p className='small' aria-live='polite'>{iv === null ? t('check.badStats') : t('check.iv', { iv: vocabulary.number(iv, { style: 'unit', unit: 'percent', maximumFractionDigits: 2 }) })}</p>
                </fieldset>
                <div className='range-inputs'>
                  <label className='range-input'><span className='small'>{t('check.cp')}</span><input className='input' inputMode='numeric' value={cp} onChange={(e) => { setCp(e.target.value) }} /></label>
                  <label className='range-input'><span className='small'>{t('check.level')}</span><input className='input' inputMode='numeric' value={level} onChange={(e) => { setLevel(e.target.value) }} /></label>
                </div>
              </>
            )}
            <fieldset className='field'>
              <legend className='label'>{t('check.where')}</legend>
              <div className='segmented-choice'>
                <label className='check'><input type='radio' name={`${id}-where`} checked={where === 'pin'} disabled={pin === null} onChange={() => { setWhere('pin') }} /><span>{pin === null ? t('check.noPin') : t('check.pin')}</span></label>
                <label className='check'><input type='radio' name={`${id}-where`} checked={where === 'map'} onChange={() => { setWhere('map') }} /><span>{t('check.map')}</span></label>
              </div>
              {where === 'map' && (
                <>
                  <MapView label={t('check.mapLabel')} onReady={onMap} version={point} />
                  <button type='button' className='button' disabled={!mapReady} onClick={takeCentre}>{t('check.useCentre')}</button>
                </>
              )}
              <p className='small muted' aria-live='polite'>{place === null ? t('check.noPoint') : coordinates(place)}</p>
            </fieldset>
            {problem !== null && <p className='field-error' role='alert'>{problem}</p>}
            <div><button type='submit' className='button button-primary' disabled={answer.status === 'checking'}>{answer.status === 'checking' ? t('check.checking') : t('check.submit')}</button></div>
            <div role='status' aria-live='polite'>
              {answer.status === 'failed' && <p className='notice notice-error'>{answer.message}</p>}
              {answer.status === 'ready' && <CheckAnswer answer={answer.answer} type={type} alarm={alarm} vocabulary={vocabulary} />}
            </div>
          </form>
        )}
      </div>
    </section>
  )
}

function CheckAnswer ({ answer, type, alarm, vocabulary }: { answer: Explanation, type: AlarmTypeDescriptor, alarm: Alarm, vocabulary: Vocabulary }) {
  const { t } = useTranslation()
  const mine = answer.alarms.find((a) => a.uid === alarm.uid && a.type === type.type)
  // The alarms of this kind only: an egg's event is a raid's too, and each kind is worded by its own descriptor.
  const others = answer.alarms.filter((a) => a !== mine && a.type === type.type)
  const profileName = (no: number): string => answer.profiles.find((p) => p.profileNo === no)?.name ?? String(no)
  const described = (a: Explanation['alarms'][number]): string => describeAlarm(type, { ...a.alarm, uid: a.uid }, vocabulary)
  const verdict = mine === undefined
    ? t('check.thisMissing')
    : mine.matches ? t('check.thisYes') : t('check.thisNo', { reasons: mine.failed.every((f) => f.filter === 'profile_no') ? t('check.notActive', { profile: profileName(mine.profileNo) }) : reasons(mine, vocabulary) })
  return (
    <div className='stack-tight'>
      <p className={mine?.matches === true ? 'explain-verdict explain-yes' : 'explain-verdict explain-no'}>{verdict}</p>
      {answer.member.map((f) => <p key={f.filter} className='notice'>{reason(f, vocabulary)}</p>)}
      <h5 className='label'>{t('check.others')}</h5>
      {others.length === 0
        ? <p className='small muted'>{t('check.noOthers')}</p>
        : (
          <ul className='explain-alarms'>
            {others.slice(0, OTHERS_SHOWN).map((a) => (
              <li key={a.uid} className={a.matches ? 'explain-alarm explain-yes' : 'explain-alarm'}>{alarmSentence(a, described(a), profileName(a.profileNo), vocabulary)}</li>
            ))}
          </ul>
          )}
      {others.length > OTHERS_SHOWN && <p className='small muted'>{t('check.more', { count: others.length - OTHERS_SHOWN })}</p>}
    </div>
  )
}
