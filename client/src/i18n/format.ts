import { useMemo } from 'react'
import { useTranslation } from 'react-i18next'

/**
 * Dates and numbers in the interface language, through `Intl`: one formatter per language and style,
 * built once.
 */
const cache = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>()

function cached<T extends Intl.NumberFormat | Intl.DateTimeFormat> (key: string, make: () => T): T {
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
function numberFormat (language: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  let languages = byOptions.get(options)
  if (languages === undefined) {
    languages = new Map()
    byOptions.set(options, languages)
  }
  let formatter = languages.get(language)
  if (formatter === undefined) {
    formatter = cached(`n|${language}|${JSON.stringify(options)}`, () => new Intl.NumberFormat(language, options))
    languages.set(language, formatter)
  }
  return formatter
}

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
