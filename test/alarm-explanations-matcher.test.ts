import t from 'tap'
import { fullAlarm, passes, pokemonRules, bestRanks } from '../lib/alarm-match.js'
import { activeProfileAt, explain, filterFailures, readEvent, type MemberState, type ScannerEvent } from '../lib/alarm-explain.js'
import type { AlarmType } from '../schemas/alarm-types.js'
import type { EventType } from '../schemas/alarm-explanations.js'
import type { Test } from './helper.js'

/**
 * The one matcher, rule by rule, from the engines' matching (PoracleJS src/controllers/*.js, PoracleNG
 * processor/internal/matching/*.go): each filter both ways, an event it matches (no failure) and one it
 * refuses (exactly that filter). Then the member's side: paused, disabled, blocked kinds, profiles and
 * active hours, distance and areas.
 */

const NOW_S = 1_780_000_000
const GRUNTS = new Map([[4, { type: 'Fire', gender: 2, grunt: 'Grunt' }], [5, { type: 'Water', gender: 1, grunt: 'Grunt' }], [41, { type: 'Mixed', gender: 1, grunt: 'Cliff' }]])
const at = { latitude: 51.1, longitude: 7.1 }

const event = (type: EventType, message: Record<string, unknown>): ScannerEvent => readEvent(type, { ...at, ...message }, NOW_S, GRUNTS)
const filters = (alarmType: AlarmType, alarm: Record<string, unknown>, e: ScannerEvent) => filterFailures(alarmType, fullAlarm(alarmType, alarm), e).map((f) => f.filter)

/** `alarm` matches `pass` and refuses `fail` with exactly `filter`. */
function both (t: Test, alarmType: AlarmType, eventType: EventType, alarm: Record<string, unknown>, pass: Record<string, unknown>, fail: Record<string, unknown>, filter: string, message: string) {
  t.same(filters(alarmType, alarm, event(eventType, pass)), [], `${message}: matches`)
  t.same(filters(alarmType, alarm, event(eventType, fail)), [filter], `${message}: refused by ${filter}`)
}

const hundo = { pokemon_id: 25, form: 0, disappear_time: NOW_S + 1200, individual_attack: 15, individual_defense: 15, individual_stamina: 15, cp: 900, pokemon_level: 30, gender: 1, weight: 6.5, size: 3 }
const mon = (extra: Record<string, unknown>) => ({ ...hundo, ...extra })
const unencountered = { pokemon_id: 25, form: 0, disappear_time: NOW_S + 1200, gender: 1 }

t.test('pokemon: species, form and "everything"', async (t) => {
  both(t, 'pokemon', 'pokemon', { pokemon_id: 25 }, hundo, mon({ pokemon_id: 26 }), 'pokemon_id', 'one species')
  t.same(filters('pokemon', { pokemon_id: 0 }, event('pokemon', mon({ pokemon_id: 150 }))), [], 'pokemon_id 0: every species')
  both(t, 'pokemon', 'pokemon', { pokemon_id: 25, form: 598 }, mon({ form: 598 }), hundo, 'form', 'one form')
  t.same(filters('pokemon', { pokemon_id: 25, form: 0 }, event('pokemon', mon({ form: 598 }))), [], 'form 0: every form')
})

t.test('pokemon: IV, with unencountered as -1', async (t) => {
  both(t, 'pokemon', 'pokemon', { pokemon_id: 0, min_iv: 90 }, hundo, mon({ individual_attack: 10 }), 'min_iv', 'IV at least 90 (88.89)')
  both(t, 'pokemon', 'pokemon', { pokemon_id: 0, max_iv: 0 }, mon({ individual_attack: 0, individual_defense: 0, individual_stamina: 0 }), hundo, 'max_iv', 'nundo only')
  t.same(filters('pokemon', { pokemon_id: 0, min_iv: -1 }, event('pokemon', unencountered)), [], 'min_iv -1 includes the unencountered')
  const refused = filterFailures('pokemon', fullAlarm('pokemon', { pokemon_id: 0, min_iv: 0 }), event('pokemon', unencountered))
  t.same(refused, [{ filter: 'min_iv', want: 'IV % 0–100', got: -1 }], 'min_iv 0 refuses the unencountered (IV -1)')
  const got = filterFailures('pokemon', fullAlarm('pokemon', { pokemon_id: 0, min_iv: 90 }), event('pokemon', mon({ individual_attack: 10 })))[0]?.got
  t.equal(got, 88.89, 'the IV as the engine rounds it (two decimals)')
})

