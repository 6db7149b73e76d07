import type { TFunction } from 'i18next'
import type { AlarmTypeDescriptor, FieldDescriptor } from '../alarm-types'
import { gruntName, maxLevelName, monsterName, raidLevelName, type Monster, type RaidLevel } from '../pickers/game-data'
import { formatNumber, memoOn } from '../i18n/format'
import { areaLabel } from '../area-names'
import { minutes, MINUTES, OPEN_TOP, rangeWord, WORDED_PAIRS } from './game-words'
import type { Alarm } from './form-model'

/** What the sentence needs besides the alarm: names from the game data, when they could be loaded. */
export interface Vocabulary {
  t: TFunction
  monsters: Monster[] | null
  raidLevels: RaidLevel[] | null
  number: (value: number, options?: Intl.NumberFormatOptions) => string
  numberRange: (start: number, end: number, options?: Intl.NumberFormatOptions) => string
  /** Gym names by id, from the scanner; an id without a name is shown as it is. */
  gymNames: Map<string, string>
  /** A boss's move names by id, where the list's type has a move filter; a move without one is its number. */
  moves?: Record<string, string> | null
}

/** Fields the subject or the scope already say, or that do not narrow what matches. */
const NOT_FILTERS = new Set(['pokemon_id', 'form', 'level', 'reward_type', 'reward', 'grunt_type', 'lure_id', 'fort_type',
  'distance', 'override_areas', 'override_location_label', 'template', 'ping', 'clean'])

/** Integer fields whose numbers have names (team 2 is Valor). */
const NAMED = new Set(['gender', 'team', 'rsvp_changes', 'pvp_ranking_evolution', 'evolution'])

const num = (value: unknown): number => typeof value === 'number' ? value : Number(value)

// Constant options: the formatters are found by them (i18n/format.ts), one per language.
const PERCENT: Intl.NumberFormatOptions = { style: 'unit', unit: 'percent' }
const SECONDS: Intl.NumberFormatOptions = { style: 'unit', unit: 'second' }
const PLAIN: Intl.NumberFormatOptions = {}
const KILOMETRES: Intl.NumberFormatOptions = { style: 'unit', unit: 'kilometer', maximumFractionDigits: 1 }
const METRES: Intl.NumberFormatOptions = { style: 'unit', unit: 'meter' }

/**
 * Builds every number format the cards use. Building an `Intl` formatter costs far more than using one,
 * and a list's first cards would otherwise build them all inside the frame that draws them: the alarm
 * page does it ahead, in idle time while its list loads.
 */
export function prepareCardFormats (language: string): void {
  for (const options of [PERCENT, SECONDS, PLAIN, KILOMETRES, METRES, MINUTES]) formatNumber(language, 0, options)
}

/** How a field's number is written in the page's language: its unit (percent, seconds) as `Intl` writes it. */
const unitOptions = (field: FieldDescriptor): Intl.NumberFormatOptions =>
  field.unit === '%' ? PERCENT : field.unit === 's' ? SECONDS : PLAIN

/**
 * Words that depend on the language alone (a field's label, a named value), translated once per `t`: each of
 * a thousand cards asks for the same few dozen, and a translation with its fallback costs several lookups.
 */
const words = new WeakMap<TFunction, Map<string, string>>()
const word = (t: TFunction, key: string, translate: () => string): string => memoOn(words, t, key, translate)

const fieldLabel = (t: TFunction, name: string): string => word(t, `alarms.fields.${name}`, () => t(`alarms.fields.${name}`))

/** A number through `Intl` (seconds as minutes); a value that is not a number (a text filter) as it is. */
function quantity (field: FieldDescriptor, value: unknown, v: Vocabulary): string {
  if (!(typeof value === 'number' || (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))))) return String(value)
  return field.unit === 's' ? minutes(num(value), v.number) : v.number(num(value), unitOptions(field))
}

/** One end of a pair: its game word (XL, Rare, 5 min) where it has one, else its number. */
const endText = (pair: string, field: FieldDescriptor, value: unknown, v: Vocabulary): string =>
  rangeWord(pair, num(value), v.t, v.number) ?? quantity(field, value, v)

