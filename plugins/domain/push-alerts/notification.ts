import { createHash } from 'node:crypto'
import { numberFormat } from '../../../lib/intl-formats.js'
import type { EventType } from '../../../schemas/alarm-explanations.js'
import { fill, pushWordsFor, type PushWords } from './words.js'

/**
 * The notification a matched scanner event becomes on a phone (docs/push.md): a short title and text, the
 * event's id as the tag (a repeat of the event replaces its notification), the time it has left as the
 * push service's TTL, urgency by type, and the link a tap opens, in the member's language (plugins/domain/push-alerts/words.ts).
 * Pure: the caller passes names and time.
 */

type Row = Record<string, unknown>

export interface Notification {
  title: string
  body: string
  /** The event's id: the service worker's notification tag, and (hashed) the push topic. */
  tag: string
  url: string
  ttlSeconds: number
  urgency: 'normal' | 'high'
}

export interface NotificationContext {
  /** Species names by id in the member's language. */
  pokemonName: (id: number) => string
  /** The member's language as the engine keeps it (en, de, pt-BR); null: English. */
  language: string | null
  nowS: number
  /** The engine's fence the event is in, as the engine names it; null when none. */
  area: string | null
  /** Metres from the member's profile location; null when unknown. */
  metres: number | null
  /** The admin's map link, with {lat} and {lon}; empty: the site itself. */
  mapTemplate: string
}

/** How long an event with no end of its own stays worth showing. */
const DEFAULT_TTL_S = 900
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '')

function timeLeft (endS: number | null, nowS: number, words: PushWords): { ttl: number, text: string | null } {
  if (endS === null || endS <= nowS) return { ttl: endS === null ? DEFAULT_TTL_S : 0, text: null }
  return { ttl: endS - nowS, text: fill(words.minutesLeft, { n: Math.max(1, Math.round((endS - nowS) / 60)) }) }
}

/** Metres, or kilometres with one decimal from 1 km, written as the language writes numbers. */
function distanceText (metres: number, locale: string): string {
  return metres >= 1000
    ? `${numberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(metres / 1000)} km`
    : `${numberFormat(locale, { maximumFractionDigits: 0 }).format(Math.round(metres))} m`
}

/** A push topic: at most 32 URL-safe characters, the same for the same event. */
export const topicOf = (tag: string): string => createHash('sha256').update(tag).digest('base64url').slice(0, 32)

/** Scanner texts (gym and stop names) are not bounded: a notification stays far under the 3 KB payload. */
const MAX_TITLE = 120
const MAX_BODY = 240
const MAX_TAG = 200

export function notificationFor (type: EventType, m: Row, context: NotificationContext): Notification {
  const built = buildNotification(type, m, context)
  return { ...built, title: built.title.slice(0, MAX_TITLE), body: built.body.slice(0, MAX_BODY), tag: built.tag.slice(0, MAX_TAG), url: built.url.slice(0, 1000) }
}

function buildNotification (type: EventType, m: Row, context: NotificationContext): Notification {
  const lat = num(m.latitude) ?? 0
  const lon = num(m.longitude) ?? 0
  const url = context.mapTemplate === '' ? '/' : context.mapTemplate.replaceAll('{lat}', lat.toFixed(6)).replaceAll('{lon}', lon.toFixed(6))
  const { locale, words } = pushWordsFor(context.language)
  const place = context.metres === null ? null : distanceText(context.metres, locale)
  const join = (...parts: Array<string | null>) => parts.filter((p): p is string => p !== null && p !== '').join(' · ')
  switch (type) {
    case 'pokemon': {
      const [atk, def, sta] = [num(m.individual_attack), num(m.individual_defense), num(m.individual_stamina)]
      const iv = atk !== null && def !== null && sta !== null ? `${Math.round(((atk + def + sta) / 45) * 100)}%` : null
      const level = num(m.pokemon_level)
      const cp = num(m.cp)
      const left = timeLeft(num(m.disappear_time), context.nowS, words)
      return {
        title: join(`${context.pokemonName(num(m.pokemon_id) ?? 0)}${iv === null ? '' : ` ${iv}`}`, level === null ? null : `L${level}`, cp === null ? null : `CP ${cp}`),
        body: join(left.text, context.area, place),
        tag: `pokemon-${str(m.encounter_id) || `${str(m.pokemon_id)}-${lat}-${lon}-${str(m.disappear_time)}`}`,
        url,
        ttlSeconds: left.ttl,
        urgency: 'high'
      }
    }
    case 'raid': {
      const boss = num(m.pokemon_id) ?? 0
      const left = timeLeft(num(m.end), context.nowS, words)
      return {
        title: boss > 0 ? fill(words.raid, { boss: context.pokemonName(boss), level: str(m.level) }) : fill(words.egg, { level: str(m.level) }),
        body: join(str(m.gym_name) || null, left.text, context.area, place),
        tag: `raid-${str(m.gym_id)}-${str(m.end)}`,
        url,
        ttlSeconds: left.ttl,
        urgency: 'high'
      }
    }
    default: {
      const end = num(m.incident_expire_timestamp) ?? num(m.expiration) ?? num(m.lure_expiration) ?? num(m.end)
      const left = timeLeft(end, context.nowS, words)
      const name = str(m.name) || str(m.pokestop_name) || str(m.gym_name)
      return {
        title: words.kinds[type],
        body: join(name || null, left.text, context.area, place),
        tag: `${type}-${str(m.pokestop_id) || str(m.gym_id) || str(m.id) || `${lat}-${lon}`}-${end ?? ''}`,
        url,
        ttlSeconds: left.ttl,
        urgency: 'normal'
      }
    }
  }
}
