import type { AlarmType } from '../../../schemas/alarm-types.js'
import { BY_LEVEL, LEVEL_ANY, alarmAreas, num, type FullAlarm } from '../../../lib/alarm-match.js'

/**
 * Overlap: does alarm `a` match every event alarm `b` matches? Only sufficient conditions; unsure = no.
 * Read from the matcher's rules (lib/alarm-match.ts); docs/estimates.md lists them.
 */

const STARDUST = 3
const ANY_REWARD_TYPES = new Set([4, 12])

/** The types whose filters the overlap rules understand. */
export const OVERLAP_TYPES: ReadonlySet<AlarmType> = new Set(['pokemon', 'raid', 'egg', 'quest', 'invasion', 'lure'])

const contains = (a: FullAlarm, b: FullAlarm, min: string, max: string, lo: number, hi: number) =>
  num(a, min, lo) <= num(b, min, lo) && num(b, max, hi) <= num(a, max, hi)
const anyOrSame = (a: FullAlarm, b: FullAlarm, field: string, any: number, fallback = any) =>
  num(a, field, fallback) === any || num(a, field, fallback) === num(b, field, fallback)

/**
 * `a` covers `b`'s places: both on areas and a's areas include b's; or both on a distance from the same
 * place (no saved-place label, or the same one) and a's radius is at least b's. A circle against areas is
 * never decided (it would need the fences' geometry): not covered.
 */
export function placeCovers (a: FullAlarm, b: FullAlarm, profileAreas: readonly string[]): boolean {
  const da = num(a, 'distance')
  const db = num(b, 'distance')
  if (da === 0 && db === 0) {
    const areasA = new Set(alarmAreas(a, profileAreas))
    const areasB = alarmAreas(b, profileAreas)
    return areasB.every((n) => areasA.has(n))
  }
  if (da > 0 && db > 0) return (a.override_location_label ?? null) === (b.override_location_label ?? null) && da >= db
  return false
}

function pokemonCovers (a: FullAlarm, b: FullAlarm): boolean {
  const idA = num(a, 'pokemon_id')
  if (idA !== 0 && idA !== num(b, 'pokemon_id')) return false
  const formA = num(a, 'form')
  if (formA !== 0 && formA !== num(b, 'form')) return false
  if (!contains(a, b, 'min_iv', 'max_iv', -1, 100)) return false
  if (!contains(a, b, 'min_cp', 'max_cp', 0, 9000)) return false
  if (!contains(a, b, 'min_level', 'max_level', 0, 55)) return false
  if (!contains(a, b, 'atk', 'max_atk', 0, 15) || !contains(a, b, 'def', 'max_def', 0, 15) || !contains(a, b, 'sta', 'max_sta', 0, 15)) return false
  if (!contains(a, b, 'min_weight', 'max_weight', 0, 9_000_000)) return false
  if (!contains(a, b, 'rarity', 'max_rarity', -1, 6)) return false
  if (!anyOrSame(a, b, 'gender', 0)) return false
  const sizeA = num(a, 'size', -1)
  if (sizeA !== -1 && (num(b, 'size', -1) === -1 || !contains(a, b, 'size', 'max_size', -1, 5))) return false
  if (num(a, 'min_time') > num(b, 'min_time')) return false
  const leagueA = num(a, 'pvp_ranking_league')
  if (leagueA !== 0) {
    if (num(b, 'pvp_ranking_league') !== leagueA) return false
    if (!contains(a, b, 'pvp_ranking_best', 'pvp_ranking_worst', 1, 4096)) return false
    if (num(a, 'pvp_ranking_min_cp') > num(b, 'pvp_ranking_min_cp')) return false
    if (!anyOrSame(a, b, 'pvp_ranking_cap', 0)) return false
    if (num(a, 'pvp_ranking_evolution') !== num(b, 'pvp_ranking_evolution')) return false
  }
  return true
}

/** RSVP: 0 raids without RSVP changes, 2 only RSVP changes, 1 both; "both" covers either. */
const rsvpCovers = (a: FullAlarm, b: FullAlarm) => num(a, 'rsvp_changes') === num(b, 'rsvp_changes') || num(a, 'rsvp_changes') === 1

const gymCovers = (a: FullAlarm, b: FullAlarm) =>
  anyOrSame(a, b, 'team', 4) && (num(a, 'exclusive') === 0 || num(b, 'exclusive') === 1) &&
  (a.gym_id === null || a.gym_id === undefined || a.gym_id === b.gym_id) && rsvpCovers(a, b)

function raidCovers (a: FullAlarm, b: FullAlarm): boolean {
  const idA = num(a, 'pokemon_id', BY_LEVEL)
  const idB = num(b, 'pokemon_id', BY_LEVEL)
  if (idA === BY_LEVEL) {
    const levelA = num(a, 'level', LEVEL_ANY)
    // A boss alarm's raids can be of any level, so only "every level" is sure to include them.
    if (levelA !== LEVEL_ANY && (idB !== BY_LEVEL || levelA !== num(b, 'level', LEVEL_ANY))) return false
  } else if (idA !== idB) {
    return false
  }
  return anyOrSame(a, b, 'form', 0) && anyOrSame(a, b, 'move', 9000) && anyOrSame(a, b, 'evolution', 9000) && gymCovers(a, b)
}

const eggCovers = (a: FullAlarm, b: FullAlarm) => anyOrSame(a, b, 'level', LEVEL_ANY) && gymCovers(a, b)

function questCovers (a: FullAlarm, b: FullAlarm): boolean {
  const type = num(a, 'reward_type')
  if (type !== num(b, 'reward_type')) return false
  if (num(a, 'amount') > num(b, 'amount')) return false
  if (type === STARDUST) return num(a, 'reward') <= num(b, 'reward')
  // Reward 0 is "any" only for candy and mega energy; a pokemon or item alarm names its reward.
  const reward = ANY_REWARD_TYPES.has(type) ? anyOrSame(a, b, 'reward', 0) : num(a, 'reward') === num(b, 'reward')
  return reward && anyOrSame(a, b, 'form', 0) && anyOrSame(a, b, 'shiny', 0)
}

const invasionCovers = (a: FullAlarm, b: FullAlarm) =>
  String(a.grunt_type ?? '').toLowerCase() === String(b.grunt_type ?? '').toLowerCase() && anyOrSame(a, b, 'gender', 0)

const lureCovers = (a: FullAlarm, b: FullAlarm) => anyOrSame(a, b, 'lure_id', 0)

const FILTER_COVERS: Partial<Record<AlarmType, (a: FullAlarm, b: FullAlarm) => boolean>> = {
  pokemon: pokemonCovers, raid: raidCovers, egg: eggCovers, quest: questCovers, invasion: invasionCovers, lure: lureCovers
}

/** Whether alarm `a` matches every event alarm `b` matches (both of `type`, both full alarms of one profile). */
export function covers (type: AlarmType, a: FullAlarm, b: FullAlarm, profileAreas: readonly string[]): boolean {
  const filters = FILTER_COVERS[type]
  return filters !== undefined && filters(a, b) && placeCovers(a, b, profileAreas)
}