t.test('pokemon: CP, level, stats, weight, size, gender, rarity, time left', async (t) => {
  both(t, 'pokemon', 'pokemon', { pokemon_id: 0, min_cp: 500 }, hundo, mon({ cp: 400 }), 'min_cp', 'CP at least 500')
  both(t, 'pokemon', 'pokemon', { pokemon_id: 0, max_cp: 1000 }, hundo, mon({ cp: 1500 }), 'max_cp', 'CP at most 1000')
  t.same(filters('pokemon', { pokemon_id: 0, min_cp: 10 }, event('pokemon', unencountered)), ['min_cp'], 'an unencountered spawn has CP 0 for the engine')
  both(t, 'pokemon', 'pokemon', { pokemon_id: 0, min_level: 30 }, hundo, mon({ pokemon_level: 20 }), 'min_level', 'level at least 30')
  both(t, 'pokemon', 'pokemon', { pokemon_id: 0, max_level: 30 }, hundo, mon({ pokemon_level: 35 }), 'max_level', 'level at most 30')
  both(t, 'pokemon', 'pokemon', { pokemon_id: 0, atk: 15 }, hundo, mon({ individual_attack: 14 }), 'atk', 'attack 15')
  both(t, 'pokemon', 'pokemon', { pokemon_id: 0, max_atk: 0 }, mon({ individual_attack: 0 }), hundo, 'max_atk', 'attack 0')
  both(t, 'pokemon', 'pokemon', { pokemon_id: 0, def: 15 }, hundo, mon({ individual_defense: 1 }), 'def', 'defence 15')
  both(t, 'pokemon', 'pokemon', { pokemon_id: 0, max_def: 1 }, mon({ individual_defense: 1 }), hundo, 'max_def', 'defence at most 1')
  both(t, 'pokemon', 'pokemon', { pokemon_id: 0, sta: 15 }, hundo, mon({ individual_stamina: 1 }), 'sta', 'stamina 15')
  both(t, 'pokemon', 'pokemon', { pokemon_id: 0, max_sta: 1 }, mon({ individual_stamina: 0 }), hundo, 'max_sta', 'stamina at most 1')
  both(t, 'pokemon', 'pokemon', { pokemon_id: 0, min_weight: 6000 }, hundo, mon({ weight: 5.9 }), 'min_weight', 'weight in grams against kilograms')
  both(t, 'pokemon', 'pokemon', { pokemon_id: 0, max_weight: 7000 }, hundo, mon({ weight: 7.1 }), 'max_weight', 'at most 7 kg')
  both(t, 'pokemon', 'pokemon', { pokemon_id: 0, size: 3, max_size: 5 }, hundo, mon({ size: 1 }), 'size', 'size at least 3')
  both(t, 'pokemon', 'pokemon', { pokemon_id: 0, size: 1, max_size: 1 }, mon({ size: 1 }), hundo, 'max_size', 'XXS only')
  both(t, 'pokemon', 'pokemon', { pokemon_id: 0, gender: 2 }, mon({ gender: 2 }), hundo, 'gender', 'female only')
  both(t, 'pokemon', 'pokemon', { pokemon_id: 0, rarity: 4 }, mon({ rarity: 5 }), hundo, 'rarity', 'rare and above; no rarity known is -1')
  both(t, 'pokemon', 'pokemon', { pokemon_id: 0, max_rarity: 2 }, mon({ rarity: 1 }), mon({ rarity: 4 }), 'max_rarity', 'common only')
  both(t, 'pokemon', 'pokemon', { pokemon_id: 0, min_time: 600 }, hundo, mon({ disappear_time: NOW_S + 300 }), 'min_time', 'ten minutes left')
  const failed = filters('pokemon', { pokemon_id: 26, min_iv: 100, min_cp: 1000, gender: 2 }, event('pokemon', mon({ individual_attack: 0 })))
  t.same(failed, ['pokemon_id', 'min_iv', 'min_cp', 'gender'], 'every failed filter, in the engine\'s order')
})

