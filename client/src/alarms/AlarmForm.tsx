import { useEffect, useId, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { api, ApiError } from '../api'
import type { AlarmTypeDescriptor, FieldDescriptor } from '../alarm-types'
import { useSubmit } from '../forms/useSubmit'
import { useGymPickerAvailable } from '../pickers/useGameData'
import { FieldInput } from './FieldInput'
import { formFields, initialValues, serverErrors, toBody, validate, type Alarm, type FieldErrors, type FormValues } from './form-model'
import { ScopeField } from './ScopeField'
import { FormEstimate } from '../features/estimates/FormEstimate'

/** Fields shown first; the rest of a type's filters wait behind "More filters". */
const PRIMARY: Record<string, string[]> = {
  pokemon: ['pokemon_id', 'min_iv', 'max_iv', 'min_cp', 'max_cp', 'min_level', 'max_level'],
  raid: ['pokemon_id', 'level', 'team', 'gym_id'],
  maxbattle: ['pokemon_id', 'level']
}
/** Set by other controls: the scope field, and the picker (which sets the form with the pokemon). */
const HANDLED_ELSEWHERE = new Set(['distance', 'override_areas', 'form'])
const DELIVERY = new Set(['clean', 'template', 'ping'])
/** Types where pokemon_id 9000 means "by level" and a level is chosen instead. */
const BY_LEVEL = new Set(['raid', 'maxbattle'])

type Outcome = { kind: 'saved', alarm: Alarm } | { kind: 'unchanged' }

interface Props {
  type: AlarmTypeDescriptor
  /** The alarm being edited; a new alarm when absent. */
  alarm?: Alarm | undefined
  onDone: (outcome: Outcome) => void
  onCancel: () => void
}

/**
 * Add or edit one alarm, rendered from the type's descriptor. Checked before sending; the server's field
 * errors land at their fields; nothing is sent twice; the values stay when the engine cannot be reached.
 */
export function AlarmForm ({ type, alarm, onDone, onCancel }: Props) {
  const { t } = useTranslation()
  const headingId = useId()
  const creating = alarm === undefined
  const [original] = useState<FormValues>(() => initialValues(type, alarm))
  const [values, setValues] = useState<FormValues>(original)
  const [errors, setErrors] = useState<FieldErrors>({})
  const [problem, setProblem] = useState<{ message: string, tone: 'error' | 'warning', extra: string[] } | null>(null)
  const { busy, run } = useSubmit()
  const formRef = useRef<HTMLFormElement>(null)
  // Without a scanner a gym cannot be looked up, so the gym field is left out (the spec hides the picker):
  // a new alarm keeps "any gym", an edited one keeps its stored gym, since only changed fields are sent.
  const gymPicker = useGymPickerAvailable()

  useEffect(() => { formRef.current?.querySelector<HTMLElement>('input, select')?.focus() }, [])

  const set = (changes: FormValues): void => {
    setValues((v) => ({ ...v, ...changes }))
    setErrors((e) => Object.fromEntries(Object.entries(e).filter(([name]) => !(name in changes))))
  }

  const focusFirstError = (found: FieldErrors): void => {
    requestAnimationFrame(() => {
      const first = formFields(type).find((f) => found[f.name] !== undefined)
      const target = first === undefined ? null : formRef.current?.querySelector<HTMLElement>(`#field-${type.type}-${first.name}, #scope-${type.type}-distance`)
      target?.focus()
    })
  }

  const submit = async (event: React.FormEvent): Promise<void> => {
    event.preventDefault()
    const found = validate(type, values, t, creating)
    setErrors(found)
    if (Object.keys(found).length > 0) {
      setProblem({ message: t('fields.errors.summary', { count: Object.keys(found).length }), tone: 'error', extra: [] })
      focusFirstError(found)
      return
    }
    const body = toBody(type, values, creating ? undefined : original)
    if (!creating && Object.keys(body).length === 0) { onDone({ kind: 'unchanged' }); return }
    setProblem(null)
    // A double tap submits twice before React re-renders the disabled button: `run` sends once.
    await run(async () => {
      const saved = creating
        ? await api<Alarm>(type.path, { method: 'POST', json: body })
        : await api<Alarm>(`${type.path}/${alarm.uid}`, { method: 'PUT', json: body })
      onDone(creating && saved.uid === 0 ? { kind: 'unchanged' } : { kind: 'saved', alarm: saved })
    }, (err) => { setProblem(explain(err)) })
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

  const visible = formFields(type).filter((f) => !HANDLED_ELSEWHERE.has(f.name) && (f.name !== 'gym_id' || gymPicker))
  const byLevel = BY_LEVEL.has(type.type) && values.pokemon_id === '9000'
  const hiddenByMode = (f: FieldDescriptor): boolean => BY_LEVEL.has(type.type) && (byLevel ? f.name === 'pokemon_id' : f.name === 'level')
  const primaryNames = PRIMARY[type.type] ?? visible.filter((f) => !DELIVERY.has(f.name)).map((f) => f.name)
  const primary = visible.filter((f) => primaryNames.includes(f.name) && !hiddenByMode(f))
  const more = visible.filter((f) => !primaryNames.includes(f.name) && !DELIVERY.has(f.name))
  const delivery = visible.filter((f) => DELIVERY.has(f.name))
  const field = (f: FieldDescriptor) => <FieldInput key={f.name} type={type} field={f} values={values} error={errors[f.name]} set={set} />
  const moreHasError = more.some((f) => errors[f.name] !== undefined)

  return (
    <section className='card alarm-form' aria-labelledby={headingId}>
      <h2 id={headingId}>{creating ? t('alarms.addTitle', { type: t(`alarms.types.${type.type}`) }) : t('alarms.editTitle')}</h2>
      <form ref={formRef} noValidate onSubmit={(e) => { void submit(e) }} aria-busy={busy}>
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
        {more.length > 0 && (
          <details className='more' open={moreHasError || undefined}>
            <summary>{t('fields.more', { count: more.length })}</summary>
            {more.map(field)}
          </details>
        )}
        <ScopeField type={type} values={values} errors={errors} set={set} />
        {delivery.length > 0 && (
          <details className='more' open={delivery.some((f) => errors[f.name] !== undefined) || undefined}>
            <summary>{t('fields.delivery')}</summary>
            {delivery.map(field)}
          </details>
        )}
        <FormEstimate type={type.type} body={toBody(type, values)} uid={alarm?.uid} />
        <div role='alert' aria-live='assertive'>
          {problem !== null && (
            <div className={problem.tone === 'warning' ? 'notice notice-warning' : 'notice notice-error'}>
              <p>{problem.message}</p>
              {problem.extra.map((line) => <p key={line} className='small'>{line}</p>)}
            </div>
          )}
        </div>
        <div className='form-actions'>
          <button type='submit' className='button button-primary' disabled={busy}>{busy ? t('status.saving') : t('alarms.save')}</button>
          <button type='button' className='button' onClick={onCancel}>{t('alarms.cancel')}</button>
        </div>
      </form>
    </section>
  )
}
