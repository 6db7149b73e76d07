import { KIND_OF, type AlarmType } from '../schemas/alarm-types.js'
import type { EventType } from '../schemas/alarm-explanations.js'
import type { ActiveHour } from '../schemas/profiles.js'
import {
  alarmAreas, chosen, distanceMetres, eggRules, failures, fortRules, gymRules, invasionRules, lureRules, maxBattleRules, nestRules,
  num, pokemonRules, pvpOf, questRules, raidRules, type Failure, type FortEvent, type FullAlarm, type GymEvent, type Grunt, type InvasionEvent,
  type MaxBattleEvent, type NestEvent, type Place, type QuestEvent, type RaidEvent, type Rules, type Spawn
} from './alarm-match.js'
import { dateTimeFormat } from './intl-formats.js'

/**
 * Explains one scanner event against one member's alarms (docs/explanations.md): the member's state first
 * (paused, disabled, blocked kinds, the profile active at the time), then each alarm's filters through
 * the one matcher (lib/alarm-match.ts), then its place (distance by haversine from the profile's location,
 * or the event's fences against the alarm's areas). Pure: the caller reads the member, the fences and
 * the grunt names.
 */

type Row = Record<string, unknown>

/** A scanner event read into what the matcher takes, with its position. */
export type ScannerEvent = { latitude: number, longitude: number } & (
  | { type: 'pokemon', spawn: Spawn }
  | { type: 'raid', raid: RaidEvent }
  | { type: 'quest', rewards: QuestEvent[] }
  | { type: 'invasion', invasion: InvasionEvent }
  | { type: 'lure', lureId: number }
  | { type: 'nest', nest: NestEvent }
  | { type: 'gym', gym: GymEvent }
  | { type: 'fort_update', fort: FortEvent }
  | { type: 'max_battle', maxBattle: MaxBattleEvent })

const int = (v: unknown, fallback = 0): number => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'boolean' ? (v ? 1 : 0) : fallback)
const orNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '')

/** What a message lacks that the engine needs but a schema cannot say (one of several fields); null when complete. */
export function missingField (type: EventType, m: Row): string | null {
  if (type === 'invasion' && [m.incident_grunt_type, m.grunt_type, m.character, m.display_type, m.incident_display_type].every((v) => v === undefined || v === null)) return 'incident_grunt_type'
  if (type === 'gym' && str(m.id ?? m.gym_id) === '') return 'id'
  if (type === 'fort_update' && positionOf(m) === null) return 'new.location'
  return null
}

function positionOf (m: Row): { latitude: number, longitude: number } | null {
  const loc = ((m.new as Row | null)?.location ?? (m.old as Row | null)?.location) as Row | undefined
  return loc !== undefined && typeof loc.lat === 'number' && typeof loc.lon === 'number' ? { latitude: loc.lat, longitude: loc.lon } : null
}

/**
 * A webhook message (already checked against its schema, schemas/alarm-explanations.ts) as the engine reads
 * it. `atS`: when the engine received it (time left is counted from then); `grunts`: the engine's master data.
 */