t.test('pokemon: PvP rank per league and cap (the best rank per cap, at most rank 100)', async (t) => {
  const great = (entries: Array<Record<string, unknown>>) => mon({ pvp: { great: entries } })
  const alarm = { pokemon_id: 0, pvp_ranking_league: 1500, pvp_ranking_best: 1, pvp_ranking_worst: 10, pvp_ranking_min_cp: 1400 }
  both(t, 'pokemon', 'pokemon', alarm, great([{ rank: 3, cp: 1490, cap: 50, capped: true }]), great([{ rank: 30, cp: 1490, cap: 50 }]), 'pvp_ranking_league', 'rank 1–10')
  t.same(filters('pokemon', alarm, event('pokemon', great([{ rank: 3, cp: 1300, cap: 50 }]))), ['pvp_ranking_league'], 'below the minimum CP')
  t.same(filters('pokemon', alarm, event('pokemon', mon({ pvp: { ultra: [{ rank: 1, cp: 2500, cap: 50 }] } }))), ['pvp_ranking_league'], 'another league')
  t.same(filters('pokemon', { ...alarm, pvp_ranking_cap: 40 }, event('pokemon', great([{ rank: 3, cp: 1490, cap: 50 }]))), ['pvp_ranking_league'], 'cap 40 against ranks for cap 50')
  t.same(filters('pokemon', { ...alarm, pvp_ranking_best: 2 }, event('pokemon', great([{ rank: 1, cp: 1450, cap: 50 }, { rank: 5, cp: 1480, cap: 50 }]))), ['pvp_ranking_league'],
    'the engine keeps only the best rank per cap: rank 5 does not reach an alarm for 2–10 when rank 1 is there')
  t.same(filters('pokemon', { pokemon_id: 0 }, event('pokemon', great([{ rank: 1, cp: 1500, cap: 50 }]))), [], 'league 0: no PvP filter')
  t.same(bestRanks([{ rank: 150, cp: 1500, cap: 50, capped: false }]), [], 'ranks past 100 are never looked up')
  const spawn = (event('pokemon', great([{ rank: 3, cp: 1490, cap: 50 }])) as Extract<ScannerEvent, { type: 'pokemon' }>).spawn
  t.ok(passes(pokemonRules(fullAlarm('pokemon', alarm)), spawn), 'the estimates\' test (passes) is the same rules')
})

const raid = { gym_id: 'g1', level: 5, end: NOW_S + 1800, pokemon_id: 150, form: 0, team_id: 1, ex_raid_eligible: false, move_1: 10, move_2: 20, evolution: 0 }
const egg = { ...raid, pokemon_id: 0 }
const r = (extra: Record<string, unknown>) => ({ ...raid, ...extra })

t.test('raid: boss or level, form, team, EX, gym, move, evolution', async (t) => {
  both(t, 'raid', 'raid', { pokemon_id: 150 }, raid, r({ pokemon_id: 151 }), 'pokemon_id', 'one boss')
  both(t, 'raid', 'raid', { pokemon_id: 9000, level: 5 }, raid, r({ level: 3 }), 'level', 'by level')
  t.same(filters('raid', { pokemon_id: 9000, level: 90 }, event('raid', r({ level: 1 }))), [], 'level 90: every level')
  t.same(filters('raid', { pokemon_id: 9000, level: 90 }, event('raid', egg)), ['pokemon_id'], 'an egg is not a raid')
  both(t, 'raid', 'raid', { pokemon_id: 150, form: 135 }, r({ form: 135 }), raid, 'form', 'one form')
  both(t, 'raid', 'raid', { pokemon_id: 9000, level: 90, team: 2 }, r({ team_id: 2 }), raid, 'team', 'one team (4: any)')
  both(t, 'raid', 'raid', { pokemon_id: 9000, level: 90, exclusive: 1 }, r({ ex_raid_eligible: true }), raid, 'exclusive', 'EX gyms only')
  both(t, 'raid', 'raid', { pokemon_id: 9000, level: 90, gym_id: 'g1' }, raid, r({ gym_id: 'g2' }), 'gym_id', 'a chosen gym')
  both(t, 'raid', 'raid', { pokemon_id: 9000, level: 90, move: 20 }, raid, r({ move_2: 21 }), 'move', 'either move')
  both(t, 'raid', 'raid', { pokemon_id: 9000, level: 90, evolution: 1 }, r({ evolution: 1 }), raid, 'evolution', 'mega')
})

