import { createHash, createHmac, timingSafeEqual } from 'node:crypto'

/** Widget data older than this is refused (Telegram's own recommendation is "check auth_date"). */
export const MAX_AGE_SECONDS = 86_400
/** Tolerated clock difference for an auth_date slightly ahead of this service's clock. */
export const FUTURE_SKEW_SECONDS = 60

/**
 * The data-check-string of Telegram's login widget: every received field except `hash`, as
 * `key=value`, sorted by key (ordinal), joined by line feeds.
 */
export function dataCheckString (fields: Readonly<Record<string, string | number>>): string {
  return Object.keys(fields)
    .filter((key) => key !== 'hash')
    .sort()
    .map((key) => `${key}=${String(fields[key])}`)
    .join('\n')
}

/** HMAC-SHA256 of the data-check-string under SHA-256(bot token), as Telegram computes `hash`. */
export function widgetHash (fields: Readonly<Record<string, string | number>>, botToken: string): Buffer {
  const secret = createHash('sha256').update(botToken).digest()
  return createHmac('sha256', secret).update(dataCheckString(fields)).digest()
}

/** Constant-time check of the widget's hex `hash` against the one computed here. */
export function hashMatches (fields: Readonly<Record<string, string | number>>, hash: string, botToken: string): boolean {
  const expected = widgetHash(fields, botToken)
  const given = Buffer.from(hash, 'hex')
  return given.length === expected.length && timingSafeEqual(given, expected)
}
