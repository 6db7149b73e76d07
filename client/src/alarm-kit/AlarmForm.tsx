import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { alarms as alarmsApi, ApiError } from '../api'
import type { PublicConfig } from '../../../schemas/engine-config'
import { alarmEditorPath, type AlarmTypeDescriptor, type FieldDescriptor } from '../alarm-types'
import { useSubmit } from '../forms/useSubmit'
import { loadEngineConfig } from '../pickers/game-data'
import { useGymPickerAvailable } from '../pickers/useGameData'
import { describeAlarm, describeParts, type Vocabulary } from './describe'
import { loadAlarmDefaults, rememberSection, sectionOpen } from './editor-data'
import { AlarmCheck, CHECKABLE } from './AlarmCheck'
import { FieldInput } from './FieldInput'
import { formFields, initialValues, serverErrors, toBody, validate, type Alarm, type FieldErrors, type FormValues } from './form-model'
import { parseKey, selectionKey } from './selection-key'
import { RangeField } from './RangeField'
import { ScopeField } from './ScopeField'
import { PokemonGridPicker } from '../pickers/grid'
import { FormEstimate } from '../estimates/FormEstimate'
import { TemplatePreview } from '../template-previews'

/** Fields shown first (besides the primary ranges); the rest of a type's filters wait behind "More filters". */
const PRIMARY: Record<string, string[]> = {
  pokemon: ['pokemon_id'],
  raid: ['pokemon_id', 'level', 'team', 'gym_id'],
  maxbattle: ['pokemon_id', 'level']
}
/** Set by other controls: the scope field, and the picker (which sets the form with the pokemon). */
const HANDLED_ELSEWHERE = new Set(['distance', 'override_areas', 'form'])
const DELIVERY = new Set(['clean', 'template', 'ping'])
const PVP = new Set(['pvp_ranking_league', 'pvp_ranking_cap', 'pvp_ranking_min_cp', 'pvp_ranking_evolution'])
/** Types where pokemon_id 9000 means "by level" and a level is chosen instead. */
const BY_LEVEL = new Set(['raid', 'maxbattle'])
/** Types whose new alarms are picked many at once (one alarm per pokemon and form). */
const MANY = new Set(['pokemon'])

/**
 * The field a new alarm of the other types may take several values of, one alarm each: raid, egg and
 * max-battle levels, grunts, lures and quest items. Raids and max battles pick levels only when they go
 * by level rather than by boss.
 */
function pickField (type: string, values: FormValues): string | null {
  if (type === 'egg' || ((type === 'raid' || type === 'maxbattle') && values.pokemon_id === '9000')) return 'level'
  if (type === 'invasion') return 'grunt_type'
  if (type === 'lure') return 'lure_id'
  if (type === 'quest' && values.reward_type === '2') return 'reward'
  return null
}

/**
 * A quest's reward and amount wait for the reward's kind; the engine counts `amount` for items, candy and
 * mega energy only (a stardust quest's floor is its `reward`, an encounter has no amount).
 */
function questFieldWaits (field: string, rewardType: string): boolean {
  if (field === 'reward') return rewardType === ''
  if (field === 'amount') return !['2', '4', '12'].includes(rewardType)
  return false
}

export type BatchItem = Awaited<ReturnType<typeof alarmsApi.createBatch>>['results'][number]
export type Outcome =
  | { kind: 'saved', alarm: Alarm, replaces: number }
  | { kind: 'unchanged' }
  | { kind: 'created', alarms: Alarm[] }

interface Props {
  type: AlarmTypeDescriptor
  /** The alarm being edited; a new alarm when absent. */
  alarm?: Alarm | undefined
  vocabulary: Vocabulary
  /** The member's alarms of this type: a refused create names the one it meets, in words. */
  mine?: Alarm[] | undefined
  onDone: (outcome: Outcome) => void
  onCancel: () => void
  /**
   * Instead of saving: the checked alarm, every field of it, handed to the caller (a quick pick's filters).
   * Several picked values stay one body, as a list (the pick fans out into one alarm each); the member's
   * own defaults are not filled in, since the body is not theirs.
   */
  onSubmitBody?: ((body: Record<string, unknown>) => Promise<void>) | undefined
  /** A field to open the editor at, focused (the filter "Why no alert?" found stopped the alarm). */
  focusField?: string | undefined
  /** A new alarm's values from an event ("Add an alarm for this"): the species, an IV floor… */
  prefill?: FormValues | undefined
}