t.test('egg: level, team, EX, gym; a hatched raid is not an egg', async (t) => {
  both(t, 'egg', 'raid', { level: 5 }, egg, { ...egg, level: 3 }, 'level', 'one level')
  t.same(filters('egg', { level: 90 }, event('raid', { ...egg, level: 1 })), [], 'level 90: every level')
  t.same(filters('egg', { level: 5 }, event('raid', raid)), ['egg'], 'a raid with its boss is not an egg')
  both(t, 'egg', 'raid', { level: 90, team: 1 }, egg, { ...egg, team_id: 3 }, 'team', 'one team')
  both(t, 'egg', 'raid', { level: 90, exclusive: 1 }, { ...egg, ex_raid_eligible: 1 }, egg, 'exclusive', 'EX only')
  both(t, 'egg', 'raid', { level: 90, gym_id: 'g1' }, egg, { ...egg, gym_id: 'g9' }, 'gym_id', 'a chosen gym')
})

const quest = (type: number, info: Record<string, unknown>) => ({ rewards: [{ type, info }] })

t.test('quest: reward kind and amount, per reward type', async (t) => {
  both(t, 'quest', 'quest', { reward_type: 7, reward: 25 }, quest(7, { pokemon_id: 25 }), quest(2, { item_id: 1, amount: 1 }), 'reward_type', 'the reward type')
  both(t, 'quest', 'quest', { reward_type: 7, reward: 25 }, quest(7, { pokemon_id: 25 }), quest(7, { pokemon_id: 26 }), 'reward', 'a pokemon reward')
  t.same(filters('quest', { reward_type: 7, reward: 0 }, event('quest', quest(7, { pokemon_id: 25 }))), ['reward'], 'a pokemon reward 0 matches no pokemon (quest.js: reward = the pokemon)')
  both(t, 'quest', 'quest', { reward_type: 7, reward: 25, form: 598 }, quest(7, { pokemon_id: 25, form_id: 598 }), quest(7, { pokemon_id: 25 }), 'form', 'its form')
  both(t, 'quest', 'quest', { reward_type: 7, reward: 25, shiny: 1 }, quest(7, { pokemon_id: 25, shiny: true }), quest(7, { pokemon_id: 25 }), 'shiny', 'shiny only')
  both(t, 'quest', 'quest', { reward_type: 2, reward: 1301 }, quest(2, { item_id: 1301, amount: 1 }), quest(2, { item_id: 1, amount: 1 }), 'reward', 'an item')
  both(t, 'quest', 'quest', { reward_type: 2, reward: 1301, amount: 3 }, quest(2, { item_id: 1301, amount: 3 }), quest(2, { item_id: 1301, amount: 2 }), 'amount', 'an item amount')
  both(t, 'quest', 'quest', { reward_type: 3, reward: 1000 }, quest(3, { amount: 1500 }), quest(3, { amount: 500 }), 'reward', 'stardust: the reward is the minimum')
  both(t, 'quest', 'quest', { reward_type: 4, reward: 0, amount: 3 }, quest(4, { pokemon_id: 1, amount: 3 }), quest(4, { pokemon_id: 1, amount: 1 }), 'amount', 'candy: reward 0 is any pokemon')
  both(t, 'quest', 'quest', { reward_type: 12, reward: 6 }, quest(12, { pokemon_id: 6, amount: 20 }), quest(12, { pokemon_id: 3, amount: 20 }), 'reward', 'mega energy')
  t.same(filters('quest', { reward_type: 2, reward: 1301 }, event('quest', { rewards: [{ type: 7, info: { pokemon_id: 25 } }, { type: 2, info: { item_id: 1301, amount: 1 } }] })), [], 'one of the stop\'s rewards is enough')
})

t.test('invasion: grunt type and gender', async (t) => {
  both(t, 'invasion', 'invasion', { grunt_type: 'fire' }, { incident_grunt_type: 4 }, { incident_grunt_type: 5 }, 'grunt_type', 'a type from the master data')
  t.same(filters('invasion', { grunt_type: 'everything' }, event('invasion', { incident_grunt_type: 5 })), [], 'everything')
  t.same(filters('invasion', { grunt_type: 'cliff' }, event('invasion', { character: 41 })), [], 'a leader by name (Golbat\'s character)')
  both(t, 'invasion', 'invasion', { grunt_type: 'everything', gender: 2 }, { incident_grunt_type: 4 }, { incident_grunt_type: 5 }, 'gender', 'female grunts')
  t.same(filters('invasion', { grunt_type: 'fire' }, event('invasion', { incident_grunt_type: 352, grunt_type: 4, display_type: 8 })), ['grunt_type'], 'an event stop (352) is no grunt')
})

