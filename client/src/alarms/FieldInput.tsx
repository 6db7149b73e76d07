import type { TFunction } from 'i18next'
import { useTranslation } from 'react-i18next'
import type { AlarmTypeDescriptor, FieldDescriptor } from '../alarm-types'
import { ChoicePicker, type Choice } from '../pickers/ChoicePicker'
import { gruntName, loadGruntTypes, loadRaidLevels, raidLevelName } from '../pickers/game-data'
import { GymPicker } from '../pickers/GymPicker'
import { PokemonPicker } from '../pickers/PokemonPicker'
import { TemplateInput } from './TemplateInput'
import { listItems, type FormValues } from './form-model'

/** Integer fields whose numbers name something (team 4 is "any team"): offered as a list of names. */
const NAMED_NUMBERS: Record<string, number[]> = {
  team: [4, 0, 1, 2, 3],
  gender: [0, 1, 2, 3],
  rsvp_changes: [0, 1, 2],
  pvp_ranking_evolution: [0, 1, 2, 3]
}

/** Quest item rewards the game hands out, by item id (names in the "pickers.items" block). */
const QUEST_ITEMS = [0, 1, 2, 3, 101, 102, 103, 104, 201, 202, 701, 703, 705, 706, 708, 709, 1301, 1201, 1202, 1101, 1102, 1103, 1104, 1105, 1106, 1107]

/** The kinds of fort change the engine reports. */
const CHANGE_TYPES = ['name', 'location', 'image_url', 'removal', 'new', 'description']

/** Fields chosen with a picker rather than typed. */
const PICKED = new Set(['pokemon_id', 'level', 'reward', 'clean', 'gym_id'])

/** The bits of `clean` (1 delete after expiry, 2 edit in place, 4 quest summary: quests only). */
export const cleanBits = (type: string): number[] => type === 'quest' ? [1, 2, 4] : [1, 2]

const raidLevelChoices = (t: TFunction, withEveryLevel: boolean) => async (): Promise<Choice[]> => {
  const levels = await loadRaidLevels()
  return [...(withEveryLevel ? [{ value: '90', label: t('pickers.everyLevel') }] : []), ...levels.map((l) => ({ value: String(l.value), label: raidLevelName(t, l.value, l.name) }))]
}
const gruntChoices = async (): Promise<Choice[]> => (await loadGruntTypes()).map((g) => ({ value: g, label: gruntName(g) }))
const choiceCache = new Map<string, () => Promise<Choice[]>>()
/** The loaders keep their identity between renders, so the select does not load again on every keystroke. */
function loader (key: string, make: () => () => Promise<Choice[]>): () => Promise<Choice[]> {
  let found = choiceCache.get(key)
  if (found === undefined) { found = make(); choiceCache.set(key, found) }
  return found
}

interface Props {
  type: AlarmTypeDescriptor
  field: FieldDescriptor
  values: FormValues
  error: string | undefined
  set: (changes: FormValues) => void
}

/**
 * One field of an alarm form: its label, the right control for its kind, its unit and range, its help
 * text and its error, all tied together for screen readers (aria-describedby, aria-invalid).
 */
