import { KIND_OF, type AlarmType } from '../schemas/alarm-types.js'

/**
 * What an alarm matches, in the alarm engine's terms (alarm-engine.md 1.4 and PoracleJS/PoracleNG's
 * matching): one predicate per type over events the scanner saw, and the rule that decides whether one
 * alarm already matches every event another one matches. Pure functions, shared by the estimates
 * plugin, its tests and the benchmark. docs/estimates.md lists the rules.
 */

type Row = Record<string, unknown>

/** An alarm with every field the engine would store: the body over the type's defaults. */
export type FullAlarm = Record<string, unknown>

export function fullAlarm (type: AlarmType, body: Row): FullAlarm {
  const kind = KIND_OF[type]
  const out: FullAlarm = { ...kind.engineDefaults, ...kind.createDefaults }
  for (const [field, value] of Object.entries(body)) if (value !== null && value !== undefined) out[field] = value
  if (typeof out.grunt_type === 'string') out.grunt_type = out.grunt_type.toLowerCase()
  if (out.gym_id === '') out.gym_id = null
  return out
}

const num = (alarm: FullAlarm, field: string, fallback = 0): number => {
  const v = alarm[field]
  if (typeof v === 'number') return v
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v)
  if (typeof v === 'boolean') return v ? 1 : 0
  return fallback
}

/* Where: the member's areas (fence names, lower case) or a circle around their location. */

export interface Place { latitude: number, longitude: number }

/** The areas an alarm uses: its own override areas when set, else the profile's. */
export function alarmAreas (alarm: FullAlarm, profileAreas: readonly string[]): string[] {
  const own = alarm.override_areas
  const list = Array.isArray(own) && own.length > 0 ? own : typeof own === 'string' && own.startsWith('[') ? safeList(own) : null
  return [...new Set((list ?? profileAreas).map((a) => String(a).toLowerCase()))]
}

function safeList (text: string): string[] | null {
  try {
    const parsed: unknown = JSON.parse(text)
    return Array.isArray(parsed) && parsed.length > 0 ? parsed.map(String) : null
  } catch {
    return null
  }
}

const EARTH_RADIUS_M = 6_371_000
const rad = (deg: number) => (deg * Math.PI) / 180

/** Great-circle distance in metres (haversine), as the engines measure an alarm's distance. */
export function distanceMetres (a: Place, lat: number, lon: number): number {
  const dLat = rad(lat - a.latitude)
  const dLon = rad(lon - a.longitude)
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(lat)) * Math.sin(dLon / 2) ** 2
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)))
}

/* Pokemon. */

/** One PvP ranking of a spawn as Golbat stores it in `pokemon.pvp` (per league). */
export interface PvpRank { rank: number, cp: number, cap: number, capped: boolean }
export interface Spawn {
  pokemonId: number
  form: number
  atk: number | null
  def: number | null
  sta: number | null
  cp: number | null
  level: number | null
  gender: number | null
  size: number | null
  /** Kilograms. */
  weight: number | null
  /** Seconds of life left when the scanner first saw it; null when unknown. */
  secondsLeft: number | null
  pvp: Partial<Record<'little' | 'great' | 'ultra', PvpRank[]>> | null
}

/** The IV percentage the engines compute; -1 for a spawn without IVs (not encountered). */
export const ivOf = (s: Pick<Spawn, 'atk' | 'def' | 'sta'>): number =>
  s.atk === null || s.def === null || s.sta === null ? -1 : ((s.atk + s.def + s.sta) * 100) / 45

const LEAGUES: Record<number, 'little' | 'great' | 'ultra'> = { 500: 'little', 1500: 'great', 2500: 'ultra' }