/** The alarm types whose subjects name raid levels (through `levelName`), and so need them loaded. */
export const LEVEL_NAMING_TYPES: ReadonlySet<string> = new Set(['raid', 'egg'])

export function levelName (v: Vocabulary, level: number): string {
  if (level === 90) return v.t('pickers.everyLevel')
  return raidLevelName(v.t, level, v.raidLevels?.find((l) => l.value === level)?.name ?? v.t('pickers.level', { level }))
}

/** What the alarm is about: the pokemon, the raid level, the reward, the grunt, the lure… */
function subject (type: AlarmTypeDescriptor, alarm: Alarm, v: Vocabulary): string {
  const { t } = v
  const pokemon = (id: unknown, form: unknown = 0) => num(id) === 0 ? t('pickers.everyPokemon') : monsterName(v.monsters, num(id), num(form ?? 0))
  switch (type.type) {
    case 'pokemon':
      return pokemon(alarm.pokemon_id, alarm.form)
    case 'raid':
    case 'maxbattle':
      return num(alarm.pokemon_id) === 9000 ? t('describe.levelOf', { level: type.type === 'maxbattle' ? maxLevelName(t, num(alarm.level), t('pickers.level', { level: num(alarm.level) })) : levelName(v, num(alarm.level)), type: t(`alarms.types.${type.type}`) }) : t('describe.pokemonOf', { name: pokemon(alarm.pokemon_id, alarm.form), type: t(`alarms.types.${type.type}`) })
    case 'egg':
      return t('describe.eggOf', { level: levelName(v, num(alarm.level)) })
    case 'quest': {
      const kind = num(alarm.reward_type)
      const reward = num(alarm.reward)
      if (kind === 2) return reward === 0 ? t('describe.anyItem') : t(`pickers.items.${reward}`, { defaultValue: t('describe.item', { id: reward }) })
      if (kind === 3) return reward === 0 ? t('describe.anyStardust') : t('describe.stardust', { amount: v.number(reward) })
      if (kind === 7) return t('describe.questPokemon', { name: pokemon(reward, alarm.form) })
      if (kind === 4) return t('describe.candy', { name: reward === 0 ? t('pickers.everyPokemon') : pokemon(reward) })
      return t('describe.megaEnergy', { name: reward === 0 ? t('pickers.everyPokemon') : pokemon(reward) })
    }
    case 'invasion':
      return t('describe.grunt', { grunt: t(`picker.invasions.${String(alarm.grunt_type ?? '').toLowerCase()}`, { defaultValue: gruntName(String(alarm.grunt_type ?? '')) }) })
    case 'lure':
      return t(`pickers.values.lure_id.${num(alarm.lure_id)}`)
    case 'nest':
      return t('describe.nest', { name: pokemon(alarm.pokemon_id, alarm.form) })
    case 'gym':
      return t('describe.gym', { team: t(`pickers.values.team.${num(alarm.team)}`) })
    case 'fort':
      return t(`pickers.values.fort_type.${String(alarm.fort_type)}`)
    default:
      return t(type.labelKey)
  }
}

function valueText (field: FieldDescriptor, value: unknown, v: Vocabulary): string {
  if (field.name === 'gym_id') return v.gymNames.get(String(value)) ?? String(value)
  if (field.name === 'move') return v.moves?.[String(value)] ?? String(value)
  if (field.kind === 'boolean') return fieldLabel(v.t, field.name)
  if (field.kind === 'enum' || NAMED.has(field.name)) return word(v.t, `pickers.values.${field.name}.${String(value)}`, () => v.t(`pickers.values.${field.name}.${String(value)}`, { defaultValue: String(value) }))
  if (Array.isArray(value)) return value.join(', ')
  return quantity(field, value, v)
}

/** The filters that differ from "anything": ranges as "IV ≥ 90" or "IV 90–95", other values as "label: value". */
function filters (type: AlarmTypeDescriptor, alarm: Alarm, v: Vocabulary): string[] {
  return filterParts(type, alarm, v).map((p) => p.text)
}

