import type { AlarmType } from '../schemas/alarm-types.js'

/**
 * A scanner webhook whose values fall inside an alarm's filters, at the member's location (reference
 * 1.18, alarm-engine.md 1.10): what a test alert sends to the engine's /api/test and what a template
 * preview has the engine render. Nothing here matches or stores anything.
 */

export type Row = Record<string, unknown>

/** Where to put the sample when the member has no location: the engine's scheduler treats 0,0 as unset too. */
const FALLBACK_PLACE = { latitude: 40.758, longitude: -73.9855 }
const ANY = 9000

const num = (value: unknown, fallback: number): number => {
  const n = typeof value === 'string' ? Number(value) : value
  return typeof n === 'number' && Number.isFinite(n) ? n : fallback
}
const clamp = (value: number, low: number, high: number) => Math.min(Math.max(value, low), high)
/** "Any team" (4) shows as Mystic. */
const team = (alarm: Row) => { const t = num(alarm.team, 4); return t >= 0 && t <= 3 ? t : 1 }

/** The highest IV spread inside the alarm's per-stat and percentage bounds. */
function ivs (alarm: Row): [number, number, number] {
  const low = [num(alarm.atk, 0), num(alarm.def, 0), num(alarm.sta, 0)] as const
  const high = [num(alarm.max_atk, 15), num(alarm.max_def, 15), num(alarm.max_sta, 15)] as const
  const minIv = Math.max(num(alarm.min_iv, -1), 0)
  const maxIv = num(alarm.max_iv, 100)
  for (let a = high[0]; a >= low[0]; a--) {
    for (let d = high[1]; d >= low[1]; d--) {
      for (let s = high[2]; s >= low[2]; s--) {
        const percent = ((a + d + s) / 45) * 100
        if (percent >= minIv && percent <= maxIv) return [a, d, s]
      }
    }
  }
  return [high[0], high[1], high[2]]
}

function pokemon (alarm: Row, place: Row, now: number): Row {
  const [atk, def, sta] = ivs(alarm)
  const size = num(alarm.size, -1)
  return {
    ...place,
    encounter_id: `test-${String(alarm.uid)}-${now}`,
    spawnpoint_id: 'test',
    pokemon_id: num(alarm.pokemon_id, 0) || 25,
    form: num(alarm.form, 0),
    individual_attack: atk,
    individual_defense: def,
    individual_stamina: sta,
    cp: clamp(1500, num(alarm.min_cp, 0), num(alarm.max_cp, 9000)),
    pokemon_level: clamp(30, num(alarm.min_level, 0), num(alarm.max_level, 55)),
    weight: clamp(10, num(alarm.min_weight, 0), num(alarm.max_weight, 9000000)),
    height: 1,
    gender: num(alarm.gender, 0) || 1,
    size: size >= 1 ? size : 3,
    move_1: 214,
    move_2: 90,
    weather: 0,
    costume: 0,
    first_seen: now,
    disappear_time: now + Math.max(num(alarm.min_time, 0), 0) + 900,
    disappear_time_verified: true,
    verified: true
  }
}

function gym (alarm: Row, place: Row): Row {
  const gymId = typeof alarm.gym_id === 'string' ? alarm.gym_id : 'test-gym'
  return { ...place, gym_id: gymId, gym_name: 'Test Gym', team_id: team(alarm), ex_raid_eligible: false, is_exclusive: num(alarm.exclusive, 0) === 1 }
}

function raidLevel (alarm: Row): number {
  const level = num(alarm.level, 5)
  return level >= 1 && level <= 15 ? level : 5
}

function raid (alarm: Row, place: Row, now: number): Row {
  const pokemonId = num(alarm.pokemon_id, ANY)
  const move = num(alarm.move, ANY)
  const evolution = num(alarm.evolution, ANY)
  return {
    ...gym(alarm, place),
    level: raidLevel(alarm),
    pokemon_id: pokemonId === ANY ? 150 : pokemonId,
    form: num(alarm.form, 0),
    move_1: move === ANY ? 214 : move,
    move_2: 90,
    cp: 40000,
    gender: 0,
    evolution: evolution === ANY ? 0 : evolution,
    spawn: now - 3600,
    start: now - 60,
    end: now + 2700
  }
}

