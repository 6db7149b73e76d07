import { KIND_OF, type AlarmType } from '../schemas/alarm-types.js'

/**
 * The one matcher: whether an alarm, as the engine stores it, matches an event the scanner saw, and if
 * not, every filter that stopped it. The rules are PoracleJS's (`src/controllers/*.js`, the `…WhoCares`
 * queries) and PoracleNG's (`processor/internal/matching/*.go`), which agree on everything written here
 * (docs/explanations.md lists them). Each alarm is read once into its rules; a rule's test is the whole
 * decision, so the estimates (which only count) and the explanations (which name the failed filters)
 * run the same code and cannot disagree. Pure: no I/O, no clock.
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
  if (out.station_id === '') out.station_id = null
  return out
}

/** A field of an alarm as a number (the engine's rows carry numbers, booleans as 0/1, some numeric text). */
export const num = (alarm: FullAlarm, field: string, fallback = 0): number => {
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

/* Rules. */

/** A filter that stopped an alarm: the engine's field, the alarm's range in words, the event's value. */
export interface Failure { filter: string, want: string, got: unknown }

/** One filter of one alarm, its fields read once. `want` is worded only when the rule failed. */
interface Rule<E> { filter: string, test: (e: E) => boolean, want: () => string, got: (e: E) => unknown }

/** An alarm as its rules: only those that can refuse an event (a filter left at "any" has none). */
export type Rules<E> = ReadonlyArray<Rule<E>>

export function passes<E> (rules: Rules<E>, e: E): boolean {
  for (const r of rules) if (!r.test(e)) return false
  return true
}

export function failures<E> (rules: Rules<E>, e: E): Failure[] {
  const out: Failure[] = []
  for (const r of rules) if (!r.test(e)) out.push({ filter: r.filter, want: r.want(), got: r.got(e) })
  return out
}

const rule = <E>(filter: string, test: (e: E) => boolean, want: () => string, got: (e: E) => unknown): Rule<E> => ({ filter, test, want, got })

/**
 * `min <= value <= max` as the engine's SQL has it: one rule per bound that is narrower than the field's
 * widest value (a bound at its default cannot refuse an event of the engine's own values).
 */
function range<E> (a: FullAlarm, minField: string, maxField: string, lo: number, hi: number, label: string, value: (e: E) => number): Array<Rule<E>> {
  const min = num(a, minField, lo)
  const max = num(a, maxField, hi)
  const want = () => `${label} ${min}–${max}`
  const out: Array<Rule<E>> = []
  if (min > lo) out.push(rule(minField, (e) => value(e) >= min, want, value))
  if (max < hi) out.push(rule(maxField, (e) => value(e) <= max, want, value))
  return out
}

/** `field = value or field = any`: the engine's "any" values (0 for species and forms, 4 for teams, 9000 for moves). */
function anyOr<E> (a: FullAlarm, field: string, any: number, label: string, value: (e: E) => number, fallback = any): Array<Rule<E>> {
  const wanted = num(a, field, fallback)
  if (wanted === any) return []
  return [rule(field, (e) => value(e) === wanted, () => `${label} ${wanted}`, value)]
}

/* Pokemon. */

/** One PvP ranking of a spawn as Golbat sends it (webhook `pvp`, table `pokemon.pvp`), per league. */
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
  /** Seconds of life left when the engine received it; null when unknown. */
  secondsLeft: number | null
  pvp: Partial<Record<'little' | 'great' | 'ultra', PvpRank[]>> | null
  /** PoracleJS's rarity group of the species from its own counts; -1 (unknown) when absent, as in the engine. */
  rarity?: number
}

/** The IV percentage the engines compute; -1 for a spawn without IVs (not encountered). */
export const ivOf = (s: Pick<Spawn, 'atk' | 'def' | 'sta'>): number =>
  s.atk === null || s.def === null || s.sta === null ? -1 : ((s.atk + s.def + s.sta) * 100) / 45

export const LEAGUES: Record<number, 'little' | 'great' | 'ultra'> = { 500: 'little', 1500: 'great', 2500: 'ultra' }

/** Golbat's `pvp` text: `{"great":[{"rank":…,"cp":…,"cap":…,"capped":…},…],…}`; anything else is "no ranks". */
export function parsePvp (text: unknown): Spawn['pvp'] {
  if (typeof text !== 'string' || text === '') return null
  try {
    return pvpOf(JSON.parse(text))
  } catch {
    return null
  }
}

