import * as Slider from '@radix-ui/react-slider'
import { useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { FieldDescriptor, RangeDescriptor } from '../alarm-types'
import type { FormValues } from './form-model'
import { rangeWord, WORDED_PAIRS } from './game-words'
import { useFormat } from '../i18n/format'

interface Props {
  range: RangeDescriptor
  low: FieldDescriptor
  high: FieldDescriptor
  values: FormValues
  set: (changes: FormValues) => void
  /** A tighter top than the field allows (the engine's worst PvP rank). */
  max?: number
  error?: string | undefined
  /** The number fields' ids are this and the field's name (`field-pokemon-min_iv`): an editor opens at one. */
  idPrefix?: string
}

/** The IV pair keeps -1 ("also pokemon without IVs") as a switch, not as a point on the slider. */
const unknownSwitch = (range: RangeDescriptor): boolean => range.low === 'min_iv' && range.min === -1

/** Whether the pair filters nothing: at its full span or at what the engine stores when it is left out. */
export function isAnyRange (range: RangeDescriptor, low: FieldDescriptor, high: FieldDescriptor, values: FormValues): boolean {
  const a = values[range.low] ?? ''
  const b = values[range.high] ?? ''
  const at = (text: string, bound: number, field: FieldDescriptor) => text === '' || Number(text) === bound || text === String(field.default ?? '')
  return at(a, range.min, low) && (at(b, range.max, high) || Number(b) >= range.max)
}

/**
 * One min/max pair: a two-handle slider (keyboard: arrows, Page Up/Down, Home/End) with its two number
 * fields, the span and step from the server. A full span reads "any"; typed values are put in order
 * when the field is left, and an emptied field falls back to its end of the span.
 */
export function RangeField ({ range, low, high, values, set, max, error, idPrefix }: Props) {
  const { t } = useTranslation()
  const id = useId()
  const top = Math.min(max ?? range.max, range.max)
  const bottom = unknownSwitch(range) ? 0 : range.min
  const num = (text: string | undefined, fallback: number) => (text === undefined || text.trim() === '' || !Number.isFinite(Number(text)) ? fallback : Number(text))
  const a = Math.max(bottom, num(values[range.low], bottom))
  const b = Math.min(top, num(values[range.high], top))
  const [typed, setTyped] = useState<{ low: string, high: string } | null>(null)
  const name = range.low.replace(/^min_/, '')
  // The pair's name inside a sentence ("level") and as the heading of its control ("Level").
  const label = t(`describe.range.${name}`, { defaultValue: t(low.labelKey) })
  const heading = t(`fields.pair.${name}`, { defaultValue: t(low.labelKey) })
  const unknown = unknownSwitch(range) && values[range.low] === '-1'
  const any = isAnyRange(range, low, high, values) || (a <= bottom && b >= top && (!unknownSwitch(range) || unknown))
  const unit = range.unit === '%' ? ' %' : ''
  const format = useFormat()
  // Sizes, rarities and time left read as the game says them (XL, Rare, 5 min), to the eye and to screen readers.
  const said = (value: number): string => rangeWord(name, value, t, format.number) ?? `${value}${unit}`
  const worded = WORDED_PAIRS.has(name)

  const write = (lowValue: number, highValue: number): void => {
    const keepUnknown = unknown && lowValue === 0
    set({ [range.low]: String(keepUnknown ? -1 : lowValue), [range.high]: String(highValue) })
  }
  const commitTyped = (): void => {
    if (typed === null) return
    const l = Math.max(bottom, Math.min(top, num(typed.low, bottom)))
    const h = Math.max(bottom, Math.min(top, num(typed.high, top)))
    setTyped(null)
    write(Math.min(l, h), Math.max(l, h))
  }
  const shown = typed ?? { low: String(a), high: String(b) }

  return (
    <fieldset className={`field range-field${any ? ' range-any' : ''}`} aria-describedby={`${id}-state`}>
      <legend className='label'>{heading}</legend>
      <p id={`${id}-state`} className='range-state small'>{any ? t('fields.rangeAny') : `${said(a)} – ${said(b)}`}</p>
      <Slider.Root
        className='slider'
        min={bottom}
        max={top}
        step={range.step}
        minStepsBetweenThumbs={0}
        value={[a, b]}
        onValueChange={([l, h]) => { write(l ?? bottom, h ?? top) }}
      >
        <Slider.Track className='slider-track'><Slider.Range className='slider-range' /></Slider.Track>
        <Slider.Thumb className='slider-thumb' aria-label={t('fields.rangeLow', { label })} aria-valuetext={worded ? said(a) : undefined} />
        <Slider.Thumb className='slider-thumb' aria-label={t('fields.rangeHigh', { label })} aria-valuetext={worded ? said(b) : undefined} />
      </Slider.Root>
      <div className='range-inputs'>
        {(['low', 'high'] as const).map((end) => (
          <label key={end} className='range-input'>
            <span className='small'>{t(end === 'low' ? 'fields.min' : 'fields.max')}</span>
            <input
              {...(idPrefix !== undefined && { id: `${idPrefix}-${end === 'low' ? range.low : range.high}` })}
              className='input'
              inputMode='numeric'
              aria-label={t(end === 'low' ? 'fields.rangeLow' : 'fields.rangeHigh', { label })}
              aria-invalid={error !== undefined}
              value={shown[end]}
              onChange={(e) => { setTyped({ ...shown, [end]: e.target.value }) }}
              onBlur={commitTyped}
              onKeyDown={(e) => { if (e.key === 'Enter') { e.preventDefault(); commitTyped() } }}
            />
          </label>
        ))}
      </div>
      {unknownSwitch(range) && (
        <label className='check'>
          <input type='checkbox' checked={unknown} disabled={a > 0} onChange={(e) => { set({ [range.low]: e.target.checked ? '-1' : '0' }) }} />
          <span>{t('fields.includeUnknownIv')}</span>
        </label>
      )}
      {error !== undefined && <p className='field-error'>{error}</p>}
    </fieldset>
  )
}
