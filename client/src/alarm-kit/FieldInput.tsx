import { useCallback } from 'react'
import { useTranslation } from 'react-i18next'
import type { AlarmTypeDescriptor, FieldDescriptor } from '../alarm-types'
import { ChoiceGridPicker, PokemonGridPicker, type SeenNowSource } from '../pickers/grid'
import { ChoicePicker, type Choice } from '../pickers/ChoicePicker'
import { GymPicker } from '../pickers/GymPicker'
import { loadMoves } from '../pickers/game-data'
import { nameCollator } from '../i18n/format'
import { TemplateInput } from './TemplateInput'
import { listItems, type FormValues } from './form-model'
import { ANY_MOVE, OPEN_TOP } from './game-words'

/** Integer fields whose numbers name something (team 4 is "any team"): offered as a list of names. */
const NAMED_NUMBERS: Record<string, number[]> = {
  team: [4, 0, 1, 2, 3],
  gender: [0, 1, 2, 3],
  rsvp_changes: [0, 1, 2],
  pvp_ranking_evolution: [0, 1, 2, 3],
  // A raid or max battle boss's temporary evolution as the scanner reports it (1 mega, 2 Mega X, 3 Mega Y,
  // 4 primal; 0 none), 9000 any: a list of names, never a number box.
  evolution: [9000, 0, 1, 2, 3, 4]
}

/** The kinds of fort change the engine reports. */
const CHANGE_TYPES = ['name', 'location', 'image_url', 'removal', 'new', 'description']

/** Fields chosen with a picker rather than typed. */
const PICKED = new Set(['pokemon_id', 'level', 'reward', 'reward_type', 'clean', 'gym_id', 'move'])

/** The bits of `clean` (1 delete after expiry, 2 edit in place, 4 quest summary: quests only). */
export const cleanBits = (type: string): number[] => type === 'quest' ? [1, 2, 4] : [1, 2]

/** The level list of a type: max battles have their own levels, raids and eggs share the raid levels. */
const LEVEL_KIND = { maxbattle: 'maxLevel', egg: 'egg' } as const

/** What the pokémon picker of a field narrows to when the scanner says what is seen now. */
function seenNowSource (type: string, field: string, rewardType: string | undefined): SeenNowSource {
  if (field === 'reward') return rewardType === '12' ? 'questMegaEnergy' : rewardType === '4' ? 'questCandy' : 'questPokemon'
  return type === 'raid' ? 'raidBosses' : type === 'maxbattle' ? 'maxBattles' : 'spawns'
}

/** One value of a grid picker as the form's single string. */
const single = (values: string[]): string => values.at(-1) ?? ''

interface Props {
  type: AlarmTypeDescriptor
  field: FieldDescriptor
  values: FormValues
  error: string | undefined
  set: (changes: FormValues) => void
  /** Several values of a grid-picked field at once (a new alarm each), instead of the field's one. */
  picks?: { values: string[], set: (values: string[]) => void } | undefined
}

/**
 * One field of an alarm form: its label, the right control for its kind, its unit and range, its help
 * text and its error, all tied together for screen readers (aria-describedby, aria-invalid).
 */
