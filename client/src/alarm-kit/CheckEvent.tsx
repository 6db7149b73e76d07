import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { EventType } from '../../../schemas/alarm-explanations'
import { gruntName, loadMaxLevels, loadRaidLevels, maxLevelName, raidLevelName, type RaidLevel } from '../pickers/game-data'
import { useGrunts } from '../pickers/useGameData'
import { QUEST_ITEMS } from '../pickers/grid/choices'
import type { Alarm } from './form-model'

/**
 * "Check this alarm" for the alarm types other than pokemon and raids: an event of the type described by
 * its own fields (an egg's level, a quest's reward, a grunt, a lure, a nest's spawns, a gym's change, a
 * fort's change, a max battle), written as the scanner's webhook message the engine would receive.
 */

/** The alarm types described here, each with the scanner event it is matched against. */
export const EVENT_OF: Readonly<Record<string, EventType>> = {
  egg: 'raid', quest: 'quest', invasion: 'invasion', lure: 'lure', nest: 'nest', gym: 'gym', fort: 'fort_update', maxbattle: 'max_battle'
}

export type CheckValues = Record<string, string>
export interface SpeciesChoice { key: string, name: string }
interface Point { latitude: number, longitude: number }

const REWARD_TYPES = ['2', '3', '4', '7', '12']
const LURES = ['501', '502', '503', '504', '505', '506']
const TEAMS = ['0', '1', '2', '3']
const FORT_TYPES = ['pokestop', 'gym']
const CHANGES = ['new', 'removal', 'name', 'description', 'location', 'image_url']
/** The quest rewards that are a pokemon's (an encounter, its candy, its mega energy); an item's is an item. */
const SPECIES_REWARDS = new Set(['4', '7', '12'])
const ITEMS = QUEST_ITEMS.filter((id) => id !== 0)

const text = (value: unknown, fallback: string): string => value === undefined || value === null || value === '' ? fallback : String(value)
const amount = (value: string, max: number): number | null => {
  const n = Number(value)
  return value.trim() !== '' && Number.isInteger(n) && n >= 0 && n <= max ? n : null
}

/** The event's fields, first filled from the alarm so that, as saved, it is likely to match. */
export function initialValues (type: string, alarm: Alarm): CheckValues {
  const species = (id: unknown, form: unknown) => Number(id ?? 0) > 0 && Number(id) < 9000 ? `${Number(id)}-${Number(form ?? 0)}` : '1-0'
  switch (type) {
    case 'egg': return { level: text(alarm.level, '5') === '90' ? '5' : text(alarm.level, '5'), team: text(alarm.team, '4') === '4' ? '1' : text(alarm.team, '1') }
    case 'quest': {
      const kind = text(alarm.reward_type, '7')
      const reward = Number(alarm.reward ?? 0)
      return { rewardType: kind, item: kind === '2' && reward > 0 ? String(reward) : '1', species: SPECIES_REWARDS.has(kind) ? species(reward, alarm.form) : '1-0', amount: kind === '3' ? text(alarm.reward, '1000') : '1' }
    }
    case 'invasion': return { grunt: '', wanted: text(alarm.grunt_type, '').toLowerCase() }
    case 'lure': return { lure: text(alarm.lure_id, '0') === '0' ? '501' : text(alarm.lure_id, '501') }
    case 'nest': return { species: species(alarm.pokemon_id, alarm.form), spawns: text(alarm.min_spawn_avg, '10') }
    case 'gym': return { team: text(alarm.team, '4') === '4' ? '1' : text(alarm.team, '1'), teamBefore: '0', slots: '6', slotsBefore: '6', inBattle: '' }
    case 'fort': return { fortType: text(alarm.fort_type, 'pokestop') === 'gym' ? 'gym' : 'pokestop', change: 'new', named: 'yes' }
    default: return { level: text(alarm.level, '1') === '9000' ? '1' : text(alarm.level, '1'), species: Number(alarm.pokemon_id ?? 0) > 0 && Number(alarm.pokemon_id) < 9000 ? species(alarm.pokemon_id, alarm.form) : '0-0', gmax: Number(alarm.gmax ?? 0) === 1 ? 'yes' : '' }
  }
}