/** The leagues' rankings of a parsed `pvp` object (webhook or table); entries without a rank are left out. */
export function pvpOf (parsed: unknown): Spawn['pvp'] {
  if (parsed === null || typeof parsed !== 'object') return null
  const out: NonNullable<Spawn['pvp']> = {}
  for (const league of ['little', 'great', 'ultra'] as const) {
    const list = (parsed as Row)[league]
    if (!Array.isArray(list)) continue
    out[league] = list.flatMap((e: Row) => (typeof e?.rank === 'number' && (e.evolution === undefined || e.evolution === null || e.evolution === 0)
      ? [{ rank: e.rank, cp: typeof e.cp === 'number' ? e.cp : 0, cap: typeof e.cap === 'number' ? e.cap : 0, capped: e.capped === true }]
      : []))
  }
  return out
}

/** The level caps PoracleJS ranks for by default (`pvp.levelCaps`), and the worst rank it looks up (`pvpQueryMaxRank`). */
const LEVEL_CAPS = [50]
const PVP_QUERY_MAX_RANK = 100

/** A league's best rank per level cap, as PoracleJS reduces a spawn's rankings before matching (monster.js). */
export interface BestRank { rank: number, cp: number, caps: number[] }

export function bestRanks (ranks: readonly PvpRank[] | undefined): BestRank[] {
  const best = new Map(LEVEL_CAPS.map((c) => [c, { rank: 4096, cp: 0 }]))
  for (const r of ranks ?? []) {
    const caps = r.cap === 0 && !r.capped ? [50] : r.capped ? LEVEL_CAPS.filter((c) => c >= r.cap) : [r.cap]
    for (const cap of caps) {
      const b = best.get(cap)
      if (b === undefined || r.rank === 0) continue
      if (r.rank < b.rank) { b.rank = r.rank; b.cp = r.cp } else if (r.rank === b.rank && r.cp > b.cp) b.cp = r.cp
    }
  }
  const out: BestRank[] = []
  for (const [cap, b] of best) {
    const same = out.find((o) => o.rank === b.rank && o.cp === b.cp)
    if (same !== undefined) same.caps.push(cap)
    else out.push({ ...b, caps: [cap] })
  }
  return out.filter((b) => b.rank <= PVP_QUERY_MAX_RANK)
}

/** Best ranks per spawn and league, worked out once however many PvP alarms test the spawn. */
const bestCache = new WeakMap<object, Map<string, BestRank[]>>()
function bestOf (s: Spawn, league: 'little' | 'great' | 'ultra'): BestRank[] {
  if (s.pvp === null) return []
  let perLeague = bestCache.get(s.pvp)
  if (perLeague === undefined) { perLeague = new Map(); bestCache.set(s.pvp, perLeague) }
  let best = perLeague.get(league)
  if (best === undefined) { best = bestRanks(s.pvp[league]); perLeague.set(league, best) }
  return best
}

const spawnIv = (s: Spawn) => Math.round(ivOf(s) * 100) / 100

/** A pokemon alarm's rules (everything but the place), in the order of PoracleJS's query. */
export function pokemonRules (a: FullAlarm): Rules<Spawn> {
  const out: Array<Rule<Spawn>> = []
  const id = num(a, 'pokemon_id')
  if (id !== 0) out.push(rule('pokemon_id', (s) => s.pokemonId === id, () => `pokémon #${id}`, (s) => s.pokemonId))
  out.push(...anyOr<Spawn>(a, 'form', 0, 'form', (s) => s.form))
  out.push(...range<Spawn>(a, 'min_iv', 'max_iv', -1, 100, 'IV %', spawnIv))
  const minTime = num(a, 'min_time')
  if (minTime > 0) out.push(rule('min_time', (s) => (s.secondsLeft ?? 0) >= minTime, () => `at least ${minTime} s left`, (s) => s.secondsLeft))
  out.push(...range<Spawn>(a, 'min_cp', 'max_cp', 0, 9000, 'CP', (s) => s.cp ?? 0))
  out.push(...anyOr<Spawn>(a, 'gender', 0, 'gender', (s) => s.gender ?? 0))
  out.push(...range<Spawn>(a, 'min_level', 'max_level', 0, 55, 'level', (s) => s.level ?? 0))
  out.push(...range<Spawn>(a, 'atk', 'max_atk', 0, 15, 'attack', (s) => s.atk ?? 0))
  out.push(...range<Spawn>(a, 'def', 'max_def', 0, 15, 'defence', (s) => s.def ?? 0))
  out.push(...range<Spawn>(a, 'sta', 'max_sta', 0, 15, 'stamina', (s) => s.sta ?? 0))
  out.push(...range<Spawn>(a, 'min_weight', 'max_weight', 0, 9_000_000, 'weight (g)', (s) => (s.weight ?? 0) * 1000))
  out.push(...range<Spawn>(a, 'rarity', 'max_rarity', -1, 6, 'rarity group', (s) => s.rarity ?? -1))
  out.push(...range<Spawn>(a, 'size', 'max_size', -1, 5, 'size', (s) => s.size ?? 0))
  const leagueCp = num(a, 'pvp_ranking_league')
  if (leagueCp !== 0) {
    const league = LEAGUES[leagueCp]
    const best = num(a, 'pvp_ranking_best', 1)
    const worst = num(a, 'pvp_ranking_worst', 4096)
    const minCp = num(a, 'pvp_ranking_min_cp')
    const cap = num(a, 'pvp_ranking_cap')
    const ranks = (s: Spawn) => (league === undefined ? [] : bestOf(s, league))
    const fits = (r: BestRank) => r.rank >= best && r.rank <= worst && r.cp >= minCp && (cap === 0 || r.caps.includes(cap))
    out.push(rule('pvp_ranking_league', (s) => ranks(s).some(fits),
      () => `${league ?? leagueCp} league rank ${best}–${worst}${minCp > 0 ? `, at least ${minCp} CP` : ''}${cap > 0 ? `, level cap ${cap}` : ''}`,
      (s) => ranks(s).map((r) => ({ rank: r.rank, cp: r.cp, caps: r.caps }))))
  }
  return out
}