/** Golbat's `pvp` text: `{"great":[{"rank":…,"cp":…,"cap":…,"capped":…},…],…}`; anything else is "no ranks". */
export function parsePvp (text: unknown): Spawn['pvp'] {
  if (typeof text !== 'string' || text === '') return null
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>
    const out: NonNullable<Spawn['pvp']> = {}
    for (const league of ['little', 'great', 'ultra'] as const) {
      const list = parsed[league]
      if (!Array.isArray(list)) continue
      out[league] = list.flatMap((e: Row) => (typeof e?.rank === 'number'
        ? [{ rank: e.rank, cp: typeof e.cp === 'number' ? e.cp : 0, cap: typeof e.cap === 'number' ? e.cap : 0, capped: e.capped === true }]
        : []))
    }
    return out
  } catch {
    return null
  }
}

const within = (value: number, min: number, max: number) => value >= min && value <= max

/**
 * A pokemon alarm's filters (everything but the place) as a test of spawns: the alarm's fields are read
 * once, so a pass over many spawns tests each against plain numbers.
 */
export function pokemonFilter (a: FullAlarm): (s: Spawn) => boolean {
  const id = num(a, 'pokemon_id')
  const form = num(a, 'form')
  const minIv = num(a, 'min_iv', -1)
  const maxIv = num(a, 'max_iv', 100)
  const minCp = num(a, 'min_cp')
  const maxCp = num(a, 'max_cp', 9000)
  const minLevel = num(a, 'min_level')
  const maxLevel = num(a, 'max_level', 55)
  const atk = num(a, 'atk')
  const maxAtk = num(a, 'max_atk', 15)
  const def = num(a, 'def')
  const maxDef = num(a, 'max_def', 15)
  const sta = num(a, 'sta')
  const maxSta = num(a, 'max_sta', 15)
  const gender = num(a, 'gender')
  const minWeight = num(a, 'min_weight')
  const maxWeight = num(a, 'max_weight', 9_000_000)
  const size = num(a, 'size', -1)
  const maxSize = num(a, 'max_size', 5)
  const minTime = num(a, 'min_time')
  const league = LEAGUES[num(a, 'pvp_ranking_league')]
  const best = num(a, 'pvp_ranking_best', 1)
  const worst = num(a, 'pvp_ranking_worst', 4096)
  const pvpMinCp = num(a, 'pvp_ranking_min_cp')
  const cap = num(a, 'pvp_ranking_cap')
  return (s) => {
    if (id !== 0 && id !== s.pokemonId) return false
    if (form !== 0 && form !== s.form) return false
    if (!within(ivOf(s), minIv, maxIv)) return false
    if (!within(s.cp ?? 0, minCp, maxCp)) return false
    if (!within(s.level ?? 0, minLevel, maxLevel)) return false
    if (!within(s.atk ?? 0, atk, maxAtk)) return false
    if (!within(s.def ?? 0, def, maxDef)) return false
    if (!within(s.sta ?? 0, sta, maxSta)) return false
    if (gender !== 0 && gender !== (s.gender ?? 0)) return false
    if (!within((s.weight ?? 0) * 1000, minWeight, maxWeight)) return false
    if (size !== -1 && !within(s.size ?? 0, size, maxSize)) return false
    if (minTime > 0 && (s.secondsLeft ?? 0) < minTime) return false
    if (league !== undefined) {
      const ranks = s.pvp?.[league] ?? []
      if (!ranks.some((r) => within(r.rank, best, worst) && r.cp >= pvpMinCp && (cap === 0 || r.cap === cap || (r.capped && r.cap <= cap)))) return false
    }
    return true
  }
}

/** Whether a pokemon alarm's filters (everything but the place) match a spawn. */
export const pokemonMatches = (a: FullAlarm, s: Spawn): boolean => pokemonFilter(a)(s)

/* Raids, eggs, quests, invasions, lures. */

export interface RaidEvent {
  gymId: string
  level: number
  pokemonId: number
  form: number
  team: number
  exclusive: boolean
  move1: number
  move2: number
  evolution: number
}

const LEVEL_ANY = 90
const BY_LEVEL = 9000

