import { useMemo } from 'react'
import { useTranslation } from 'react-i18next'

/**
 * Dates and numbers in the interface language, through `Intl`: one formatter per language and style,
 * built once.
 */
const cache = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat | Intl.Collator>()

function cached<T extends Intl.NumberFormat | Intl.DateTimeFormat | Intl.Collator> (key: string, make: () => T): T {
  let formatter = cache.get(key) as T | undefined
  if (formatter === undefined) {
    formatter = make()
    cache.set(key, formatter)
  }
  return formatter
}

const NO_OPTIONS: Intl.NumberFormatOptions = {}
/**
 * The number formatter for a language and options, found first by the options object itself: lists of a
 * thousand cards format with the same few constant options, and spelling them out as a key on every call
 * cost more than the formatting.
 */
const byOptions = new WeakMap<Intl.NumberFormatOptions, Map<string, Intl.NumberFormat>>()
const numberFormat = (language: string, options: Intl.NumberFormatOptions): Intl.NumberFormat =>
  memoOn(byOptions, options, language, () => cached(`n|${language}|${JSON.stringify(options)}`, () => new Intl.NumberFormat(language, options)))

/**
 * The value for `key` under `owner` (an object: a translation function, an options object), made once:
 * for look-ups a list of a thousand items repeats, where building a string key would cost more than the
 * value. The owner's entries go with it.
 */
export function memoOn<O extends object, V> (store: WeakMap<O, Map<string, V>>, owner: O, key: string, make: () => V): V {
  let values = store.get(owner)
  if (values === undefined) {
    values = new Map()
    store.set(owner, values)
  }
  let value = values.get(key)
  if (value === undefined) {
    value = make()
    values.set(key, value)
  }
  return value
}

/** The collator of a language for sorting names, numbers in them by value. */
export const nameCollator = (language: string): Intl.Collator => cached(`c|${language}`, () => new Intl.Collator(language, { numeric: true }))

export function formatNumber (language: string, value: number, options: Intl.NumberFormatOptions = NO_OPTIONS): string {
  return numberFormat(language, options).format(value)
}

/** A range of two numbers, the unit said once where the language does ("90–95 %", "90%–95%"). */
export function formatNumberRange (language: string, start: number, end: number, options: Intl.NumberFormatOptions = NO_OPTIONS): string {
  return numberFormat(language, options).formatRange(start, end)
}

export function formatDateTime (language: string, value: Date | number, options: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' }): string {
  return cached(`d|${language}|${JSON.stringify(options)}`, () => new Intl.DateTimeFormat(language, options)).format(value)
}

/**
 * The formatters bound to the current interface language: one object per language, so a memoised value
 * or effect that depends on it is recomputed when the language changes, not on every render.
 */
export function useFormat () {
  const { i18n } = useTranslation()
  const language = i18n.language
  return useMemo(() => ({
    number: (value: number, options?: Intl.NumberFormatOptions) => formatNumber(language, value, options),
    numberRange: (start: number, end: number, options?: Intl.NumberFormatOptions) => formatNumberRange(language, start, end, options),
    dateTime: (value: Date | number, options?: Intl.DateTimeFormatOptions) => formatDateTime(language, value, options)
  }), [language])
}