export function readEvent (type: EventType, m: Row, atS: number, grunts: ReadonlyMap<number, Grunt>): ScannerEvent {
  const at = { latitude: Number(m.latitude), longitude: Number(m.longitude) }
  switch (type) {
    case 'pokemon': {
      // PoracleJS: encountered only with all three IVs; otherwise IV -1 and CP, level, stats, weight 0.
      const encountered = [m.individual_attack, m.individual_defense, m.individual_stamina].every((v) => typeof v === 'number')
      const enc = (v: unknown) => (encountered ? orNull(v) : null)
      return {
        type,
        ...at,
        spawn: {
          pokemonId: int(m.pokemon_id),
          form: int(m.form),
          atk: enc(m.individual_attack),
          def: enc(m.individual_defense),
          sta: enc(m.individual_stamina),
          cp: enc(m.cp),
          level: enc(m.pokemon_level),
          gender: int(m.gender),
          size: int(m.size),
          weight: enc(m.weight),
          secondsLeft: int(m.disappear_time) - atS,
          pvp: encountered ? pvpOf(m.pvp) : null,
          rarity: int(m.rarity, -1)
        }
      }
    }
    case 'raid':
      return {
        type,
        ...at,
        raid: {
          gymId: str(m.gym_id),
          level: int(m.level),
          pokemonId: int(m.pokemon_id),
          form: int(m.form),
          team: int(m.team_id),
          exclusive: int(m.ex_raid_eligible ?? m.is_ex_raid_eligible) === 1,
          move1: int(m.move_1),
          move2: int(m.move_2),
          evolution: int(m.evolution)
        }
      }
    case 'quest':
      return {
        type,
        ...at,
        rewards: (m.rewards as Row[]).map((r) => {
          const info = (r.info ?? {}) as Row
          return { rewardType: int(r.type), itemId: int(info.item_id), pokemonId: int(info.pokemon_id), form: int(info.form_id), amount: int(info.amount), shiny: info.shiny === true }
        })
      }
    case 'invasion': {
      // PoracleJS pokestop.js: the incident's grunt type unless it is 352 (an event stop), else the legacy field.
      const display = int(m.display_type ?? m.incident_display_type)
      const incident = orNull(m.incident_grunt_type) ?? orNull(m.character)
      const id = incident !== null && incident !== 352 ? incident : display <= 6 ? int(m.grunt_type) : 0
      return { type, ...at, invasion: { grunt: grunts.get(id) } }
    }
    case 'lure':
      return { type, ...at, lureId: int(m.lure_id) }
    case 'nest':
      return { type, ...at, nest: { pokemonId: int(m.pokemon_id), form: int(m.form), average: Number(m.pokemon_avg) } }
    case 'gym':
      return {
        type,
        ...at,
        gym: {
          gymId: str(m.id ?? m.gym_id),
          team: int(m.team_id),
          oldTeam: orNull(m.old_team_id),
          slots: orNull(m.slots_available),
          oldSlots: orNull(m.old_slots_available),
          inBattle: int(m.is_in_battle ?? m.in_battle) === 1
        }
      }
    case 'fort_update': {
      const fresh = (m.new ?? null) as Row | null
      const old = (m.old ?? null) as Row | null
      const edits = Array.isArray(m.edit_types) ? m.edit_types.map(String) : []
      return {
        type,
        ...(positionOf(m) ?? { latitude: 0, longitude: 0 }),
        fort: {
          fortType: str(fresh?.type ?? old?.type) || 'unknown',
          changeTypes: [...edits, str(m.change_type)],
          isEmpty: !(str(fresh?.name) !== '' || str(fresh?.description) !== '' || str(old?.name) !== '')
        }
      }
    }
    case 'max_battle': {
      // PoracleNG: Gigantamax from the bread mode (2), or above level 6 when the mode is absent.
      const bread = int(m.battle_pokemon_bread_mode)
      return {
        type,
        ...at,
        maxBattle: {
          stationId: str(m.id),
          pokemonId: int(m.battle_pokemon_id),
          form: int(m.battle_pokemon_form),
          level: int(m.battle_level),
          gmax: bread === 2 || (bread === 0 && int(m.battle_level) > 6),
          evolution: 0,
          move1: int(m.battle_pokemon_move_1),
          move2: int(m.battle_pokemon_move_2)
        }
      }
    }
  }
}

/**
 * The alarm types an event is matched against, each with the key PoracleJS and PoracleNG look for in
 * `blocked_alerts`, the key of a chosen gym or station, and the field naming it.
 */
interface Kind { type: AlarmType, blocked: string, chosen?: { field: string, blocked: string } }
const KINDS: Record<EventType, Kind[]> = {
  pokemon: [{ type: 'pokemon', blocked: 'monster' }],
  raid: [{ type: 'raid', blocked: 'raid', chosen: { field: 'gym_id', blocked: 'specificgym' } }, { type: 'egg', blocked: 'egg', chosen: { field: 'gym_id', blocked: 'specificgym' } }],
  quest: [{ type: 'quest', blocked: 'quest' }],
  invasion: [{ type: 'invasion', blocked: 'invasion' }],
  lure: [{ type: 'lure', blocked: 'lure' }],
  nest: [{ type: 'nest', blocked: 'nest' }],
  gym: [{ type: 'gym', blocked: 'gym', chosen: { field: 'gym_id', blocked: 'specificgym' } }],
  fort_update: [{ type: 'fort', blocked: 'forts' }],
  max_battle: [{ type: 'maxbattle', blocked: 'maxbattle', chosen: { field: 'station_id', blocked: 'specificstation' } }]
}