/** The webhook message of the described event; null when a number is not one the fields allow. */
export function eventOf (type: string, v: CheckValues, place: Point, nowS: number): { type: EventType, message: Record<string, unknown> } | null {
  const [pokemonId, form] = (v.species ?? '0-0').split('-').map(Number) as [number, number]
  const eventType = EVENT_OF[type] as EventType
  const at = { latitude: place.latitude, longitude: place.longitude }
  switch (type) {
    case 'egg': return { type: eventType, message: { ...at, gym_id: 'check', level: Number(v.level), end: nowS + 2700, pokemon_id: 0, team_id: Number(v.team) } }
    case 'quest': {
      const count = amount(v.amount ?? '', 100_000)
      if (count === null || (count === 0 && v.rewardType !== '7')) return null
      const info = v.rewardType === '2' ? { item_id: Number(v.item), amount: count } : v.rewardType === '3' ? { amount: count } : v.rewardType === '7' ? { pokemon_id: pokemonId, form_id: form } : { pokemon_id: pokemonId, amount: count }
      return { type: eventType, message: { ...at, pokestop_id: 'check', rewards: [{ type: Number(v.rewardType), info }] } }
    }
    case 'invasion': return v.grunt === '' ? null : { type: eventType, message: { ...at, pokestop_id: 'check', incident_grunt_type: Number(v.grunt), display_type: 1, incident_expire_timestamp: nowS + 1800 } }
    case 'lure': return { type: eventType, message: { ...at, pokestop_id: 'check', lure_id: Number(v.lure), lure_expiration: nowS + 1800 } }
    case 'nest': {
      const spawns = Number(v.spawns)
      if ((v.spawns ?? '').trim() === '' || !Number.isFinite(spawns) || spawns < 0) return null
      return { type: eventType, message: { ...at, nest_id: 0, pokemon_id: pokemonId, form, pokemon_avg: spawns } }
    }
    case 'gym': {
      const slots = amount(v.slots ?? '', 6)
      const before = amount(v.slotsBefore ?? '', 6)
      if (slots === null || before === null) return null
      return { type: eventType, message: { ...at, id: 'check', team_id: Number(v.team), old_team_id: Number(v.teamBefore), slots_available: slots, old_slots_available: before, is_in_battle: v.inBattle === 'yes' ? 1 : 0 } }
    }
    case 'fort': {
      const fort = { id: 'check', type: v.fortType, name: v.named === 'yes' ? 'Check' : '', location: { lat: place.latitude, lon: place.longitude } }
      const edit = v.change !== 'new' && v.change !== 'removal'
      return { type: eventType, message: { change_type: edit ? 'edit' : v.change, ...(edit ? { edit_types: [v.change] } : {}), ...(v.change !== 'removal' ? { new: fort } : {}), ...(v.change !== 'new' ? { old: fort } : {}) } }
    }
    default: return { type: eventType, message: { ...at, id: 'check', battle_level: Number(v.level), battle_pokemon_id: pokemonId, battle_pokemon_form: form, battle_pokemon_bread_mode: v.gmax === 'yes' ? 2 : 1 } }
  }
}

interface FieldsProps { type: string, values: CheckValues, set: (field: string, value: string) => void, id: string, species: SpeciesChoice[] }