/** Each type's fields by name, made once per descriptor (a list of a thousand cards reads it for every card). */
const fieldMaps = new WeakMap<AlarmTypeDescriptor, Map<string, FieldDescriptor>>()
function fieldsByName (type: AlarmTypeDescriptor): Map<string, FieldDescriptor> {
  let byName = fieldMaps.get(type)
  if (byName === undefined) {
    byName = new Map(type.fields.map((f) => [f.name, f]))
    fieldMaps.set(type, byName)
  }
  return byName
}

function filterParts (type: AlarmTypeDescriptor, alarm: Alarm, v: Vocabulary): Array<{ field: string, text: string }> {
  const { t } = v
  const byName = fieldsByName(type)
  const done = new Set<string>()
  const parts: Array<{ field: string, text: string }> = []
  // A field without a default is "anything" at the engine's zero (e.g. PvP mega evolution 0).
  const differs = (f: FieldDescriptor): boolean => alarm[f.name] !== undefined && alarm[f.name] !== null && String(alarm[f.name]) !== String(f.default ?? '') &&
    !(f.default === null && (alarm[f.name] === 0 || alarm[f.name] === '')) &&
    !(f.kind === 'boolean' && num(alarm[f.name]) === 0) && !(Array.isArray(alarm[f.name]) && (alarm[f.name] as unknown[]).length === 0)
  for (const field of type.fields) {
    // A gym alarm's subject is its team; for raids and eggs the team is a filter like any other.
    if (NOT_FILTERS.has(field.name) || done.has(field.name) || (field.name === 'team' && type.type === 'gym')) continue
    // The engine matches a stardust quest by its floor in `reward`; `amount` counts items, candy and energy only.
    if (field.name === 'amount' && type.type === 'quest' && num(alarm.reward_type) === 3) continue
    const base = field.name.replace(/^(min|max)_/, '')
    const lowName = byName.has(`min_${base}`) ? `min_${base}` : byName.has(base) && byName.has(`max_${base}`) ? base : null
    const highName = byName.has(`max_${base}`) ? `max_${base}` : null
    if (lowName !== null && highName !== null) {
      done.add(lowName).add(highName)
      const low = byName.get(lowName)!
      const high = byName.get(highName)!
      const label = () => word(t, `describe.range.${base}`, () => t(`describe.range.${base}`, { defaultValue: fieldLabel(t, lowName) }))
      // A top at the field's own top or at the engine's largest integer bounds nothing: "≥ x", never "x–2147483647".
      const bounded = differs(high) && num(alarm[highName]) < Math.min(high.max ?? OPEN_TOP, OPEN_TOP)
      const lowText = endText(base, low, alarm[lowName], v)
      const highText = endText(base, low, alarm[highName], v)
      if (differs(low) && bounded) parts.push({ field: base, text: `${label()} ${WORDED_PAIRS.has(base) ? (lowText === highText ? lowText : `${lowText}–${highText}`) : v.numberRange(num(alarm[lowName]), num(alarm[highName]), unitOptions(low))}` })
      // "≥ XXL" is just XXL: the game has nothing above its top word.
      else if (differs(low)) parts.push({ field: base, text: WORDED_PAIRS.has(base) && num(alarm[lowName]) >= (high.max ?? OPEN_TOP) ? `${label()} ${lowText}` : `${label()} ≥ ${lowText}` })
      else if (bounded) parts.push({ field: base, text: `${label()} ≤ ${highText}` })
      continue
    }
    if (!differs(field)) continue
    parts.push({ field: field.name, text: field.kind === 'boolean' ? valueText(field, alarm[field.name], v) : `${fieldLabel(t, field.name)}: ${valueText(field, alarm[field.name], v)}` })
  }
  return parts
}