/** The alarm types an event of this type is explained against. */
export const alarmTypesOf = (type: EventType): AlarmType[] => KINDS[type].map((k) => k.type)

/**
 * The areas an alarm alerts in (its own, else its profile's), or null when no area limits it: a distance
 * alarm, or one for a chosen gym or station. The same branches as explain() below.
 */
export function areaLimit (type: AlarmType, row: Row, profileAreas: readonly string[]): string[] | null {
  const kind = Object.values(KINDS).flat().find((k) => k.type === type)
  if (kind?.chosen !== undefined && chosen(row[kind.chosen.field])) return null
  return num(row, 'distance') > 0 ? null : alarmAreas(row, profileAreas)
}

/**
 * What is read from a stored alarm once, kept by its row: the rules of each filter, what names it, and
 * its areas (per list of profile areas). A member's rows are kept as the same objects between questions
 * (plugins/domain/alarm-explanations.ts, push alerts), so a thousand alarms are not read again per event.
 * Rows are never changed in place: a change of the member is a new read, new rows.
 */
interface ReadAlarm { rules: Rules<never>, naming: Row, areas: { of: readonly string[], list: string[] } | null }
const readAlarms = new WeakMap<FullAlarm, ReadAlarm>()
const NO_AREAS: readonly string[] = []

function readAlarm (alarmType: AlarmType, a: FullAlarm, e: ScannerEvent): ReadAlarm {
  let read = readAlarms.get(a)
  if (read === undefined) {
    read = { rules: rulesFor(alarmType, a, e) as Rules<never>, naming: namingFields(alarmType, a), areas: null }
    readAlarms.set(a, read)
  }
  return read
}

function rulesFor (alarmType: AlarmType, a: FullAlarm, e: ScannerEvent): Rules<unknown> {
  switch (e.type) {
    case 'pokemon': return pokemonRules(a) as Rules<unknown>
    case 'raid': return (alarmType === 'egg' ? eggRules : raidRules)(a) as Rules<unknown>
    case 'quest': return questRules(a) as Rules<unknown>
    case 'invasion': return invasionRules(a) as Rules<unknown>
    case 'lure': return lureRules(a) as Rules<unknown>
    case 'nest': return nestRules(a) as Rules<unknown>
    case 'gym': return gymRules(a) as Rules<unknown>
    case 'fort_update': return fortRules(a) as Rules<unknown>
    case 'max_battle': return maxBattleRules(a) as Rules<unknown>
  }
}

/** An alarm's filter failures for an event (everything but the place and the member). */
export function filterFailures (alarmType: AlarmType, a: FullAlarm, e: ScannerEvent): Failure[] {
  const rules = readAlarm(alarmType, a, e).rules as Rules<unknown>
  switch (e.type) {
    case 'pokemon': return failures(rules, e.spawn)
    case 'raid': return failures(rules, e.raid)
    case 'quest': return questFailures(rules as Rules<QuestEvent>, e.rewards)
    case 'invasion': return failures(rules, e.invasion)
    case 'lure': return failures(rules, e.lureId)
    case 'nest': return failures(rules, e.nest)
    case 'gym': return failures(rules, e.gym)
    case 'fort_update': return failures(rules, e.fort)
    case 'max_battle': return failures(rules, e.maxBattle)
  }
}

/** The alarm's areas with the profile's areas it falls back to, read once per list of them. */
function areasOf (alarmType: AlarmType, a: FullAlarm, e: ScannerEvent, profileAreas: readonly string[]): string[] {
  const read = readAlarm(alarmType, a, e)
  if (read.areas === null || read.areas.of !== profileAreas) read.areas = { of: profileAreas, list: alarmAreas(a, profileAreas) }
  return read.areas.list
}

/** A quest alarm matches when one reward passes; otherwise the failures against the closest reward (fewest). */
function questFailures (rules: Rules<QuestEvent>, rewards: QuestEvent[]): Failure[] {
  let best: Failure[] | null = null
  for (const r of rewards) {
    const f = failures(rules, r)
    if (f.length === 0) return f
    if (best === null || (best[0]?.filter === 'reward_type' && f[0]?.filter !== 'reward_type') || (f[0]?.filter !== 'reward_type' && f.length < best.length)) best = f
  }
  return best ?? []
}

/* Profiles and active hours. */

export interface MemberProfile { profileNo: number, name: string, areas: string[], place: Place | null, activeHours: ActiveHour[] }