export function FieldInput ({ type, field, values, error, set, picks }: Props) {
  const { t, i18n } = useTranslation()
  // The boss's moves by name (the game data has about 400), "any move" first; a stable loader, so the
  // picker reads them once.
  const moveChoices = useCallback(async (): Promise<Choice[]> => {
    const collator = nameCollator(i18n.language)
    const named = Object.entries(await loadMoves()).map(([value, label]) => ({ value, label })).sort((a, b) => collator.compare(a.label, b.label))
    return [{ value: String(ANY_MOVE), label: t('pickers.anyMove') }, ...named]
  }, [t, i18n.language])
  const id = `field-${type.type}-${field.name}`
  const helpId = `${id}-help`
  const errorId = `${id}-error`
  const value = values[field.name] ?? ''
  const label = t(field.labelKey)
  // Help comes from the language file: this type's text, else the field's text for every type. The
  // descriptor's `description` is the API's English documentation (raw numbers such as "4 = any team"
  // that the pickers already name) and is never shown.
  // A quest's reward help speaks of stardust's floor: the other kinds pick an item or a pokémon instead.
  const help = type.type === 'quest' && field.name === 'reward' && values.reward_type !== '3' ? '' : t([field.helpKey, `alarms.help.all.${field.name}`], { defaultValue: '' })
  // A picker or a list of names shows what may be chosen; a number box says its range.
  const picked = PICKED.has(field.name) || NAMED_NUMBERS[field.name] !== undefined
  const range = field.kind !== 'integer' || picked
    ? ''
    : field.max !== undefined && field.max >= OPEN_TOP
      ? t('fields.rangeOpen', { min: field.min ?? 0 })
      : field.unit !== undefined ? t('fields.rangeUnit', { min: field.min, max: field.max, unit: field.unit }) : t('fields.range', { min: field.min, max: field.max })
  const describedBy = [help !== '' || range !== '' ? helpId : '', error !== undefined ? errorId : ''].filter((s) => s !== '').join(' ') || undefined
  const invalid = error !== undefined
  const change = (next: string) => { set({ [field.name]: next }) }
  /** What a choice grid of this field shows and does: one value, or several when the form picks many. */
  const grid = (stored: string = value) => picks === undefined
    ? { multiple: false, selected: stored === '' ? [] : [stored], onChange: (v: string[]) => { change(single(v)) } }
    : { multiple: true, selected: picks.values, onChange: picks.set }

  const enumChoices = (): Choice[] => (field.values ?? NAMED_NUMBERS[field.name] ?? []).map((v) => ({
    value: String(v), label: t(`pickers.values.${field.name}.${String(v)}`, { defaultValue: String(v) })
  }))

  let control: React.ReactNode
  let grouped = false
  // Grid pickers name themselves (their label is part of them) and are groups of buttons, not one input.
  let selfLabelled = false
  if (field.name === 'pokemon_id' || (field.name === 'reward' && ['4', '7', '12'].includes(values.reward_type ?? ''))) {
    // The picker sets the form too, when the type has one.
    const formField = 'form'
    selfLabelled = true
    control = (
      <PokemonGridPicker
        label={label}
        multiple={false}
        describedBy={describedBy}
        invalid={invalid}
        selected={value === '' || value === '9000' ? [] : [`${value}-${Number(values[formField]) || 0}`]}
        allowEverything={type.type !== 'raid' && type.type !== 'maxbattle'}
        seenNow={seenNowSource(type.type, field.name, values.reward_type)}
        onChange={(keys) => {
          const [pokemonId = '', form = '0'] = single(keys).split('-')
          set({ [field.name]: pokemonId, ...(formField in values ? { [formField]: pokemonId === '' ? '0' : form } : {}) })
        }}
      />
    )
  } else if (field.name === 'reward' && values.reward_type === '2') {
    selfLabelled = true
    control = <ChoiceGridPicker kind='item' label={label} describedBy={describedBy} invalid={invalid} {...grid()} />
  } else if (field.name === 'level') {
    selfLabelled = true
    const kind = type.type === 'maxbattle' || type.type === 'egg' ? LEVEL_KIND[type.type] : 'raidLevel'
    control = <ChoiceGridPicker kind={kind} label={label} describedBy={describedBy} invalid={invalid} {...grid()} />
  } else if (field.name === 'gym_id') {
    control = <GymPicker inputId={id} describedBy={describedBy} value={value} invalid={invalid} onChange={change} />
  } else if (field.name === 'move') {
    control = <ChoicePicker inputId={id} describedBy={describedBy} value={value} invalid={invalid} choices={moveChoices} onChange={change} />
  } else if (field.name === 'reward_type' && type.type === 'quest') {
    selfLabelled = true
    control = <ChoiceGridPicker kind='reward' label={label} describedBy={describedBy} invalid={invalid} {...grid()} />
  } else if (field.name === 'grunt_type') {
    selfLabelled = true
    control = <ChoiceGridPicker kind='grunt' label={label} describedBy={describedBy} invalid={invalid} {...grid(value.toLowerCase())} />
  } else if (field.name === 'lure_id') {
    selfLabelled = true
    control = <ChoiceGridPicker kind='lure' label={label} describedBy={describedBy} invalid={invalid} {...grid()} />
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

  if (selfLabelled) {
    return (
      <div className='field'>
        {control}
        <Help id={helpId} help={help} range='' />
        {error !== undefined && <p id={errorId} className='field-error'>{error}</p>}
      </div>
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