/** The fields that describe an event of the type. */
export function EventFields ({ type, values, set, id, species }: FieldsProps) {
  const { t } = useTranslation()
  const { grunts, failed: gruntsFailed, retry: retryGrunts } = useGrunts()
  const [levels, setLevels] = useState<RaidLevel[] | null>(null)
  useEffect(() => {
    if (type !== 'egg' && type !== 'maxbattle') return
    let live = true
    void (type === 'egg' ? loadRaidLevels() : loadMaxLevels()).then((l) => { if (live) setLevels(l) }, () => undefined)
    return () => { live = false }
  }, [type])
  // A typed grunt by its type and gender; a leader (Cliff, Giovanni) by name, as the alarms name them.
  const gruntChoices = Object.entries(grunts ?? {}).map(([gruntId, g]) => {
    const typed = /grunt/i.test(g.grunt)
    const key = (typed ? g.type : g.grunt).toLowerCase()
    const name = t(`picker.invasions.${key}`, { defaultValue: gruntName(typed ? g.type : g.grunt) })
    return { value: gruntId, key, label: typed && g.gender > 0 ? `${name} · ${t(`pickers.values.gender.${g.gender}`)}` : name }
  }).sort((a, b) => a.label.localeCompare(b.label))
  // The grunt list arrives after the fields: the first grunt of the alarm's type is chosen then.
  const firstGrunt = (gruntChoices.find((g) => g.key === values.wanted) ?? gruntChoices[0])?.value
  useEffect(() => { if (type === 'invasion' && values.grunt === '' && firstGrunt !== undefined) set('grunt', firstGrunt) }, [type, values.grunt, firstGrunt, set])

  const select = (field: string, label: string, options: Array<{ value: string, label: string }>) => (
    <div className='field'>
      <label className='label' htmlFor={`${id}-${field}`}>{label}</label>
      <select id={`${id}-${field}`} className='select' value={values[field]} onChange={(e) => { set(field, e.target.value) }}>
        {options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
      </select>
    </div>
  )
  const number = (field: string, label: string) => (
    <label key={field} className='range-input'><span className='small'>{label}</span><input className='input' inputMode='decimal' value={values[field]} onChange={(e) => { set(field, e.target.value) }} /></label>
  )
  const flag = (field: string, label: string) => (
    <label className='check'><input type='checkbox' checked={values[field] === 'yes'} onChange={(e) => { set(field, e.target.checked ? 'yes' : '') }} /><span>{label}</span></label>
  )
  const speciesSelect = (label: string, extra: Array<{ value: string, label: string }> = []) => select('species', label, [...extra, ...species.map((s) => ({ value: s.key, label: s.name }))])
  const levelSelect = (label: string, name: (l: RaidLevel) => string) =>
    select('level', label, (levels ?? []).some((l) => String(l.value) === values.level) ? (levels ?? []).map((l) => ({ value: String(l.value), label: name(l) })) : [{ value: values.level ?? '', label: values.level ?? '' }, ...(levels ?? []).map((l) => ({ value: String(l.value), label: name(l) }))])
  const teams = TEAMS.map((team) => ({ value: team, label: t(`pickers.values.team.${team}`) }))

  switch (type) {
    case 'egg':
      return <>{levelSelect(t('check.raidLevel'), (l) => raidLevelName(t, l.value, l.name))}{select('team', t('alarms.fields.team'), teams)}</>
    case 'quest':
      return (
        <>
          {select('rewardType', t('alarms.fields.reward_type'), REWARD_TYPES.map((r) => ({ value: r, label: t(`pickers.values.reward_type.${r}`) })))}
          {values.rewardType === '2' && select('item', t('alarms.fields.reward'), ITEMS.map((item) => ({ value: String(item), label: t(`pickers.items.${item}`, { defaultValue: `#${item}` }) })))}
          {SPECIES_REWARDS.has(values.rewardType ?? '') && speciesSelect(t('check.species'))}
          {values.rewardType !== '7' && <div className='range-inputs'>{number('amount', t('check.amount'))}</div>}
        </>
      )
    case 'invasion':
      // Drawn once the alarm's grunt is chosen: before that the list would show its first grunt for a moment.
      if (grunts !== null && (values.grunt !== '' || firstGrunt === undefined)) return select('grunt', t('alarms.fields.grunt_type'), gruntChoices)
      return gruntsFailed
        ? (
          <div className='notice notice-error' role='alert'>
            <p>{t('check.gruntsFailed')}</p>
            <button type='button' className='button' onClick={retryGrunts}>{t('status.retry')}</button>
          </div>
          )
        : <p className='small muted' role='status'>{t('status.loading')}</p>
    case 'lure':
      return select('lure', t('alarms.fields.lure_id'), LURES.map((lure) => ({ value: lure, label: t(`pickers.values.lure_id.${lure}`) })))
    case 'nest':
      return <>{speciesSelect(t('check.species'))}<div className='range-inputs'>{number('spawns', t('check.spawnsPerHour'))}</div></>
    case 'gym':
      return (
        <>
          {select('team', t('alarms.fields.team'), teams)}
          {select('teamBefore', t('check.teamBefore'), teams)}
          <div className='range-inputs'>{number('slots', t('check.slots'))}{number('slotsBefore', t('check.slotsBefore'))}</div>
          {flag('inBattle', t('check.inBattle'))}
        </>
      )
    case 'fort':
      return (
        <>
          {select('fortType', t('alarms.fields.fort_type'), FORT_TYPES.map((f) => ({ value: f, label: t(`check.fort.${f}`) })))}
          {select('change', t('check.change'), CHANGES.map((c) => ({ value: c, label: t(`pickers.values.change_types.${c}`) })))}
          {flag('named', t('check.named'))}
        </>
      )
    default:
      return (
        <>
          {levelSelect(t('check.battleLevel'), (l) => maxLevelName(t, l.value, l.name))}
          {speciesSelect(t('check.boss'), [{ value: '0-0', label: t('check.unknownBoss') }])}
          {flag('gmax', t('check.gmax'))}
        </>
      )
  }
}