/** A pokemon alarm's filters (everything but the place) as a test of spawns. */
export function pokemonFilter (a: FullAlarm): (s: Spawn) => boolean {
  const rules = pokemonRules(a)
  return (s) => passes(rules, s)
}

/** Whether a pokemon alarm's filters (everything but the place) match a spawn. */
export const pokemonMatches = (a: FullAlarm, s: Spawn): boolean => pokemonFilter(a)(s)

/** A chosen gym or station: set and not empty (the engine stores "none" as NULL; a body may send ""). */
export const chosen = (id: unknown): boolean => id !== null && id !== undefined && id !== ''

/* Raids and eggs (one scanner event: a raid without a boss yet is an egg). */

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

export const LEVEL_ANY = 90
export const BY_LEVEL = 9000

/** Team, EX and a chosen gym: shared by raid and egg alarms. The place is skipped for a chosen gym (explainer). */
function gymSideRules (a: FullAlarm): Array<Rule<RaidEvent>> {
  const out = anyOr<RaidEvent>(a, 'team', 4, 'team', (e) => e.team, 4)
  if (num(a, 'exclusive') === 1) out.push(rule('exclusive', (e) => e.exclusive, () => 'EX-eligible gyms only', (e) => e.exclusive))
  const gym = a.gym_id
  if (chosen(gym)) out.push(rule('gym_id', (e) => e.gymId === gym, () => `gym ${String(gym)}`, (e) => e.gymId))
  return out
}

export function raidRules (a: FullAlarm): Rules<RaidEvent> {
  const out: Array<Rule<RaidEvent>> = [rule('pokemon_id', (e) => e.pokemonId > 0, () => 'a raid with its boss known (an egg is not a raid)', (e) => e.pokemonId)]
  const id = num(a, 'pokemon_id', BY_LEVEL)
  if (id === BY_LEVEL) {
    const level = num(a, 'level', LEVEL_ANY)
    if (level !== LEVEL_ANY) out.push(rule('level', (e) => e.level === level, () => `level ${level}`, (e) => e.level))
  } else {
    out.push(rule('pokemon_id', (e) => e.pokemonId === id, () => `boss #${id}`, (e) => e.pokemonId))
  }
  out.push(...anyOr<RaidEvent>(a, 'form', 0, 'form', (e) => e.form))
  out.push(...anyOr<RaidEvent>(a, 'evolution', 9000, 'evolution', (e) => e.evolution))
  const move = num(a, 'move', 9000)
  if (move !== 9000) out.push(rule('move', (e) => e.move1 === move || e.move2 === move, () => `move ${move}`, (e) => [e.move1, e.move2]))
  out.push(...gymSideRules(a))
  return out
}

export function eggRules (a: FullAlarm): Rules<RaidEvent> {
  const out: Array<Rule<RaidEvent>> = [rule('egg', (e) => e.pokemonId <= 0, () => 'an egg (a raid whose boss is not known yet)', (e) => e.pokemonId)]
  const level = num(a, 'level', LEVEL_ANY)
  if (level !== LEVEL_ANY) out.push(rule('level', (e) => e.level === level, () => `level ${level}`, (e) => e.level))
  out.push(...gymSideRules(a))
  return out
}