export interface MemberState {
  /** The member's language as the engine keeps it (en, de, ...); null: the engine's default. */
  language?: string | null
  enabled: boolean
  adminDisabled: boolean
  blockedAlerts: string[]
  currentProfileNo: number
  profiles: MemberProfile[]
  /** Every alarm of every profile, as the engine stores them. */
  alarms: Array<{ type: AlarmType, row: Row }>
}

const WEEK_MIN = 7 * 1440
const WEEKDAYS: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 }

/** Minutes since Monday 00:00 in the zone (the engine reads a profile's schedule in the member's local time). */
export function weekMinute (ms: number, timeZone: string): number {
  const parts = dateTimeFormat('en-GB', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(ms)
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? ''
  return ((WEEKDAYS[get('weekday')] ?? 1) - 1) * 1440 + Number(get('hour')) * 60 + Number(get('minute'))
}

/**
 * The profile active at `atMs`. The engine switches a profile on at each of its active-hours times and
 * otherwise keeps the current one (which the member may also switch by hand). So: with no schedule, or
 * when no scheduled switch happened between the event and now, the current profile; else the profile of
 * the last scheduled switch before the event.
 */
export function activeProfileAt (member: Pick<MemberState, 'profiles' | 'currentProfileNo'>, atMs: number, nowMs: number, timeZone: string): number {
  const switches = member.profiles.flatMap((p) => p.activeHours.map((h) => ({ profileNo: p.profileNo, minute: (Number(h.day) - 1) * 1440 + Number(h.hours) * 60 + Number(h.mins) })))
  if (switches.length === 0) return member.currentProfileNo
  const lastBefore = (ms: number) => {
    const at = weekMinute(ms, timeZone)
    let best: { profileNo: number, ago: number } | null = null
    for (const s of switches) {
      const ago = (((at - s.minute) % WEEK_MIN) + WEEK_MIN) % WEEK_MIN
      if (best === null || ago < best.ago) best = { profileNo: s.profileNo, ago }
    }
    const found = best as { profileNo: number, ago: number }
    return { profileNo: found.profileNo, atMinute: Math.floor(ms / 60_000) - found.ago }
  }
  const atEvent = lastBefore(atMs)
  return atEvent.atMinute === lastBefore(nowMs).atMinute ? member.currentProfileNo : atEvent.profileNo
}

/* The explanation. */

/** What names an alarm whatever its value (its subject, its place), and what never does (whose, how it is sent, the engine's own wording). */
const NAMING = new Set(['pokemon_id', 'form', 'level', 'reward_type', 'reward', 'grunt_type', 'lure_id', 'fort_type', 'team', 'distance'])
const NOT_NAMING = new Set(['id', 'uid', 'profile_no', 'ping', 'template', 'clean', 'description'])

/**
 * An alarm as the answer names it: what it is about, and every other field that differs from the
 * engine's default. A member's thousand stored rows in full would make the answer ten times larger.
 */
export function namingFields (type: AlarmType, row: Row): Row {
  const defaults = KIND_OF[type].engineDefaults
  const out: Row = {}
  for (const [field, value] of Object.entries(row)) {
    if (NOT_NAMING.has(field) || value === null || value === undefined) continue
    if (NAMING.has(field) || !(field in defaults) || String(defaults[field]) !== String(value)) out[field] = value
  }
  return out
}

export interface AlarmExplanation {
  uid: number
  type: AlarmType
  profileNo: number
  active: boolean
  matches: boolean
  failed: Failure[]
  unknownAreas: string[]
  /** What names the alarm (namingFields). */
  alarm: Row
}

export interface ExplainResult {
  alerted: boolean
  activeProfileNo: number
  /** Every profile of the member by number and name. */
  profiles: Array<{ profileNo: number, name: string }>
  member: Failure[]
  eventAreas: string[]
  alarms: AlarmExplanation[]
}

/** The fences, by the engine's names (lower case): those containing the event, and whether a name is known. */
export interface EventFences { at: ReadonlySet<string>, known: (name: string) => boolean }

export function explain (member: MemberState, e: ScannerEvent, fences: EventFences, activeProfileNo: number): ExplainResult {
  const kinds = KINDS[e.type]
  const memberReasons: Failure[] = []
  if (!member.enabled) memberReasons.push({ filter: 'enabled', want: 'alerts switched on', got: false })
  if (member.adminDisabled) memberReasons.push({ filter: 'admin_disable', want: 'an account an admin has not disabled', got: true })
  const blocked = new Set(member.blockedAlerts.map((b) => b.toLowerCase()))
  const blockedKinds = kinds.filter((k) => blocked.has(k.blocked))
  if (blockedKinds.length === kinds.length) for (const k of blockedKinds) memberReasons.push({ filter: 'blocked_alerts', want: `${k.type} alerts allowed`, got: k.blocked })
  const profiles = new Map(member.profiles.map((p) => [p.profileNo, p]))
  const active = profiles.get(activeProfileNo)
  const relevant = member.alarms.filter((x) => kinds.some((k) => k.type === x.type))
  if (relevant.some((x) => num(x.row, 'profile_no', member.currentProfileNo) === activeProfileNo && num(x.row, 'distance') > 0) && !hasPlace(active?.place)) {
    memberReasons.push({ filter: 'location', want: 'a location for distance alarms', got: null })
  }
  const distanceCache = new Map<number, number>()
  const alarms = relevant.map(({ type, row }): AlarmExplanation => {
    const kind = kinds.find((k) => k.type === type) as Kind
    // The engine's rows carry every column; each rule falls back to the engine's default for one that is
    // missing, so the row is read as it is (a copy over the defaults per alarm cost more than the matching).
    const a = row
    const profileNo = num(row, 'profile_no', member.currentProfileNo)
    const profile = profiles.get(profileNo)
    const failed: Failure[] = []
    if (profileNo !== activeProfileNo) failed.push({ filter: 'profile_no', want: `profile ${profileNo}${profile !== undefined ? ` (${profile.name})` : ''} active`, got: activeProfileNo })
    if (blocked.has(kind.blocked)) failed.push({ filter: 'blocked_alerts', want: `${type} alerts allowed`, got: kind.blocked })
    failed.push(...filterFailures(type, a, e))
    const isChosen = kind.chosen !== undefined && chosen(a[kind.chosen.field])
    let unknownAreas: string[] = []
    if (isChosen) {
      // A chosen gym or station alerts wherever it is (no distance or areas), unless the member blocks those.
      if (kind.chosen !== undefined && blocked.has(kind.chosen.blocked)) failed.push({ filter: 'blocked_alerts', want: `alerts for a chosen ${kind.chosen.field === 'gym_id' ? 'gym' : 'station'}`, got: kind.chosen.blocked })
    } else {
      const distance = num(a, 'distance')
      if (distance > 0) {
        const place = profile?.place
        if (!hasPlace(place)) {
          failed.push({ filter: 'distance', want: `within ${distance} m of the profile's location`, got: null })
        } else {
          let metres = distanceCache.get(profileNo)
          if (metres === undefined) { metres = Math.round(distanceMetres(place, e.latitude, e.longitude)); distanceCache.set(profileNo, metres) }
          // PoracleJS: round(haversine) < distance.
          if (!(metres < distance)) failed.push({ filter: 'distance', want: `within ${distance} m of the profile's location`, got: metres })
        }
      } else {
        const areas = areasOf(type, a, e, profile?.areas ?? NO_AREAS)
        unknownAreas = areas.filter((n) => !fences.known(n))
        if (!areas.some((n) => fences.at.has(n))) {
          const knownAreas = areas.filter((n) => fences.known(n))
          const want = areas.length === 0
            ? 'an area chosen (none is)'
            : knownAreas.length === 0 ? `one of ${areas.join(', ')} (no fence the engine knows)` : `one of ${knownAreas.join(', ')}`
          failed.push({ filter: 'area', want, got: [...fences.at] })
        }
      }
    }
    return { uid: num(row, 'uid'), type, profileNo, active: profileNo === activeProfileNo, matches: failed.length === 0, failed, unknownAreas, alarm: readAlarm(type, row, e).naming }
  })
  return {
    alerted: memberReasons.length === 0 && alarms.some((x) => x.matches),
    activeProfileNo,
    profiles: member.profiles.map((p) => ({ profileNo: p.profileNo, name: p.name })).sort((a, b) => a.profileNo - b.profileNo),
    member: memberReasons,
    eventAreas: [...fences.at],
    alarms
  }
}

const hasPlace = (p: Place | null | undefined): p is Place => p !== null && p !== undefined && !(p.latitude === 0 && p.longitude === 0)
