import { TtlCache } from './ttl-cache.js'

/**
 * Intl formatters by locale and options, made once: making one costs far more than using it (a number
 * format about 30 µs to make and under 1 µs to use, a date format 70 µs to make), and the matcher and
 * the push notifications use them on every event. Formatters never go stale, so entries have no end; the
 * cap bounds the map by this, not by the locales and time zones members can name. A constructor that
 * throws (an unknown time zone) is not kept, and the caller sees its error.
 */
const KEPT_MAX = 1000
const never = { now: () => 0 }
const numberFormats = new TtlCache<string, Intl.NumberFormat>(never, KEPT_MAX)
const dateTimeFormats = new TtlCache<string, Intl.DateTimeFormat>(never, KEPT_MAX)

function kept<F> (cache: TtlCache<string, F>, locale: string, options: object, make: () => F): F {
  const key = `${locale}\n${JSON.stringify(options)}`
  let format = cache.get(key)
  if (format === undefined) {
    format = make()
    cache.setUntil(key, format, Infinity)
  }
  return format
}

export const numberFormat = (locale: string, options: Intl.NumberFormatOptions): Intl.NumberFormat =>
  kept(numberFormats, locale, options, () => new Intl.NumberFormat(locale, options))

export const dateTimeFormat = (locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat =>
  kept(dateTimeFormats, locale, options, () => new Intl.DateTimeFormat(locale, options))