/** A raid alarm and a raid whose boss is known (hatched). */
export const raidMatches = (a: FullAlarm, e: RaidEvent): boolean => passes(raidRules(a), e)

/**
 * An egg alarm and a raid seen by the estimates: every raid was an egg first, so the egg-only rule is
 * left out (the engine sent the egg's alert before it hatched).
 */
export const eggMatches = (a: FullAlarm, e: RaidEvent): boolean => passes(eggRules(a).slice(1), e)

/* Quests. */

/** One reward of a quest (a stop's quest can pay several). `amount`: items, dust, candy, energy. */
export interface QuestEvent { rewardType: number, itemId: number, pokemonId: number, form: number, amount: number, shiny?: boolean }

const STARDUST = 3
const ITEM = 2
const CANDY = 4
const POKEMON = 7
const MEGA_ENERGY = 12
export const QUEST_REWARD_TYPES = [ITEM, STARDUST, CANDY, POKEMON, MEGA_ENERGY]

/** A quest alarm against one reward (quest.js, quest.go: the reward types the engines alert on). */
export function questRules (a: FullAlarm): Rules<QuestEvent> {
  const type = num(a, 'reward_type')
  const reward = num(a, 'reward')
  const amount = num(a, 'amount')
  const out: Array<Rule<QuestEvent>> = [rule('reward_type', (e) => e.rewardType === type, () => `reward type ${type}`, (e) => e.rewardType)]
  const amountRule = () => { if (amount > 0) out.push(rule('amount', (e) => e.amount >= amount, () => `at least ${amount}`, (e) => e.amount)) }
  if (type === STARDUST) {
    out.push(rule('reward', (e) => e.amount >= reward, () => `at least ${reward} stardust`, (e) => e.amount))
  } else if (type === POKEMON) {
    out.push(rule('reward', (e) => e.pokemonId === reward, () => `pokémon #${reward}`, (e) => e.pokemonId))
    out.push(...anyOr<QuestEvent>(a, 'form', 0, 'form', (e) => e.form))
    if (num(a, 'shiny') === 1) out.push(rule('shiny', (e) => e.shiny === true, () => 'shiny', (e) => e.shiny === true))
  } else if (type === ITEM) {
    out.push(rule('reward', (e) => e.itemId === reward, () => `item #${reward}`, (e) => e.itemId))
    amountRule()
  } else if (type === CANDY || type === MEGA_ENERGY) {
    if (reward !== 0) out.push(rule('reward', (e) => e.pokemonId === reward, () => `pokémon #${reward}`, (e) => e.pokemonId))
    amountRule()
  } else {
    out.push(rule('reward_type', () => false, () => `reward type ${type} (not one the engine alerts on)`, (e) => e.rewardType))
  }
  // The reward's own rules speak only of a reward of the alarm's type (another type fails on the type alone).
  return out.map((r, i) => (i === 0 ? r : { ...r, test: (e: QuestEvent) => e.rewardType !== type || r.test(e) }))
}

export const questMatches = (a: FullAlarm, e: QuestEvent): boolean => passes(questRules(a), e)

/* Invasions, lures, nests, gyms, fort changes, max battles. */

/** A grunt as the engine's master data names it (`/api/masterdata/grunts`). */
export interface Grunt { type: string, gender: number, grunt: string }

/** An invasion: its grunt (undefined when the master data does not know the character). */
export interface InvasionEvent { grunt: Grunt | undefined }

export function invasionRules (a: FullAlarm): Rules<InvasionEvent> {
  const wanted = String(a.grunt_type ?? '').toLowerCase()
  const out: Array<Rule<InvasionEvent>> = []
  if (wanted !== 'everything') {
    out.push(rule('grunt_type', ({ grunt }) => grunt !== undefined && (wanted === grunt.type.toLowerCase() ||
      (grunt.grunt.toLowerCase() !== 'grunt' && wanted === grunt.grunt.toLowerCase())), () => `grunt type ${wanted}`, ({ grunt }) => grunt?.type.toLowerCase() ?? null))
  }
  // PoracleJS reads a grunt without a gender as -1, which only "any gender" matches.
  out.push(...anyOr<InvasionEvent>(a, 'gender', 0, 'gender', ({ grunt }) => (grunt === undefined || grunt.gender === 0 ? -1 : grunt.gender)))
  return out
}

export const invasionMatches = (a: FullAlarm, grunt: Grunt | undefined): boolean => passes(invasionRules(a), { grunt })

export const lureRules = (a: FullAlarm): Rules<number> => anyOr<number>(a, 'lure_id', 0, 'lure', (lureId) => lureId)
export const lureMatches = (a: FullAlarm, lureId: number): boolean => passes(lureRules(a), lureId)