export function FieldInput ({ type, field, values, error, set }: Props) {
  const { t, i18n } = useTranslation()
  const id = `field-${type.type}-${field.name}`
  const helpId = `${id}-help`
  const errorId = `${id}-error`
  const value = values[field.name] ?? ''
  const label = t(field.labelKey)
  // Help comes from the language file: this type's text, else the field's text for every type. The
  // descriptor's `description` is the API's English documentation (raw numbers such as "4 = any team"
  // that the pickers already name) and is never shown.
  const help = t([field.helpKey, `alarms.help.all.${field.name}`], { defaultValue: '' })
  // A picker or a list of names shows what may be chosen; a number box says its range.
  const picked = PICKED.has(field.name) || NAMED_NUMBERS[field.name] !== undefined
  const range = field.kind !== 'integer' || picked ? '' : field.unit !== undefined ? t('fields.rangeUnit', { min: field.min, max: field.max, unit: field.unit }) : t('fields.range', { min: field.min, max: field.max })
  const describedBy = [help !== '' || range !== '' ? helpId : '', error !== undefined ? errorId : ''].filter((s) => s !== '').join(' ') || undefined
  const invalid = error !== undefined
  const change = (next: string) => { set({ [field.name]: next }) }

  const enumChoices = (): Choice[] => (field.values ?? NAMED_NUMBERS[field.name] ?? []).map((v) => ({
    value: String(v), label: t(`pickers.values.${field.name}.${String(v)}`, { defaultValue: String(v) })
  }))

  let control: React.ReactNode
  let grouped = false
  if (field.name === 'pokemon_id' || (field.name === 'reward' && ['4', '7', '12'].includes(values.reward_type ?? ''))) {
    // The picker sets the form too, when the type has one.
    const formField = 'form'
    control = (
      <PokemonPicker
        inputId={id}
        describedBy={describedBy}
        pokemonId={value === '' ? null : Number(value)}
        form={Number(values[formField]) || 0}
        allowEverything={type.type !== 'raid' && type.type !== 'maxbattle'}
        invalid={invalid}
        onChange={(pokemonId, form) => { set({ [field.name]: String(pokemonId), ...(formField in values ? { [formField]: String(form) } : {}) }) }}
      />
    )
  } else if (field.name === 'reward' && values.reward_type === '2') {
    control = <ChoicePicker inputId={id} describedBy={describedBy} value={value} invalid={invalid} choices={QUEST_ITEMS.map((i) => ({ value: String(i), label: t(`pickers.items.${i}`, { defaultValue: `#${i}` }) }))} onChange={change} />
  } else if (field.name === 'level') {
    control = <ChoicePicker inputId={id} describedBy={describedBy} value={value} invalid={invalid} choices={loader(`levels-${type.type}-${i18n.language}`, () => raidLevelChoices(t, type.type === 'raid'))} onChange={change} />
  } else if (field.name === 'gym_id') {
    control = <GymPicker inputId={id} describedBy={describedBy} value={value} invalid={invalid} onChange={change} />
  } else if (field.name === 'grunt_type') {
    control = <ChoicePicker inputId={id} describedBy={describedBy} value={value} invalid={invalid} choices={loader('grunts', () => gruntChoices)} onChange={change} />
  } else if (field.kind === 'enum' || NAMED_NUMBERS[field.name] !== undefined) {
    control = <ChoicePicker inputId={id} describedBy={describedBy} value={value} invalid={invalid} choices={enumChoices()} onChange={change} />
  } else if (field.kind === 'boolean') {
    return (
      <div className='field field-check'>
        <label className='check'>
          <input type='checkbox' id={id} checked={value === '1'} aria-describedby={describedBy} aria-invalid={invalid} onChange={(e) => { change(e.target.checked ? '1' : '0') }} />
          <span>{label}</span>
        </label>
        <Help id={helpId} help={help} range='' />
        {error !== undefined && <p id={errorId} className='field-error'>{error}</p>}
      </div>
    )
  } else if (field.name === 'clean' || field.name === 'change_types') {
    grouped = true
    const bits = field.name === 'clean' ? cleanBits(type.type).map(String) : CHANGE_TYPES
    const on = (bit: string): boolean => field.name === 'clean' ? (Number(value) & Number(bit)) !== 0 : listItems(value).includes(bit)
    const toggle = (bit: string, checked: boolean): void => {
      if (field.name === 'clean') change(String(checked ? (Number(value) | Number(bit)) : (Number(value) & ~Number(bit))))
      else change((checked ? [...listItems(value), bit] : listItems(value).filter((b) => b !== bit)).join(', '))
    }
    control = (
      <div className='check-list'>
        {bits.map((bit) => (
          <label key={bit} className='check'>
            <input type='checkbox' checked={on(bit)} onChange={(e) => { toggle(bit, e.target.checked) }} />
            <span>{t(`pickers.values.${field.name}.${bit}`, { defaultValue: bit })}</span>
          </label>
        ))}
      </div>
    )
  } else if (field.kind === 'template') {
    control = <TemplateInput id={id} type={type.type} value={value} describedBy={describedBy} invalid={invalid} onChange={change} />
  } else {
    const numeric = field.kind === 'integer'
    control = (
      <span className='input-unit'>
        <input
          id={id}
          className='input'
          inputMode={numeric ? 'numeric' : undefined}
          type='text'
          value={value}
          aria-describedby={describedBy}
          aria-invalid={invalid}
          onChange={(e) => { change(e.target.value) }}
        />
        {field.unit !== undefined && <span className='unit' aria-hidden='true'>{field.unit}</span>}
      </span>
    )
  }

  if (grouped) {
    return (
      <fieldset className='field' aria-describedby={describedBy}>
        <legend className='label'>{label}</legend>
        {control}
        <Help id={helpId} help={help} range='' />
        {error !== undefined && <p id={errorId} className='field-error'>{error}</p>}
      </fieldset>
    )
  }
  return (
    <div className='field'>
      <label className='label' htmlFor={id}>{label}{field.unit !== undefined && <span className='visually-hidden'> ({field.unit})</span>}{field.required && <span aria-hidden='true'> *</span>}</label>
      {control}
      <Help id={helpId} help={help} range={range} />
      {error !== undefined && <p id={errorId} className='field-error'>{error}</p>}
    </div>
  )
}

function Help ({ id, help, range }: { id: string, help: string, range: string }) {
  if (help === '' && range === '') return null
  return <p id={id} className='help'>{[range, help].filter((s) => s !== '').join(' ')}</p>
}

