import type { TFunction } from 'i18next'
import type { Explanation } from '../../../schemas/alarm-explanations'
import { monsterName, type Monster } from '../pickers/game-data'

/*
 * The words of an explanation (docs/explanations.md), shared by "Why no alert?" and the editor's "Check
 * this alarm": one failed filter in words, and one alarm's answer as a sentence.
 */

export type Failure = Explanation['member'][number]
export type AlarmAnswer = Explanation['alarms'][number]

export interface ReasonWords {
  t: TFunction
  monsters: Monster[] | null
  number: (n: number, o?: Intl.NumberFormatOptions) => string
}

/** One filter that stopped an alarm, in words; the engine's own field name when no sentence knows it. */
export function reason (f: Failure, v: ReasonWords): string {
  const { t } = v
  const got = f.got
  const n = typeof got === 'number' ? got : null
  switch (f.filter) {
    case 'min_iv': case 'max_iv':
      return n === null || n < 0 ? t('explanations.reasons.notEncountered') : t('explanations.reasons.iv', { iv: v.number(n, { style: 'unit', unit: 'percent', maximumFractionDigits: 2 }) })
    case 'min_cp': case 'max_cp': return t('explanations.reasons.cp', { cp: n ?? 0 })
    case 'min_level': case 'max_level': return t('explanations.reasons.level', { level: n ?? 0 })
    case 'pokemon_id': return n !== null && n > 0 ? t('explanations.reasons.pokemon', { name: monsterName(v.monsters, n) }) : t('explanations.reasons.egg')
    case 'egg': return t('explanations.reasons.hatched')
    case 'min_time': return t('explanations.reasons.time', { time: v.number(Math.max(0, n ?? 0) / 60, { style: 'unit', unit: 'minute', maximumFractionDigits: 0 }) })
    case 'distance': return n === null ? t('explanations.reasons.noLocation') : t('explanations.reasons.distance', { distance: v.number(n, { style: 'unit', unit: 'meter' }) })
    case 'area': return Array.isArray(got) && got.length > 0 ? t('explanations.reasons.area', { areas: got.join(', ') }) : t('explanations.reasons.noArea')
    case 'blocked_alerts': return t('explanations.reasons.blocked')
    case 'enabled': return t('explanations.reasons.paused')
    case 'admin_disable': return t('explanations.reasons.disabled')
    case 'location': return t('explanations.reasons.noLocation')
    default: return t('explanations.reasons.other', { filter: f.filter })
  }
}

/** The reasons an alarm did not match, each said once, joined; its profile not being active is said apart. */
export const reasons = (a: AlarmAnswer, words: ReasonWords): string =>
  [...new Set(a.failed.filter((f) => f.filter !== 'profile_no').map((f) => reason(f, words)))].join('; ')

/** Whether only the alarm's profile (not active at the event's time) stopped it. */
export const onlyProfile = (a: AlarmAnswer): boolean => !a.matches && a.failed.length > 0 && a.failed.every((f) => f.filter === 'profile_no')

/** "Magikarp, IV ≥ 90%: no — IV was 82%"; `described` is the alarm in words, `profile` its profile's name. */
export function alarmSentence (a: AlarmAnswer, described: string, profile: string, words: ReasonWords): string {
  const { t } = words
  if (a.matches) return t('explanations.yes', { alarm: described })
  if (onlyProfile(a)) return t('explanations.otherProfile', { alarm: described, profile })
  return t('explanations.no', { alarm: described, reasons: reasons(a, words) })
}

/** Filters the editor holds elsewhere than under their own name: distance and areas are the scope field. */
const EDITOR_FIELD: Record<string, string> = { area: 'distance', location: 'distance' }

/** The editor's field to open an alarm at: the first failed filter it has (the scope for distance and areas). */
export function failedField (a: AlarmAnswer, fieldNames: ReadonlySet<string>): string | null {
  for (const f of a.failed) {
    const name = EDITOR_FIELD[f.filter] ?? f.filter
    if (fieldNames.has(name)) return name
  }
  return null
}