/** The values of a list a quick pick holds for a field that takes one: the form shows the last, the grid all. */
const listed = (value: unknown): string[] => Array.isArray(value) ? value.map(String) : []

/**
 * A details section whose open state is remembered on this device. Its fields are in the page only while it
 * is open: the values live in the form, and a closed section's sliders, area list and preview would
 * otherwise be built, styled and measured each time the editor opens, for nothing on screen.
 */
function Section ({ name, title, fallback, force, children }: { name: string, title: string, fallback: boolean, force: boolean, children: React.ReactNode }) {
  const [open, setOpen] = useState(() => sectionOpen(name, fallback))
  const shown = open || force
  return (
    <details className='more' open={shown} onToggle={(e) => { const now = e.currentTarget.open; if (now !== open) { setOpen(now); rememberSection(name, now) } }}>
      <summary>{title}</summary>
      {shown && children}
    </details>
  )
}

/**
 * Add many alarms or edit one, rendered from the type's descriptor. Filters chosen once apply to every
 * pokemon selected; saving creates them in one request and says, per pokemon, created, already there or
 * refused. Checked before sending; the server's field errors land at their fields; an edit sends only
 * what changed, so fields the form does not show are kept.
 */
export function AlarmForm ({ type, alarm, vocabulary, mine = [], onDone, onCancel, onSubmitBody, focusField, prefill }: Props) {
  const { t, i18n } = useTranslation()
  const headingId = useId()
  const creating = alarm === undefined
  const bodyOnly = onSubmitBody !== undefined
  // A body for a caller may name several subjects whether it is new or not.
  const several = creating || bodyOnly
  const many = several && MANY.has(type.type)
  const [config, setConfig] = useState<PublicConfig | null>(null)
  const [original, setOriginal] = useState<FormValues>(() => initialValues(type, alarm === undefined
    ? undefined
    : Object.fromEntries(Object.entries(alarm).map(([name, value]) => [name, name !== 'override_areas' && Array.isArray(value) ? value.at(-1) : value])) as Alarm))
  const [values, setValues] = useState<FormValues>(() => ({ ...original, ...prefill }))
  const [selection, setSelection] = useState<string[]>(() => {
    if (alarm === undefined && prefill?.pokemon_id !== undefined && MANY.has(type.type)) return [selectionKey(Number(prefill.pokemon_id), Number(prefill.form ?? 0))]
    if (alarm === undefined || !MANY.has(type.type)) return []
    const ids = listed(alarm.pokemon_id)
    return ids.length > 0 ? ids.map((id) => selectionKey(Number(id), Number(alarm.form ?? 0))) : [selectionKey(Number(alarm.pokemon_id ?? 0), Number(alarm.form ?? 0))]
  })
  // The values of the type's pick field while creating or filling a body; the field itself holds the last one picked.
  const [picks, setPicks] = useState<string[]>(() => {
    const field = alarm === undefined ? null : pickField(type.type, { pokemon_id: String(alarm.pokemon_id), reward_type: String(alarm.reward_type) })
    return field === null || alarm === undefined ? [] : listed(alarm[field])
  })
  const picking = several ? pickField(type.type, values) : null
  const current = picking === null ? '' : values[picking] ?? ''
  // Picks made in the grid, unless the field was set another way since (a default, a switch of kind).
  const chosen = picking === null ? [] : picks.length > 0 && picks.at(-1) === current ? picks : current === '' ? [] : [current]
  const [errors, setErrors] = useState<FieldErrors>({})
  const [problem, setProblem] = useState<{ message: string, tone: 'error' | 'warning', extra: string[] } | null>(null)
  /** A create refused because it meets one of the member's alarms that taking the new values would fix: its uid. */
  const [takeOver, setTakeOver] = useState<number | null>(null)
  const refusalRef = useRef<HTMLDivElement>(null)
  /** Counts the refusals to bring into view: each takes focus once it is drawn. */
  const [refusals, setRefusals] = useState(0)
  useEffect(() => { if (refusals > 0) refusalRef.current?.focus() }, [refusals])
  /** Shows a refusal that no field carries at the button, and takes focus there so it is seen and read out. */
  const refuse = (refusal: { message: string, tone: 'error' | 'warning', extra: string[] }, existingUid: number | null = null): void => {
    setProblem(refusal)
    setTakeOver(existingUid)
    setRefusals((n) => n + 1)
  }
  const existingWords = (uid: number | null | undefined, stored?: Alarm): string | null => {
    const found = stored ?? mine.find((a) => a.uid === uid)
    return found === undefined ? null : describeAlarm(type, found, vocabulary)
  }
  const [report, setReport] = useState<BatchItem[] | null>(null)
  const { busy, run } = useSubmit()
  const formRef = useRef<HTMLFormElement>(null)
  const gymPicker = useGymPickerAvailable()

  useEffect(() => { void loadEngineConfig().then(setConfig, () => undefined) }, [])
  // A new alarm starts with the member's own defaults, once they are known.
  useEffect(() => {
    if (!creating || bodyOnly) return
    void loadAlarmDefaults().then((own) => {
      const clean = own.clean !== null && type.type !== 'quest' ? own.clean & 3 : own.clean
      const next = initialValues(type, undefined, { distance: own.distance, clean, template: own.template })
      setOriginal(next)
      setValues((v) => ({ ...v, distance: next.distance ?? '', clean: next.clean ?? v.clean ?? '', template: next.template ?? '' }))
    }, () => undefined)
  }, [creating, bodyOnly, type])

  const set = (changes: FormValues): void => {
    setValues((v) => ({ ...v, ...changes }))
    setErrors((e) => Object.fromEntries(Object.entries(e).filter(([name]) => !(name in changes))))
  }

  const rangeFields = new Set(type.ranges.flatMap((r) => [r.low, r.high]))
  const byName = new Map(type.fields.map((f) => [f.name, f]))
  const subjectNames = (keys: string[]): string => {
    const names = keys.slice(0, 5).map((k) => describeParts(type, { uid: 0, ...parseKey(k), pokemon_id: parseKey(k).pokemonId, form: parseKey(k).form }, vocabulary).subject)
    if (keys.length > 5) names.push(t('editor.andMore', { count: keys.length - 5 }))
    return new Intl.ListFormat(i18n.language, { type: 'disjunction' }).format(names)
  }

  /** The alarm the form describes now, as the engine would store it. */
  const previewOf = useCallback((of: FormValues): Alarm => {
    const row: Alarm = { uid: 0 }
    for (const f of type.fields) row[f.name] = f.default
    return { ...row, ...toBody(type, of), uid: 0 }
  }, [type])
  const preview = useMemo(() => previewOf(values), [previewOf, values])
  /** One alarm per picked value: the pick field set to each. */
  const pickedValues = (picked: string[]): FormValues[] => picking === null || picked.length === 0 ? [values] : picked.map((p) => ({ ...values, [picking]: p }))
  /**
   * The estimate is of one alarm: the one pokemon chosen (or every pokemon), not of several at once, and
   * only once the alarm is complete. An invasion with no grunt, a raid with no level or a quest with no
   * reward yet is not asked about: the server would refuse it (a 400 in the console) and there is nothing to say.
   */
  const estimateBody = useMemo((): Record<string, unknown> | null => {
    if (chosen.length > 1 || (picking !== null && current === '')) return null
    const complete = (of: FormValues) => (Object.keys(validate(type, of, t, true)).length === 0 ? toBody(type, of) : null)
    if (!MANY.has(type.type)) return complete(values)
    if (selection.length !== 1) return null
    const { pokemonId, form } = parseKey(selection[0] as string)
    return complete({ ...values, pokemon_id: String(pokemonId), form: String(form) })
  }, [type, values, selection, chosen.length, picking, current, t])
  /** The picked subjects as one phrase, a type name they share said once ("Eggs: 1-Star or 3-Star"). */
  const pickNames = (picked: string[]): string => {
    const subjects = pickedValues(picked).map((v) => describeParts(type, previewOf(v), vocabulary).subject)
    const prefix = /^[^:]+: /.exec(subjects[0] ?? '')?.[0] ?? ''
    const shared = prefix !== '' && subjects.every((s) => s.startsWith(prefix))
    const list = new Intl.ListFormat(i18n.language, { type: 'disjunction' }).format(shared ? subjects.map((s) => s.slice(prefix.length)) : subjects)
    return shared ? prefix + list : list
  }
  const sentence = (() => {
    const parts = describeParts(type, preview, vocabulary)
    const subject = many || MANY.has(type.type)
      ? (selection.length === 0 ? t('editor.nothingChosen') : subjectNames(selection))
      : chosen.length > 1 ? pickNames(chosen) : parts.subject
    return [subject, ...parts.filters, parts.scope].join(', ')
  })()

  // Opened at a field: once the dialog has taken focus, the field takes it (its section is held open below).
  useEffect(() => {
    if (focusField === undefined) return
    const frame = requestAnimationFrame(() => {
      const target = formRef.current?.querySelector<HTMLElement>(`#field-${type.type}-${focusField}, #scope-${type.type}-${focusField}`)
      target?.scrollIntoView({ block: 'center' })
      target?.focus()
    })
    return () => { cancelAnimationFrame(frame) }
  }, [focusField, type.type])

  const focusFirstError = (found: FieldErrors): void => {
    requestAnimationFrame(() => {
      const first = formFields(type).find((f) => found[f.name] !== undefined)
      const target = first === undefined ? null : formRef.current?.querySelector<HTMLElement>(`#field-${type.type}-${first.name}, #scope-${type.type}-distance`)
      target?.focus()
    })
  }

  const explain = (err: unknown): { message: string, tone: 'error' | 'warning', extra: string[] } => {
    if (!(err instanceof ApiError)) return { message: t('status.failed'), tone: 'error', extra: [] }
    if (err.status === 400 && err.details.length > 0) {
      const { fields, other } = serverErrors(type, err.details)
      setErrors(fields)
      focusFirstError(fields)
      return { message: t('fields.errors.server', { message: err.message }), tone: 'error', extra: other }
    }
    if (err.status === 409) return { message: t('alarms.conflict'), tone: 'warning', extra: [err.message] }
    if (err.status === 0 || err.status >= 500) return { message: t('alarms.engineDown', { message: err.message }), tone: 'error', extra: [] }
    return { message: err.message, tone: 'error', extra: [] }
  }

  const submit = async (event: React.FormEvent): Promise<void> => {
    event.preventDefault()
    const withSubject = MANY.has(type.type) && selection.length > 0 ? { ...values, pokemon_id: String(parseKey(selection[0] as string).pokemonId) } : values
    const found = validate(type, withSubject, t, several)
    if (MANY.has(type.type) && selection.length === 0) found.pokemon_id = t('editor.chooseOne')
    // One body fans out over every listed value: pokemon of different forms would cross into pairs never chosen.
    if (bodyOnly && new Set(selection.map((key) => parseKey(key).form)).size > 1) found.pokemon_id = t('editor.oneForm')
    setErrors(found)
    if (Object.keys(found).length > 0) {
      setProblem({ message: t('fields.errors.summary', { count: Object.keys(found).length }), tone: 'error', extra: [] })
      focusFirstError(found)
      return
    }
    setProblem(null)
    await run(async () => {
      if (onSubmitBody !== undefined) {
        const base = toBody(type, values)
        const list = (items: unknown[]): unknown => items.length === 1 ? items[0] : items
        const keys = selection.map(parseKey)
        const subject = MANY.has(type.type)
          ? { pokemon_id: list(keys.map((k) => k.pokemonId)), form: keys[0]?.form ?? 0 }
          : picking !== null && chosen.length > 1 ? { [picking]: pickedValues(chosen).map((v) => toBody(type, v)[picking]) } : {}
        await onSubmitBody({ ...base, ...subject })
        return
      }
      if (creating) {
        const base = toBody(type, values)
        const alarms = MANY.has(type.type)
          ? selection.map((key) => ({ ...base, pokemon_id: parseKey(key).pokemonId, form: parseKey(key).form }))
          : pickedValues(chosen).map((v) => toBody(type, v))
        const answer = await alarmsApi.createBatch(type, alarms)
        const created = answer.results.flatMap((r) => (r.status === 'created' && r.alarm !== undefined ? [r.alarm] : []))
        if (answer.results.every((r) => r.status === 'created')) { onDone({ kind: 'created', alarms: created }); return }
        const [only] = answer.results
        // One alarm: its refusal is shown at its fields, as for any other error, and the form stays.
        if (alarms.length === 1 && only !== undefined && only.status !== 'created') {
          const existing = only.collision?.uid ?? null
          const words = existingWords(existing, only.alarm as Alarm | undefined)
          if (only.status === 'duplicate') {
            refuse({ message: words === null ? t('editor.alreadyHaveThis') : t('editor.alreadyHave', { alarm: words }), tone: 'warning', extra: [] })
            return
          }
          const { fields, other } = serverErrors(type, only.details ?? [])
          setErrors(fields)
          const count = Object.keys(fields).length
          if (count > 0) {
            focusFirstError(fields)
            setProblem({ message: t('fields.errors.summary', { count }), tone: 'error', extra: other })
            return
          }
          // The alarm it meets can take these values instead, where the engine would otherwise rewrite it.
          const canUpdate = existing !== null && (only.collision?.code === 'takeover' || only.collision?.code === 'same-key')
          refuse({ message: words === null ? t('alarms.conflict') : t('editor.alreadyLike', { alarm: words }), tone: 'warning', extra: [only.reason ?? ''] }, canUpdate ? existing : null)
          return
        }
        setReport(answer.results)
        return
      }
      const subject = MANY.has(type.type) && selection[0] !== undefined ? { pokemon_id: String(parseKey(selection[0]).pokemonId), form: String(parseKey(selection[0]).form) } : {}
      const body = toBody(type, { ...values, ...subject }, original)
      if (Object.keys(body).length === 0) { onDone({ kind: 'unchanged' }); return }
      const saved = await alarmsApi.update(type, alarm.uid, body)
      onDone({ kind: 'saved', alarm: saved, replaces: alarm.uid })
    }, (err) => {
      const refusal = explain(err)
      // A save the service refuses as a whole (it would make the alarm another one's copy) is said at the button.
      if (err instanceof ApiError && err.status === 409) refuse(refusal)
      else setProblem(refusal)
    })
  }

  /** The member's alarm that the create met takes the new values (its own uid and place stay). */
  const updateInstead = (uid: number) => run(async () => {
    const stored = mine.find((a) => a.uid === uid)
    const before = stored === undefined ? undefined : initialValues(type, stored)
    // The grid's selection named the stored alarm's subject: it stays as stored.
    const next = before !== undefined && MANY.has(type.type) ? { ...values, pokemon_id: before.pokemon_id ?? '', form: before.form ?? '' } : values
    const saved = await alarmsApi.update(type, uid, toBody(type, next, before))
    onDone({ kind: 'saved', alarm: saved, replaces: uid })
  }, (err) => { setProblem(explain(err)) })

  if (report !== null) {
    const names = (item: BatchItem): string => MANY.has(type.type)
      ? subjectNames([selection[item.index] as string])
      : chosen.length > 1 ? pickNames([chosen[item.index] as string]) : sentence
    const created = report.flatMap((r) => (r.status === 'created' && r.alarm !== undefined ? [r.alarm] : []))
    return (
      <section className='alarm-form' aria-labelledby={headingId}>
        <h3 id={headingId} tabIndex={-1} ref={(el) => { el?.focus() }}>{t('editor.reportTitle', { created: created.length, count: report.length })}</h3>
        <ul className='batch-report'>
          {report.map((item) => (
            <li key={item.index} className={`batch-${item.status}`}>
              <strong>{names(item)}</strong>: {t(`editor.status.${item.status}`)}{item.reason !== undefined && <span className='small'> — {item.reason}</span>}
            </li>
          ))}
        </ul>
        <div className='form-actions sticky-actions'>
          <button type='button' className='button button-primary' onClick={() => { onDone({ kind: 'created', alarms: created }) }}>{t('editor.done')}</button>
        </div>
      </section>
    )
  }

  const visible = formFields(type).filter((f) => !HANDLED_ELSEWHERE.has(f.name) && !rangeFields.has(f.name) && (f.name !== 'gym_id' || gymPicker))
  const byLevel = BY_LEVEL.has(type.type) && values.pokemon_id === '9000'
  const hiddenByMode = (f: FieldDescriptor): boolean => (BY_LEVEL.has(type.type) && (byLevel ? f.name === 'pokemon_id' : f.name === 'level')) ||
    (type.type === 'quest' && questFieldWaits(f.name, values.reward_type ?? ''))
  const primaryNames = PRIMARY[type.type] ?? visible.filter((f) => !DELIVERY.has(f.name) && !PVP.has(f.name)).map((f) => f.name)
  const primary = visible.filter((f) => primaryNames.includes(f.name) && !hiddenByMode(f) && !(MANY.has(type.type) && f.name === 'pokemon_id'))
  const more = visible.filter((f) => !primaryNames.includes(f.name) && !DELIVERY.has(f.name) && !PVP.has(f.name))
  const pvp = visible.filter((f) => PVP.has(f.name))
  const delivery = visible.filter((f) => DELIVERY.has(f.name))
  const pick = (next: string[]): void => { setPicks(next); set({ [picking as string]: next.at(-1) ?? '' }) }
  const field = (f: FieldDescriptor) => (
    <FieldInput key={f.name} type={type} field={f} values={values} error={errors[f.name]} set={set} {...(f.name === picking && { picks: { values: chosen, set: pick } })} />
  )
  const ranges = (section: string) => type.ranges.filter((r) => r.section === section).map((r) => (
    <RangeField
      key={r.low}
      range={r}
      low={byName.get(r.low) as FieldDescriptor}
      high={byName.get(r.high) as FieldDescriptor}
      values={values}
      set={set}
      idPrefix={`field-${type.type}`}
      error={errors[r.low] ?? errors[r.high]}
      {...(r.section === 'pvp' && config !== null ? { max: config.pvpFilterMaxRank } : {})}
    />
  ))
  const league = Number(values.pvp_ranking_league ?? 0)
  const leagues = [0, 1500, 2500, ...(config?.pvpLittleLeagueAllowed === false ? [] : [500])]
  const allowEverything = config?.everythingFlagPermissions !== 'deny'
  const count = MANY.has(type.type) ? selection.length : picking !== null ? chosen.length : 1
  const hasError = (list: FieldDescriptor[]) => list.some((f) => errors[f.name] !== undefined)
  /** The section holding the field the editor was opened at, held open. */
  const focusSection = focusField === undefined
    ? null
    : type.ranges.find((r) => r.low === focusField || r.high === focusField)?.section ??
      (more.some((f) => f.name === focusField) ? 'advanced' : pvp.some((f) => f.name === focusField) ? 'pvp' : delivery.some((f) => f.name === focusField) || focusField === 'distance' ? 'delivery' : null)

  return (
    <section className='alarm-form' aria-labelledby={headingId}>
      <h3 id={headingId} className='visually-hidden'>{creating ? t('alarms.addTitle', { type: t(`alarms.types.${type.type}`) }) : t('alarms.editTitle')}</h3>
      <form ref={formRef} noValidate onSubmit={(e) => { void submit(e) }} aria-busy={busy}>
        {MANY.has(type.type) && (
          <>
            <PokemonGridPicker
              selected={selection}
              multiple={several}
              onChange={(keys) => { setSelection(several ? keys : keys.slice(-1)); setErrors((e) => ({ ...e, pokemon_id: undefined as unknown as string })) }}
              allowEverything={allowEverything}
              label={t('editor.which')}
            />
            {errors.pokemon_id !== undefined && <p className='field-error'>{errors.pokemon_id}</p>}
          </>
        )}
        {BY_LEVEL.has(type.type) && (
          <fieldset className='field'>
            <legend className='label'>{t('fields.matchBy.legend')}</legend>
            <div className='segmented-choice'>
              <label className='check'><input type='radio' name={`${type.type}-by`} checked={byLevel} onChange={() => { set({ pokemon_id: '9000', level: values.level === '9000' ? '' : values.level ?? '' }) }} /><span>{t('fields.matchBy.level')}</span></label>
              <label className='check'><input type='radio' name={`${type.type}-by`} checked={!byLevel} onChange={() => { set({ pokemon_id: '', level: '9000' }) }} /><span>{t('fields.matchBy.pokemon')}</span></label>
            </div>
          </fieldset>
        )}
        {primary.map(field)}
        {ranges('primary')}
        {(more.length > 0 || type.ranges.some((r) => r.section === 'advanced')) && (
          <Section name='advanced' title={t('editor.advanced')} fallback={false} force={hasError(more) || focusSection === 'advanced'}>
            {ranges('advanced')}
            {more.map(field)}
          </Section>
        )}
        {pvp.length > 0 && (
          <Section name='pvp' title={t('editor.pvp')} fallback={false} force={hasError(pvp) || focusSection === 'pvp'}>
            <div className='field'>
              <label className='label' htmlFor={`pvp-league-${type.type}`}>{t('alarms.fields.pvp_ranking_league')}</label>
              <select id={`pvp-league-${type.type}`} className='select' value={String(league)} onChange={(e) => { set({ pvp_ranking_league: e.target.value }) }}>
                {leagues.map((l) => <option key={l} value={l}>{t(`pickers.values.pvp_ranking_league.${l}`)}</option>)}
              </select>
            </div>
            {league > 0 && (
              <>
                {ranges('pvp')}
                <div className='field'>
                  <label className='label' htmlFor={`pvp-cap-${type.type}`}>{t('alarms.fields.pvp_ranking_cap')}</label>
                  <select id={`pvp-cap-${type.type}`} className='select' value={values.pvp_ranking_cap ?? '0'} onChange={(e) => { set({ pvp_ranking_cap: e.target.value }) }}>
                    {[0, ...(config?.pvpCaps ?? [])].map((c) => <option key={c} value={c}>{c === 0 ? t('editor.allCaps') : t('editor.cap', { cap: c })}</option>)}
                  </select>
                </div>
                {pvp.filter((f) => f.name !== 'pvp_ranking_league' && f.name !== 'pvp_ranking_cap').map(field)}
              </>
            )}
          </Section>
        )}
        <Section name='delivery' title={t('fields.delivery')} fallback={false} force={hasError(delivery) || errors.distance !== undefined || focusSection === 'delivery'}>
          <ScopeField type={type} values={values} errors={errors} set={set} />
          {delivery.map(field)}
          {type.testAlert && <TemplatePreview type={type.type} alarm={estimateBody ?? toBody(type, values)} template={values.template ?? ''} />}
        </Section>
        <p className='live-sentence' aria-live='polite'><span className='small muted'>{t('editor.willDo')}</span> {sentence}</p>
        {estimateBody !== null && <FormEstimate type={type.type} body={estimateBody} uid={alarm?.uid} alarmLink={(uid) => ({ to: alarmEditorPath(type, uid), words: existingWords(uid) })} />}
        <div role='alert' aria-live='assertive'>
          {problem !== null && (
            <div ref={refusalRef} tabIndex={-1} className={problem.tone === 'warning' ? 'notice notice-warning' : 'notice notice-error'}>
              <p>{problem.message}</p>
              {problem.extra.map((line) => <p key={line} className='small'>{line}</p>)}
              {takeOver !== null && (
                <button type='button' className='button' disabled={busy} onClick={() => { void updateInstead(takeOver) }}>{t('editor.updateThatOne')}</button>
              )}
            </div>
          )}
        </div>
        <div className='form-actions sticky-actions'>
          <button type='submit' className='button button-primary' disabled={busy}>
            {busy ? t('status.saving') : !creating || bodyOnly ? t('alarms.save') : count === 0 ? t('editor.createNone') : t('editor.create', { count })}
          </button>
          <button type='button' className='button' onClick={onCancel}>{t('alarms.cancel')}</button>
        </div>
      </form>
      {!several && alarm !== undefined && CHECKABLE.has(type.type) && <AlarmCheck type={type} alarm={alarm} vocabulary={vocabulary} />}
    </section>
  )
}
