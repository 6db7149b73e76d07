import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { alarms as alarmsApi, ApiError } from '../../api'
import type { AlarmTypeDescriptor, FieldDescriptor } from '../../alarm-types'
import { useSubmit } from '../../forms/useSubmit'
import { cleanBits } from '../../alarm-kit/FieldInput'
import { TemplateInput } from '../../alarm-kit/TemplateInput'
import type { FormValues } from '../../alarm-kit/form-model'
import { RangeField } from '../../alarm-kit/RangeField'

export type BulkResult = Awaited<ReturnType<typeof alarmsApi.bulkUpdate>>['results'][number]

interface Props {
  type: AlarmTypeDescriptor
  uids: number[]
  /** The answer per alarm and the patch that was sent (its keys say what the change touched). */
  onDone: (results: BulkResult[], patch: Record<string, unknown>) => void
  onCancel: () => void
}

/** The pairs a bulk edit offers: IV, level and the PvP rank. */
const BULK_RANGES = ['min_iv', 'min_level', 'pvp_ranking_best']

/**
 * One change for every selected alarm: IV, level, PvP league and rank, distance, clean-up or template.
 * Only what is ticked is sent; every alarm keeps all its other fields (the server applies a partial patch).
 */
export function BulkEdit ({ type, uids, onDone, onCancel }: Props) {
  const { t } = useTranslation()
  const byName = new Map(type.fields.map((f) => [f.name, f]))
  const ranges = type.ranges.filter((r) => BULK_RANGES.includes(r.low))
  const [on, setOn] = useState<Record<string, boolean>>({})
  const [values, setValues] = useState<FormValues>(() => Object.fromEntries(type.fields.map((f) => [f.name, f.default === null || f.default === undefined ? '' : String(f.default)])))
  const [error, setError] = useState<string | null>(null)
  const { busy, run } = useSubmit()
  const set = (changes: FormValues) => { setValues((v) => ({ ...v, ...changes })) }
  const toggle = (name: string, checked: boolean) => { setOn((o) => ({ ...o, [name]: checked })) }
  const has = (name: string) => byName.has(name)

  const submit = async (event: React.FormEvent) => {
    event.preventDefault()
    const patch: Record<string, unknown> = {}
    for (const r of ranges) if (on[r.low] === true) { patch[r.low] = Number(values[r.low]); patch[r.high] = Number(values[r.high]) }
    if (on.pvp_ranking_league === true) patch.pvp_ranking_league = Number(values.pvp_ranking_league)
    if (on.distance === true) {
      const distance = Number(values.distance)
      if (!Number.isInteger(distance) || distance < 0 || distance > 40_000_000) { setError(t('fields.errors.range', { min: 0, max: 40_000_000 })); return }
      patch.distance = distance
      if (distance > 0 && has('override_areas')) patch.override_areas = []
    }
    if (on.clean === true) patch.clean = Number(values.clean)
    if (on.template === true && (values.template ?? '').trim() !== '') patch.template = values.template?.trim()
    if (Object.keys(patch).length === 0) { setError(t('bulk.nothing')); return }
    setError(null)
    await run(async () => {
      const answer = await alarmsApi.bulkUpdate(type, uids, patch)
      onDone(answer.results, patch)
    }, (err) => { setError(err instanceof ApiError ? err.message : t('status.failed')) })
  }

  const section = (name: string, label: string, body: React.ReactNode) => (
    <div className='bulk-item'>
      <label className='check'>
        <input type='checkbox' checked={on[name] === true} onChange={(e) => { toggle(name, e.target.checked) }} />
        <span>{label}</span>
      </label>
      {on[name] === true && body}
    </div>
  )

  return (
    <form className='alarm-form bulk-edit' noValidate onSubmit={(e) => { void submit(e) }} aria-busy={busy}>
      <p className='muted'>{t('bulk.intro', { count: uids.length })}</p>
      {ranges.filter((r) => r.section !== 'pvp').map((r) => section(r.low, t('bulk.change', { what: t(`describe.range.${r.low.replace(/^min_/, '')}`) }), (
        <RangeField range={r} low={byName.get(r.low) as FieldDescriptor} high={byName.get(r.high) as FieldDescriptor} values={values} set={set} />
      )))}
      {has('pvp_ranking_league') && section('pvp_ranking_league', t('bulk.change', { what: t('editor.pvp') }), (
        <>
          <select className='select' aria-label={t('alarms.fields.pvp_ranking_league')} value={values.pvp_ranking_league} onChange={(e) => { set({ pvp_ranking_league: e.target.value }) }}>
            {[0, 500, 1500, 2500].map((l) => <option key={l} value={l}>{t(`pickers.values.pvp_ranking_league.${l}`)}</option>)}
          </select>
          {ranges.filter((r) => r.section === 'pvp').map((r) => (
            <RangeField key={r.low} range={r} low={byName.get(r.low) as FieldDescriptor} high={byName.get(r.high) as FieldDescriptor} values={values} set={(c) => { set(c); setOn((o) => ({ ...o, [r.low]: true })) }} />
          ))}
        </>
      ))}
      {section('distance', t('bulk.change', { what: t('alarms.fields.distance') }), (
        <span className='input-unit'>
          <input className='input' inputMode='numeric' aria-label={t('alarms.fields.distance')} value={values.distance} onChange={(e) => { set({ distance: e.target.value }) }} />
          <span className='unit' aria-hidden='true'>m</span>
        </span>
      ))}
      {has('clean') && section('clean', t('bulk.change', { what: t('alarms.fields.clean') }), (
        <select className='select' aria-label={t('alarms.fields.clean')} value={values.clean} onChange={(e) => { set({ clean: e.target.value }) }}>
          <option value='0'>{t('bulk.cleanOff')}</option>
          {cleanBits(type.type).map((bit) => <option key={bit} value={bit}>{t(`pickers.values.clean.${bit}`)}</option>)}
        </select>
      ))}
      {has('template') && section('template', t('bulk.change', { what: t('alarms.fields.template') }), (
        <TemplateInput id={`bulk-template-${type.type}`} type={type.type} value={values.template ?? ''} onChange={(v) => { set({ template: v }) }} />
      ))}
      <div role='alert'>{error !== null && <p className='notice notice-error'>{error}</p>}</div>
      <div className='form-actions sticky-actions'>
        <button type='submit' className='button button-primary' disabled={busy}>{busy ? t('status.saving') : t('bulk.apply', { count: uids.length })}</button>
        <button type='button' className='button' onClick={onCancel}>{t('alarms.cancel')}</button>
      </div>
    </form>
  )
}