t.test('lure, nest, gym, fort change, max battle', async (t) => {
  both(t, 'lure', 'lure', { lure_id: 501 }, { lure_id: 501 }, { lure_id: 502 }, 'lure_id', 'one lure')
  t.same(filters('lure', { lure_id: 0 }, event('lure', { lure_id: 505 })), [], 'lure 0: every lure')

  const nest = { pokemon_id: 25, form: 0, pokemon_avg: 8 }
  both(t, 'nest', 'nest', { pokemon_id: 25 }, nest, { ...nest, pokemon_id: 1 }, 'pokemon_id', 'one species')
  both(t, 'nest', 'nest', { pokemon_id: 0, form: 598 }, { ...nest, form: 598 }, nest, 'form', 'one form')
  both(t, 'nest', 'nest', { pokemon_id: 0, min_spawn_avg: 5 }, nest, { ...nest, pokemon_avg: 4 }, 'min_spawn_avg', 'minimum spawns an hour')

  const gym = { id: 'g1', team_id: 2, old_team_id: 1, slots_available: 3, old_slots_available: 3, is_in_battle: false }
  both(t, 'gym', 'gym', { team: 2 }, gym, { ...gym, team_id: 3, old_team_id: 2 }, 'team', 'one team')
  t.same(filters('gym', { team: 4 }, event('gym', { ...gym, old_team_id: 2 })), ['slot_changes'], 'no team change: only slot or battle alarms')
  both(t, 'gym', 'gym', { team: 4, slot_changes: 1 }, { ...gym, old_team_id: 2, slots_available: 2 }, { ...gym, old_team_id: 2 }, 'slot_changes', 'free slots changed')
  both(t, 'gym', 'gym', { team: 4, battle_changes: 1 }, { ...gym, old_team_id: 2, is_in_battle: true }, { ...gym, old_team_id: 2 }, 'battle_changes', 'a battle')
  both(t, 'gym', 'gym', { team: 4, gym_id: 'g1' }, gym, { ...gym, id: 'g2' }, 'gym_id', 'a chosen gym')

  const fort = (extra: Record<string, unknown>) => ({ change_type: 'new', new: { type: 'pokestop', name: 'Fountain', location: { lat: 51.1, lon: 7.1 } }, ...extra })
  both(t, 'fort', 'fort_update', { fort_type: 'pokestop' }, fort({}), fort({ new: { type: 'gym', name: 'x', location: { lat: 51.1, lon: 7.1 } } }), 'fort_type', 'one kind of fort')
  both(t, 'fort', 'fort_update', { change_types: ['removal'] }, fort({ change_type: 'removal' }), fort({}), 'change_types', 'one kind of change')
  t.same(filters('fort', { change_types: ['name'] }, event('fort_update', fort({ change_type: 'edit', edit_types: ['name'] }))), [], 'an edit\'s kinds count')
  both(t, 'fort', 'fort_update', {}, fort({}), fort({ new: { type: 'pokestop', location: { lat: 51.1, lon: 7.1 } } }), 'include_empty', 'a fort without a name')
  t.same(filters('fort', { include_empty: 1 }, event('fort_update', fort({ new: { type: 'pokestop', location: { lat: 51.1, lon: 7.1 } } }))), [], 'include_empty: empty forts too')
})