export interface NestEvent { pokemonId: number, form: number, average: number }

export function nestRules (a: FullAlarm): Rules<NestEvent> {
  const out = anyOr<NestEvent>(a, 'pokemon_id', 0, 'pokémon #', (e) => e.pokemonId)
  out.push(...anyOr<NestEvent>(a, 'form', 0, 'form', (e) => e.form))
  const min = num(a, 'min_spawn_avg')
  if (min > 0) out.push(rule('min_spawn_avg', (e) => e.average >= min, () => `at least ${min} spawns an hour`, (e) => e.average))
  return out
}

/** A gym's change; the old values are the engine's memory of the gym before this message (absent: unknown). */
export interface GymEvent { gymId: string, team: number, oldTeam: number | null, slots: number | null, oldSlots: number | null, inBattle: boolean }

export function gymRules (a: FullAlarm): Rules<GymEvent> {
  const out = anyOr<GymEvent>(a, 'team', 4, 'team', (e) => e.team, 4)
  // The same team as before: only the slot and battle changes the alarm asks for alert (gym.js, gym.go).
  const slots = num(a, 'slot_changes') === 1
  const battle = num(a, 'battle_changes') === 1
  const sameTeam = (e: GymEvent) => e.oldTeam === e.team
  const wants = (e: GymEvent) => !sameTeam(e) || (slots && e.oldSlots !== e.slots) || (battle && e.inBattle)
  out.push(rule(battle && !slots ? 'battle_changes' : 'slot_changes', wants,
    () => `a team change${slots ? ', or a change of free slots' : ''}${battle ? ', or a battle' : ''}`,
    (e) => (sameTeam(e) ? { team: 'unchanged', slots: e.oldSlots === e.slots ? 'unchanged' : 'changed', inBattle: e.inBattle } : { team: 'changed' })))
  const gym = a.gym_id
  if (chosen(gym)) out.push(rule('gym_id', (e) => e.gymId === gym, () => `gym ${String(gym)}`, (e) => e.gymId))
  return out
}

export interface FortEvent { fortType: string, changeTypes: string[], isEmpty: boolean }

const listOf = (v: unknown): string[] => {
  if (Array.isArray(v)) return v.map(String)
  if (typeof v === 'string') return safeList(v) ?? []
  return []
}

export function fortRules (a: FullAlarm): Rules<FortEvent> {
  const out: Array<Rule<FortEvent>> = []
  const type = String(a.fort_type ?? 'everything')
  if (type !== 'everything') out.push(rule('fort_type', (e) => e.fortType === type, () => type, (e) => e.fortType))
  const changes = listOf(a.change_types)
  if (changes.length > 0) out.push(rule('change_types', (e) => e.changeTypes.some((c) => changes.includes(c)), () => changes.join(', '), (e) => e.changeTypes))
  if (num(a, 'include_empty') !== 1) out.push(rule('include_empty', (e) => !e.isEmpty, () => 'a fort with a name or description', (e) => (e.isEmpty ? 'empty' : 'named')))
  return out
}

export interface MaxBattleEvent { stationId: string, pokemonId: number, form: number, level: number, gmax: boolean, evolution: number, move1: number, move2: number }

export function maxBattleRules (a: FullAlarm): Rules<MaxBattleEvent> {
  const out: Array<Rule<MaxBattleEvent>> = []
  const id = num(a, 'pokemon_id', BY_LEVEL)
  if (id === BY_LEVEL) {
    const level = num(a, 'level', LEVEL_ANY)
    if (level !== LEVEL_ANY) out.push(rule('level', (e) => e.level === level, () => `level ${level}`, (e) => e.level))
  } else {
    out.push(rule('pokemon_id', (e) => e.pokemonId === id, () => `pokémon #${id}`, (e) => e.pokemonId))
  }
  if (num(a, 'gmax') === 1) out.push(rule('gmax', (e) => e.gmax, () => 'Gigantamax only', (e) => e.gmax))
  out.push(...anyOr<MaxBattleEvent>(a, 'form', 0, 'form', (e) => e.form))
  out.push(...anyOr<MaxBattleEvent>(a, 'evolution', 9000, 'evolution', (e) => e.evolution))
  const move = num(a, 'move', 9000)
  if (move !== 9000) out.push(rule('move', (e) => e.move1 === move || e.move2 === move, () => `move ${move}`, (e) => [e.move1, e.move2]))
  const station = a.station_id
  if (chosen(station)) out.push(rule('station_id', (e) => e.stationId === station, () => `station ${String(station)}`, (e) => e.stationId))
  return out
}