/** Where it is delivered: within a distance of the pin, in chosen areas, or in the profile's areas. */
export function scope (alarm: Alarm, v: Vocabulary): string {
  const distance = num(alarm.distance ?? 0)
  const areas = Array.isArray(alarm.override_areas) ? alarm.override_areas as string[] : []
  if (distance > 0) {
    const shown = distance >= 1000 ? v.number(distance / 1000, KILOMETRES) : v.number(distance, METRES)
    // An alarm measured from a place of its own ("Home", "Work") names it; else the distance is from the profile's location.
    const place = typeof alarm.override_location_label === 'string' ? alarm.override_location_label.trim() : ''
    return place === '' ? v.t('describe.within', { distance: shown }) : v.t('describe.withinOf', { distance: shown, place })
  }
  if (areas.length > 0) return v.t('describe.inAreas', { areas: areas.map(areaLabel).join(', ') })
  return v.t('describe.inYourAreas')
}

/** The card's sentence, e.g. "Dragonite, IV ≥ 90, within 2 km". */
export function describeAlarm (type: AlarmTypeDescriptor, alarm: Alarm, v: Vocabulary): string {
  return [subject(type, alarm, v), ...filters(type, alarm, v), scope(alarm, v)].join(', ')
}

/** The sentence in parts, so the editor can name several subjects ("Pikachu or Raichu"). */
export function describeParts (type: AlarmTypeDescriptor, alarm: Alarm, v: Vocabulary): { subject: string, filters: string[], scope: string } {
  return { subject: subject(type, alarm, v), filters: filters(type, alarm, v), scope: scope(alarm, v) }
}

/** The subject of an alarm, for sorting and searching. */
export const subjectOf = (type: AlarmTypeDescriptor, alarm: Alarm, v: Vocabulary): string => subject(type, alarm, v)

export interface Pill { key: string, text: string, tone: 'iv' | 'cp' | 'level' | 'pvp' | 'gender' | 'size' | 'time' | 'scope' | 'clean' | 'template' | 'other' }

const PILL_TONES: Record<string, Pill['tone']> = {
  iv: 'iv', cp: 'cp', level: 'level', gender: 'gender', size: 'size', time: 'time'
}

/**
 * What a card shows: its subject, its sentence (for screen readers and the action buttons' names) and its
 * coloured pills, each filter that narrows the alarm, its PvP league and rank, where it is delivered, clean-up
 * and template. The subject, filters and scope are worked out once for all three.
 */
export function describeCard (type: AlarmTypeDescriptor, alarm: Alarm, v: Vocabulary): { subject: string, sentence: string, pills: Pill[] } {
  const parts = filterParts(type, alarm, v)
  const about = subject(type, alarm, v)
  const where = scope(alarm, v)
  return { subject: about, sentence: [about, ...parts.map((p) => p.text), where].join(', '), pills: pills(alarm, parts, where, v) }
}

function pills (alarm: Alarm, parts: Array<{ field: string, text: string }>, where: string, v: Vocabulary): Pill[] {
  const { t } = v
  const out: Pill[] = []
  const league = num(alarm.pvp_ranking_league ?? 0)
  for (const part of parts) {
    if (part.field.startsWith('pvp_ranking_') && part.field !== 'pvp_ranking_evolution') continue
    out.push({ key: part.field, text: part.text, tone: PILL_TONES[part.field.replace(/^min_/, '')] ?? 'other' })
  }
  if (league > 0) {
    const worst = num(alarm.pvp_ranking_worst ?? 4096)
    const best = num(alarm.pvp_ranking_best ?? 1)
    out.push({ key: 'pvp', text: t('describe.pvp', { league: t(`pickers.values.pvp_ranking_league.${league}`, { defaultValue: String(league) }), best, worst }), tone: 'pvp' })
  }
  out.push({ key: 'scope', text: where, tone: 'scope' })
  if (num(alarm.clean ?? 0) > 0) out.push({ key: 'clean', text: t('describe.clean'), tone: 'clean' })
  if (alarm.template !== null && alarm.template !== undefined && String(alarm.template) !== '') out.push({ key: 'template', text: t('describe.template', { name: String(alarm.template) }), tone: 'template' })
  return out
}