function egg (alarm: Row, place: Row, now: number): Row {
  return { ...gym(alarm, place), level: raidLevel(alarm), pokemon_id: 0, spawn: now, start: now + 1800, end: now + 4500 }
}

function questReward (alarm: Row): Row {
  const reward = num(alarm.reward, 0)
  const amount = num(alarm.amount, 0)
  switch (num(alarm.reward_type, 2)) {
    case 3: return { type: 3, info: { amount: Math.max(reward, amount, 500) } }
    case 4: return { type: 4, info: { pokemon_id: reward || 1, amount: amount || 3 } }
    case 7: return { type: 7, info: { pokemon_id: reward || 25, form_id: num(alarm.form, 0), shiny: num(alarm.shiny, 0) === 1 } }
    case 12: return { type: 12, info: { pokemon_id: reward || 3, amount: amount || 10 } }
    default: return { type: 2, info: { item_id: reward || 1, amount: amount || 1 } }
  }
}

const stop = (place: Row, now: number) => ({ ...place, pokestop_id: 'test-stop', pokestop_name: 'Test Stop', name: 'Test Stop', url: '', updated: now })

function quest (alarm: Row, place: Row, now: number): Row {
  return { ...stop(place, now), type: 4, target: 3, template: 'challenge_catch_easy', title: 'quest_catch_pokemon_plural', conditions: [], rewards: [questReward(alarm)], with_ar: false }
}

/** The grunt id of the alarm's grunt type and gender, from the engine's own grunt list (4 when it has none). */
function gruntId (grunts: Record<string, unknown>, alarm: Row): number {
  const wanted = String(alarm.grunt_type ?? '').toLowerCase()
  const gender = num(alarm.gender, 0)
  const entries = Object.entries(grunts).map(([id, g]) => ({ id: Number(id), g: g as Row }))
  const hit = entries.find(({ g }) => String(g.type).toLowerCase() === wanted && (gender === 0 || num(g.gender, 0) === gender)) ??
    entries.find(({ g }) => String(g.type).toLowerCase() === wanted || String(g.grunt).toLowerCase() === wanted)
  return hit !== undefined && Number.isInteger(hit.id) ? hit.id : 4
}

function invasion (grunts: Record<string, unknown>, alarm: Row, place: Row, now: number): Row {
  const id = gruntId(grunts, alarm)
  return {
    ...stop(place, now),
    grunt_type: id,
    incident_grunt_type: id,
    character: id,
    display_type: 1,
    incident_display_type: 1,
    start: now,
    incident_expiration: now + 1800,
    incident_expire_timestamp: now + 1800
  }
}

function lure (alarm: Row, place: Row, now: number): Row {
  return { ...stop(place, now), lure_id: num(alarm.lure_id, 0) || 501, lure_expiration: now + 1800 }
}

function gymChange (alarm: Row, place: Row, now: number): Row {
  const info = gym(alarm, place)
  return { ...info, id: info.gym_id, name: info.gym_name, slots_available: 3, in_battle: num(alarm.battle_changes, 0) === 1, last_modified: now, updated: now }
}

/** The alarm types a sample exists for: the engine renders and tests only these. */
export type SampledType = 'pokemon' | 'raid' | 'egg' | 'quest' | 'invasion' | 'lure' | 'gym'

const SAMPLES: Record<SampledType, (alarm: Row, place: Row, now: number, grunts: () => Promise<Record<string, unknown>>) => Row | Promise<Row>> = {
  pokemon,
  raid,
  egg,
  quest,
  invasion: async (alarm, place, now, grunts) => invasion(await grunts(), alarm, place, now),
  lure,
  gym: gymChange
}

export const isSampled = (type: AlarmType): type is SampledType => Object.hasOwn(SAMPLES, type)

/**
 * The sample for an alarm of a sampled type, at the member's location (or a fixed place when they have
 * none); `grunts` is the engine's grunt list, read only for invasions.
 */
export async function sampleWebhook (type: SampledType, alarm: Row, member: { latitude: unknown, longitude: unknown }, now: number, grunts: () => Promise<Record<string, unknown>>): Promise<{ webhook: Row, place: Row }> {
  const located = num(member.latitude, 0) !== 0 || num(member.longitude, 0) !== 0
  const place = located ? { latitude: num(member.latitude, 0), longitude: num(member.longitude, 0) } : FALLBACK_PLACE
  return { webhook: await SAMPLES[type](alarm, place, now, grunts), place }
}
