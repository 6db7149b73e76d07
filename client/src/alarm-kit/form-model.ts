import type { TFunction } from 'i18next'
import type { AlarmTypeDescriptor, FieldDescriptor } from '../alarm-types'
import type { FieldProblem } from '../api'
import { OPEN_TOP } from './game-words'

/**
 * The alarm form's state and its conversions: every field is edited as text (what an input holds), turned
 * into the engine's values only when sent, so a half-typed number is never lost or coerced.
 */
export type Alarm = Record<string, unknown> & { uid: number }
export type FormValues = Record<string, string>
export type FieldErrors = Record<string, string>

/** Fields the form does not offer: saved places (no supported engine has them: /api/location/places is 501). */
const NOT_OFFERED = new Set(['override_location_label'])

export const formFields = (type: AlarmTypeDescriptor): FieldDescriptor[] => type.fields.filter((f) => !NOT_OFFERED.has(f.name))

function toText (field: FieldDescriptor, value: unknown): string {
  if (value === null || value === undefined) return ''
  if (field.kind === 'list') return Array.isArray(value) ? value.join(', ') : String(value)
  if (field.kind === 'boolean') return value === true || value === 1 || value === '1' ? '1' : '0'
  return String(value)
}

/**
 * A new alarm starts from the descriptors' defaults (the spec's frontend defaults) with the member's own
 * defaults over them; an edit from the alarm.
 */
export function initialValues (type: AlarmTypeDescriptor, alarm?: Alarm, personal: Record<string, unknown> = {}): FormValues {
  const names = new Set(type.fields.map((f) => f.name))
  const own = Object.fromEntries(Object.entries(personal).filter(([name, value]) => value !== null && value !== undefined && names.has(name)))
  return Object.fromEntries(formFields(type).map((f) => [f.name, toText(f, alarm !== undefined ? (f.name in alarm ? alarm[f.name] : f.default) : f.name in own ? own[f.name] : f.default)]))
}

export const listItems = (text: string): string[] => text.split(',').map((s) => s.trim()).filter((s) => s !== '')

function fromText (field: FieldDescriptor, text: string): unknown {
  const trimmed = text.trim()
  switch (field.kind) {
    case 'integer':
    case 'boolean':
      return trimmed === '' ? null : Number(trimmed)
    case 'enum':
      return field.values?.find((v) => String(v) === trimmed) ?? trimmed
    case 'template':
      return trimmed === '' ? null : /^-?\d+$/.test(trimmed) ? Number(trimmed) : trimmed
    case 'list':
      return trimmed === '' ? null : listItems(trimmed)
    case 'string':
      return trimmed === '' ? null : trimmed
  }
}

/**
 * The request body. A create sends every field that has a value; an edit only what changed, since the
 * update is partial and the server keeps the rest. A field emptied on edit is sent as "" for the text
 * ids (the server stores null: any gym) and left out otherwise.
 */
export function toBody (type: AlarmTypeDescriptor, values: FormValues, original?: FormValues): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  for (const field of formFields(type)) {
    const text = values[field.name] ?? ''
    if (original !== undefined && original[field.name] === text) continue
    const value = fromText(field, text)
    if (value !== null) body[field.name] = value
    else if (original !== undefined && field.kind === 'string') body[field.name] = ''
    else if (original !== undefined && field.kind === 'list') body[field.name] = []
  }
  return body
}

/** The checks the server makes, made first, so most mistakes are shown before anything is sent. */
export function validate (type: AlarmTypeDescriptor, values: FormValues, t: TFunction, creating: boolean): FieldErrors {
  const errors: FieldErrors = {}
  for (const field of formFields(type)) {
    const text = (values[field.name] ?? '').trim()
    if (text === '') {
      if (creating && field.required) errors[field.name] = t('fields.errors.required')
      continue
    }
    if (field.kind === 'integer') {
      const n = Number(text)
      if (!Number.isInteger(n)) errors[field.name] = t('fields.errors.wholeNumber')
      else if ((field.min !== undefined && n < field.min) || (field.max !== undefined && n > field.max)) {
        // The engine's largest integer bounds nothing a member would type: "at least 0", never "0 to 2147483647".
        errors[field.name] = field.max !== undefined && field.max >= OPEN_TOP ? t('fields.errors.atLeast', { min: field.min ?? 0 }) : t('fields.errors.range', { min: field.min, max: field.max })
      }
    } else if ((field.kind === 'string' || field.kind === 'template') && field.maxLength !== undefined && text.length > field.maxLength) {
      errors[field.name] = t('fields.errors.tooLong', { max: field.maxLength })
    } else if (field.kind === 'list') {
      const items = listItems(text)
      if (field.maxItems !== undefined && items.length > field.maxItems) errors[field.name] = t('fields.errors.tooMany', { max: field.maxItems })
      else if (field.maxLength !== undefined && items.some((i) => i.length > field.maxLength!)) errors[field.name] = t('fields.errors.tooLong', { max: field.maxLength })
    }
  }
  for (const { low: min, high: max } of type.ranges) {
    const low = Number(values[min])
    const high = Number(values[max])
    if (errors[min] === undefined && errors[max] === undefined && values[min] !== '' && values[max] !== '' && low > high) {
      errors[max] = t('fields.errors.belowMinimum', { min: t(`alarms.fields.${min}`) })
    }
  }
  return errors
}

/**
 * A 400's details at their fields: `/min_iv` (and `/override_areas/0`) belong to that field; anything
 * else is shown above the form.
 */
export function serverErrors (type: AlarmTypeDescriptor, details: FieldProblem[]): { fields: FieldErrors, other: string[] } {
  const names = new Set(type.fields.map((f) => f.name))
  const fields: FieldErrors = {}
  const other: string[] = []
  for (const { field, message } of details) {
    const name = field.replace(/^\//, '').split('/')[0]?.toLowerCase() ?? ''
    if (names.has(name)) fields[name] = fields[name] === undefined ? message : `${fields[name]}; ${message}`
    else other.push(field === '' ? message : `${field}: ${message}`)
  }
  return { fields, other }
}

/** An alarm as a create body: for undoing a delete (the server ignores uid, id and profile_no). */
export function recreateBody (type: AlarmTypeDescriptor, alarm: Alarm): Record<string, unknown> {
  return Object.fromEntries(type.fields.filter((f) => alarm[f.name] !== null && alarm[f.name] !== undefined).map((f) => [f.name, alarm[f.name]]))
}