const raidPlaceFilters = (a: FullAlarm, e: RaidEvent): boolean => {
  const team = num(a, 'team', 4)
  if (team !== 4 && team !== e.team) return false
  if (num(a, 'exclusive') === 1 && !e.exclusive) return false
  const gym = a.gym_id
  return gym === null || gym === undefined || gym === e.gymId
}

/** A raid alarm and a raid whose boss is known (hatched). */
export function raidMatches (a: FullAlarm, e: RaidEvent): boolean {
  if (e.pokemonId <= 0) return false
  const id = num(a, 'pokemon_id', BY_LEVEL)
  if (id === BY_LEVEL) {
    const level = num(a, 'level', LEVEL_ANY)
    if (level !== LEVEL_ANY && level !== e.level) return false
  } else {
    if (id !== e.pokemonId) return false
    const form = num(a, 'form')
    if (form !== 0 && form !== e.form) return false
  }
  const move = num(a, 'move', 9000)
  if (move !== 9000 && move !== e.move1 && move !== e.move2) return false
  const evolution = num(a, 'evolution', 9000)
  if (evolution !== 9000 && evolution !== e.evolution) return false
  return raidPlaceFilters(a, e)
}

/** An egg alarm and a raid (every raid was an egg first). */
export function eggMatches (a: FullAlarm, e: RaidEvent): boolean {
  const level = num(a, 'level', LEVEL_ANY)
  if (level !== LEVEL_ANY && level !== e.level) return false
  return raidPlaceFilters(a, e)
}

export interface QuestEvent { rewardType: number, itemId: number, pokemonId: number, form: number, amount: number }

const STARDUST = 3

export function questMatches (a: FullAlarm, e: QuestEvent): boolean {
  if (num(a, 'reward_type') !== e.rewardType) return false
  const reward = num(a, 'reward')
  const amount = num(a, 'amount')
  if (e.amount < amount) return false
  if (e.rewardType === STARDUST) return e.amount >= reward
  const id = e.rewardType === 2 ? e.itemId : e.pokemonId
  if (reward !== 0 && reward !== id) return false
  const form = num(a, 'form')
  return form === 0 || form === e.form
}

/** A grunt as the engine's master data names it (`/api/masterdata/grunts`). */
export interface Grunt { type: string, gender: number, grunt: string }

export function invasionMatches (a: FullAlarm, grunt: Grunt | undefined): boolean {
  if (grunt === undefined) return false
  const wanted = String(a.grunt_type ?? '').toLowerCase()
  const byType = wanted === grunt.type.toLowerCase()
  const byName = grunt.grunt.toLowerCase() !== 'grunt' && wanted === grunt.grunt.toLowerCase()
  if (!byType && !byName) return false
  const gender = num(a, 'gender')
  return gender === 0 || gender === grunt.gender
}

export function lureMatches (a: FullAlarm, lureId: number): boolean {
  const wanted = num(a, 'lure_id')
  return wanted === 0 || wanted === lureId
}

/* Overlap: does alarm `a` match every event alarm `b` matches? Only sufficient conditions; unsure = no. */

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
  } else if (idA !== idB || !anyOrSame(a, b, 'form', 0)) {
    return false
  }
  return anyOrSame(a, b, 'move', 9000) && anyOrSame(a, b, 'evolution', 9000) && gymCovers(a, b)
}

const eggCovers = (a: FullAlarm, b: FullAlarm) => anyOrSame(a, b, 'level', LEVEL_ANY) && gymCovers(a, b)

function questCovers (a: FullAlarm, b: FullAlarm): boolean {
  const type = num(a, 'reward_type')
  if (type !== num(b, 'reward_type')) return false
  if (num(a, 'amount') > num(b, 'amount')) return false
  if (type === STARDUST) return num(a, 'reward') <= num(b, 'reward')
  return anyOrSame(a, b, 'reward', 0) && anyOrSame(a, b, 'form', 0) && anyOrSame(a, b, 'shiny', 0)
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