t.test('max battle: boss or level, Gigantamax, form, move, station', async (t) => {
  const mb = { id: 's1', battle_level: 3, battle_pokemon_id: 6, battle_pokemon_form: 0, battle_pokemon_bread_mode: 1, battle_pokemon_move_1: 1, battle_pokemon_move_2: 2 }
  both(t, 'maxbattle', 'max_battle', { pokemon_id: 6 }, mb, { ...mb, battle_pokemon_id: 9 }, 'pokemon_id', 'one pokemon')
  both(t, 'maxbattle', 'max_battle', { pokemon_id: 9000, level: 3 }, mb, { ...mb, battle_level: 1 }, 'level', 'by level')
  t.same(filters('maxbattle', { pokemon_id: 9000, level: 90 }, event('max_battle', mb)), [], 'level 90: every level')
  both(t, 'maxbattle', 'max_battle', { pokemon_id: 9000, level: 90, gmax: 1 }, { ...mb, battle_pokemon_bread_mode: 2 }, mb, 'gmax', 'Gigantamax (bread mode 2)')
  t.same(filters('maxbattle', { pokemon_id: 9000, level: 90, gmax: 1 }, event('max_battle', { ...mb, battle_level: 7, battle_pokemon_bread_mode: 0 })), [], 'no bread mode: above level 6 is Gigantamax')
  both(t, 'maxbattle', 'max_battle', { pokemon_id: 6, form: 2 }, { ...mb, battle_pokemon_form: 2 }, mb, 'form', 'one form')
  both(t, 'maxbattle', 'max_battle', { pokemon_id: 6, move: 2 }, mb, { ...mb, battle_pokemon_move_2: 3 }, 'move', 'a move')
  both(t, 'maxbattle', 'max_battle', { pokemon_id: 6, station_id: 's1' }, mb, { ...mb, id: 's2' }, 'station_id', 'a chosen station')
})

/* The member's side. */

const fences = (names: string[], known = ['centre', 'north']) => ({ at: new Set(names), known: (n: string) => known.includes(n) })
const base = (): MemberState => ({
  enabled: true,
  adminDisabled: false,
  blockedAlerts: [],
  currentProfileNo: 1,
  profiles: [
    { profileNo: 1, name: 'Home', areas: ['centre'], place: { latitude: 51.1, longitude: 7.0 }, activeHours: [] },
    { profileNo: 2, name: 'Work', areas: ['north'], place: null, activeHours: [] }
  ],
  alarms: [
    { type: 'pokemon', row: { uid: 1, profile_no: 1, pokemon_id: 25, min_iv: 90 } },
    { type: 'pokemon', row: { uid: 2, profile_no: 2, pokemon_id: 25 } },
    { type: 'raid', row: { uid: 3, profile_no: 1, pokemon_id: 150 } }
  ]
})
const hundoEvent = () => event('pokemon', hundo)

t.test('explain: an alert, and the alarms of other profiles and types', async (t) => {
  const out = explain(base(), hundoEvent(), fences(['centre']), 1)
  t.equal(out.alerted, true)
  t.same(out.member, [])
  t.same(out.alarms.map((a) => [a.uid, a.matches, a.active, a.failed.map((f) => f.filter)]), [[1, true, true, []], [2, false, false, ['profile_no', 'area']]], 'only pokemon alarms; the other profile is not active and not in its area')
  t.same(out.alarms[1]?.failed[0], { filter: 'profile_no', want: 'profile 2 (Work) active', got: 1 })
})

t.test('explain: paused, disabled, blocked', async (t) => {
  const m = base()
  m.enabled = false
  m.adminDisabled = true
  m.blockedAlerts = ['monster']
  const out = explain(m, hundoEvent(), fences(['centre']), 1)
  t.equal(out.alerted, false)
  t.same(out.member.map((f) => f.filter), ['enabled', 'admin_disable', 'blocked_alerts'])
  t.same(out.alarms[0]?.failed.map((f) => f.filter), ['blocked_alerts'], 'the blocked kind also stops each alarm')
  const raidOut = explain({ ...base(), blockedAlerts: ['raid'] }, event('raid', raid), fences(['centre']), 1)
  t.same(raidOut.member, [], 'blocking raids leaves eggs: not every alert of the event is stopped')
  t.same(raidOut.alarms[0]?.failed.map((f) => f.filter), ['blocked_alerts'])
})

t.test('explain: distance from the profile\'s location, areas by the engine\'s fences', async (t) => {
  const m = base()
  m.alarms = [{ type: 'pokemon', row: { uid: 1, profile_no: 1, pokemon_id: 0, distance: 8000 } }, { type: 'pokemon', row: { uid: 2, profile_no: 1, pokemon_id: 0, distance: 5000 } }]
  const out = explain(m, hundoEvent(), fences([]), 1)
  t.same(out.alarms.map((a) => a.matches), [true, false], '7 km away: inside 8 km, outside 5 km')
  t.same(out.alarms[1]?.failed, [{ filter: 'distance', want: 'within 5000 m of the profile\'s location', got: 6983 }], 'the distance rounded, as the engine compares it')
  m.profiles[0] = { ...(m.profiles[0] as MemberState['profiles'][number]), place: { latitude: 0, longitude: 0 } }
  const nowhere = explain(m, hundoEvent(), fences([]), 1)
  t.same(nowhere.member.map((f) => f.filter), ['location'], 'no location: said once for the member')
  t.same(nowhere.alarms[0]?.failed.map((f) => f.filter), ['distance'])

  const areas = base()
  areas.alarms = [{ type: 'pokemon', row: { uid: 1, profile_no: 1, pokemon_id: 0 } }, { type: 'pokemon', row: { uid: 2, profile_no: 1, pokemon_id: 0, override_areas: ['atlantis'] } }]
  const north = explain(areas, hundoEvent(), fences(['north']), 1)
  t.same(north.alarms[0]?.failed, [{ filter: 'area', want: 'one of centre', got: ['north'] }], 'outside the profile\'s areas')
  t.same(north.alarms[1]?.failed, [{ filter: 'area', want: 'one of atlantis (no fence the engine knows)', got: ['north'] }], 'an area no fence has: said plainly')
  t.same(north.alarms[1]?.unknownAreas, ['atlantis'])
  t.same(explain(areas, hundoEvent(), fences(['centre', 'north']), 1).alarms[0]?.failed, [], 'inside one of the areas')
})

t.test('explain: a chosen gym alerts wherever it is, unless "specificgym" is blocked', async (t) => {
  const m = base()
  m.alarms = [{ type: 'raid', row: { uid: 5, profile_no: 1, pokemon_id: 150, gym_id: 'g1' } }]
  t.equal(explain(m, event('raid', raid), fences([]), 1).alerted, true, 'outside every area')
  m.blockedAlerts = ['specificgym']
  t.same(explain(m, event('raid', raid), fences([]), 1).alarms[0]?.failed.map((f) => f.filter), ['blocked_alerts'])
})

t.test('active hours: the profile of the last scheduled switch, unless none happened since', async (t) => {
  const m = base()
  // Monday 2026-05-04 is an ISO Monday; Work switches on at 09:00, Home at 17:00, weekdays.
  for (let day = 1; day <= 5; day++) {
    m.profiles[1]?.activeHours.push({ day, hours: 9, mins: 0 })
    m.profiles[0]?.activeHours.push({ day, hours: 17, mins: 0 })
  }
  const ms = (iso: string) => Date.parse(iso)
  m.currentProfileNo = 1
  t.equal(activeProfileAt(m, ms('2026-05-04T10:00:00Z'), ms('2026-05-04T18:00:00Z'), 'UTC'), 2, '10:00 on Monday: Work (switched at 9:00)')
  t.equal(activeProfileAt(m, ms('2026-05-04T17:30:00Z'), ms('2026-05-04T18:00:00Z'), 'UTC'), 1, '17:30: Home')
  t.equal(activeProfileAt(m, ms('2026-05-09T12:00:00Z'), ms('2026-05-11T08:00:00Z'), 'UTC'), 1, 'Saturday: still Home since Friday 17:00')
  m.currentProfileNo = 2
  t.equal(activeProfileAt(m, ms('2026-05-04T17:30:00Z'), ms('2026-05-04T17:45:00Z'), 'UTC'), 2, 'no switch since the event: the current profile (switched by hand)')
  t.equal(activeProfileAt(m, ms('2026-05-04T10:00:00Z'), ms('2026-05-04T18:00:00Z'), 'Europe/Berlin'), 2, 'read in the member\'s zone: 12:00 there')
  t.equal(activeProfileAt(m, ms('2026-05-04T07:30:00Z'), ms('2026-05-04T18:00:00Z'), 'Europe/Berlin'), 2, '07:30 UTC is 09:30 in Berlin: Work')
  t.equal(activeProfileAt(m, ms('2026-05-04T07:30:00Z'), ms('2026-05-04T18:00:00Z'), 'UTC'), 1, 'and 07:30 in UTC: still Home')
  t.equal(activeProfileAt({ ...base(), currentProfileNo: 2 }, ms('2026-05-04T10:00:00Z'), ms('2026-05-04T18:00:00Z'), 'UTC'), 2, 'no schedule: the current profile')
})
