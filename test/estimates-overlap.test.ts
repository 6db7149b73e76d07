import t from 'tap'
import { fullAlarm, pokemonMatches, type Spawn } from '../lib/alarm-match.js'
import { covers } from '../plugins/domain/alarm-estimates/overlap.js'
import type { AlarmType } from '../schemas/alarm-types.js'
import type { Test } from './helper.js'

/**
 * The overlap rules of docs/estimates.md, one test each: `a` covers `b` when every event `b` matches,
 * `a` matches too. Each rule is checked both ways (the wider covers the narrower, never the reverse) and
 * where it stops (a case that looks covered but is not). Never a false "covered": the last test walks
 * random pairs of pokemon alarms and spawns and checks that a covered alarm never matches a spawn its
 * cover misses.
 */

const AREAS = ['town', 'village']
const full = (type: AlarmType, body: Record<string, unknown>) => fullAlarm(type, body)
const check = (t: Tap, type: AlarmType, wide: Record<string, unknown>, narrow: Record<string, unknown>, message: string) => {
  t.ok(covers(type, full(type, wide), full(type, narrow), AREAS), `${message}: covers`)
  t.notOk(covers(type, full(type, narrow), full(type, wide), AREAS), `${message}: not the other way`)
}
const neither = (t: Tap, type: AlarmType, a: Record<string, unknown>, b: Record<string, unknown>, message: string) => {
  t.notOk(covers(type, full(type, a), full(type, b), AREAS), `${message} (a over b)`)
  t.notOk(covers(type, full(type, b), full(type, a), AREAS), `${message} (b over a)`)
}
type Tap = Test

t.test('pokemon: species — every pokemon covers one species', async (t) => {
  check(t, 'pokemon', { pokemon_id: 0 }, { pokemon_id: 25 }, 'everything over Pikachu')
  neither(t, 'pokemon', { pokemon_id: 25 }, { pokemon_id: 1 }, 'two species')
})

t.test('pokemon: form — form 0 (any) covers one form', async (t) => {
  check(t, 'pokemon', { pokemon_id: 25 }, { pokemon_id: 25, form: 598 }, 'any form over one')
  neither(t, 'pokemon', { pokemon_id: 25, form: 598 }, { pokemon_id: 25, form: 599 }, 'two forms')
})

t.test('pokemon: ranges (IV, CP, level, each stat, weight, rarity) — the wider range covers', async (t) => {
  check(t, 'pokemon', { pokemon_id: 0, min_iv: 90 }, { pokemon_id: 25, min_iv: 100 }, 'the issue\'s example: every pokemon IV 90 over Pikachu IV 100')
  check(t, 'pokemon', { pokemon_id: 0 }, { pokemon_id: 0, min_iv: 0 }, 'IV -1 (also unencountered) over IV 0+')
  check(t, 'pokemon', { pokemon_id: 0, min_cp: 1000 }, { pokemon_id: 0, min_cp: 2000, max_cp: 2500 }, 'CP')
  check(t, 'pokemon', { pokemon_id: 0, min_level: 20 }, { pokemon_id: 0, min_level: 30, max_level: 35 }, 'level')
  check(t, 'pokemon', { pokemon_id: 0, atk: 10 }, { pokemon_id: 0, atk: 15 }, 'attack')
  check(t, 'pokemon', { pokemon_id: 0, max_def: 5 }, { pokemon_id: 0, max_def: 0 }, 'defence')
  check(t, 'pokemon', { pokemon_id: 0, sta: 1 }, { pokemon_id: 0, sta: 2, max_sta: 3 }, 'stamina')
  check(t, 'pokemon', { pokemon_id: 0, min_weight: 1000 }, { pokemon_id: 0, min_weight: 2000 }, 'weight')
  check(t, 'pokemon', { pokemon_id: 0 }, { pokemon_id: 0, rarity: 3, max_rarity: 4 }, 'rarity')
  neither(t, 'pokemon', { pokemon_id: 0, min_iv: 80, max_iv: 90 }, { pokemon_id: 0, min_iv: 85, max_iv: 95 }, 'overlapping IV ranges')
})

t.test('pokemon: gender — any covers one', async (t) => {
  check(t, 'pokemon', { pokemon_id: 0 }, { pokemon_id: 0, gender: 2 }, 'any gender over female')
  neither(t, 'pokemon', { pokemon_id: 0, gender: 1 }, { pokemon_id: 0, gender: 2 }, 'male and female')
})

t.test('pokemon: size — any covers a range; a range covers the ranges inside it', async (t) => {
  check(t, 'pokemon', { pokemon_id: 0 }, { pokemon_id: 0, size: 5, max_size: 5 }, 'any size over XXL')
  check(t, 'pokemon', { pokemon_id: 0, size: 4, max_size: 5 }, { pokemon_id: 0, size: 5, max_size: 5 }, 'XL..XXL over XXL')
  neither(t, 'pokemon', { pokemon_id: 0, size: 1, max_size: 1 }, { pokemon_id: 0, size: 5, max_size: 5 }, 'XXS and XXL')
})

t.test('pokemon: time left — a smaller minimum covers a larger', async (t) => {
  check(t, 'pokemon', { pokemon_id: 0, min_time: 60 }, { pokemon_id: 0, min_time: 600 }, 'min_time')
})

t.test('pokemon: PvP — no league covers any league; one league covers a narrower rank range of the same league', async (t) => {
  const great = { pokemon_id: 0, pvp_ranking_league: 1500 }
  check(t, 'pokemon', { pokemon_id: 0 }, { ...great, pvp_ranking_worst: 10 }, 'no PvP filter over great top 10')
  check(t, 'pokemon', { ...great, pvp_ranking_worst: 100 }, { ...great, pvp_ranking_worst: 10 }, 'top 100 over top 10')
  check(t, 'pokemon', { ...great, pvp_ranking_min_cp: 1400 }, { ...great, pvp_ranking_min_cp: 1450 }, 'PvP minimum CP')
  check(t, 'pokemon', great, { ...great, pvp_ranking_cap: 50 }, 'any level cap over cap 50')
  neither(t, 'pokemon', great, { pokemon_id: 0, pvp_ranking_league: 2500 }, 'great and ultra')
  neither(t, 'pokemon', { ...great, pvp_ranking_cap: 40 }, { ...great, pvp_ranking_cap: 50 }, 'two caps')
  neither(t, 'pokemon', great, { ...great, pvp_ranking_evolution: 1 }, 'mega evolutions are another question')
})

t.test('place: areas cover their subsets; a radius covers a smaller radius; a radius and areas are never decided', async (t) => {
  check(t, 'pokemon', { pokemon_id: 0 }, { pokemon_id: 0, override_areas: ['town'] }, 'the profile\'s two areas over one of them')
  check(t, 'pokemon', { pokemon_id: 0, distance: 5000 }, { pokemon_id: 0, distance: 1000 }, '5 km over 1 km')
  neither(t, 'pokemon', { pokemon_id: 0, override_areas: ['town'] }, { pokemon_id: 0, override_areas: ['village'] }, 'two different areas')
  neither(t, 'pokemon', { pokemon_id: 0 }, { pokemon_id: 0, distance: 1 }, 'areas and a radius (unsure: not covered)')
  neither(t, 'pokemon', { pokemon_id: 0, distance: 5000, override_location_label: 'Work' }, { pokemon_id: 0, distance: 1000 }, 'radii from two places')
  t.ok(covers('pokemon', full('pokemon', { pokemon_id: 0 }), full('pokemon', { pokemon_id: 0 }), AREAS), 'an alarm covers its own copy')
})

t.test('raid: every level covers a level and a boss; a boss covers its form; team, move, evolution, gym, exclusive, RSVP', async (t) => {
  check(t, 'raid', { pokemon_id: 9000, level: 90 }, { pokemon_id: 9000, level: 5 }, 'every level over level 5')
  check(t, 'raid', { pokemon_id: 9000, level: 90 }, { pokemon_id: 150 }, 'every level over Mewtwo')
  neither(t, 'raid', { pokemon_id: 9000, level: 5 }, { pokemon_id: 150 }, 'level 5 and a boss (the boss may be of any level)')
  check(t, 'raid', { pokemon_id: 150 }, { pokemon_id: 150, form: 133 }, 'any form over one')
  check(t, 'raid', { pokemon_id: 150 }, { pokemon_id: 150, team: 2 }, 'any team over Valor')
  check(t, 'raid', { pokemon_id: 150 }, { pokemon_id: 150, move: 14 }, 'any move over one')
  check(t, 'raid', { pokemon_id: 150 }, { pokemon_id: 150, evolution: 1 }, 'any evolution over mega')
  check(t, 'raid', { pokemon_id: 150 }, { pokemon_id: 150, gym_id: 'g1' }, 'any gym over one')
  check(t, 'raid', { pokemon_id: 150 }, { pokemon_id: 150, exclusive: 1 }, 'all raids over EX raids')
  check(t, 'raid', { pokemon_id: 150, rsvp_changes: 1 }, { pokemon_id: 150, rsvp_changes: 2 }, 'with RSVP changes over only RSVP changes')
  neither(t, 'raid', { pokemon_id: 150, rsvp_changes: 0 }, { pokemon_id: 150, rsvp_changes: 2 }, 'without and only RSVP changes')
})

t.test('egg: every level covers a level; team, gym, exclusive', async (t) => {
  check(t, 'egg', { level: 90 }, { level: 5 }, 'every level over 5')
  check(t, 'egg', { level: 5 }, { level: 5, team: 1, gym_id: 'g1', exclusive: 1 }, 'any team, gym, EX')
  neither(t, 'egg', { level: 1 }, { level: 5 }, 'two levels')
})

t.test('quest: reward type must agree; reward 0 covers any candy or energy; stardust by its minimum; amount by its minimum', async (t) => {
  check(t, 'quest', { reward_type: 4, reward: 0 }, { reward_type: 4, reward: 25 }, 'any candy over Pikachu candy')
  // The engines match a pokemon reward by its id alone (quest.js, quest.go): reward 0 matches no pokemon, so covers none.
  neither(t, 'quest', { reward_type: 7, reward: 0 }, { reward_type: 7, reward: 25 }, 'pokemon reward 0 and Pikachu')
  check(t, 'quest', { reward_type: 3, reward: 500 }, { reward_type: 3, reward: 1500 }, 'stardust 500+ over 1500+')
  check(t, 'quest', { reward_type: 2, reward: 1301, amount: 1 }, { reward_type: 2, reward: 1301, amount: 3 }, 'amount 1+ over 3+')
  check(t, 'quest', { reward_type: 7, reward: 25 }, { reward_type: 7, reward: 25, form: 598 }, 'any form over one')
  neither(t, 'quest', { reward_type: 2, reward: 0 }, { reward_type: 7, reward: 25 }, 'items and pokemon')
})

t.test('invasion: the same grunt type; any gender covers one', async (t) => {
  check(t, 'invasion', { grunt_type: 'fire' }, { grunt_type: 'Fire', gender: 2 }, 'fire over female fire (case does not matter)')
  neither(t, 'invasion', { grunt_type: 'fire' }, { grunt_type: 'water' }, 'two types')
})

t.test('lure: any lure covers one', async (t) => {
  check(t, 'lure', { lure_id: 0 }, { lure_id: 501 }, 'any over glacial')
  neither(t, 'lure', { lure_id: 502 }, { lure_id: 501 }, 'two lures')
})

t.test('types without rules are never covered', async (t) => {
  for (const type of ['nest', 'gym', 'fort', 'maxbattle'] as const) t.notOk(covers(type, full(type, {}), full(type, {}), AREAS), type)
})

t.test('never a false "covered": random alarm pairs against random spawns', async (t) => {
  let seed = 42
  const rnd = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648 }
  const pick = <T>(list: T[]): T => list[Math.floor(rnd() * list.length)] as T
  const alarm = () => ({
    pokemon_id: pick([0, 25]),
    form: pick([0, 0, 598]),
    min_iv: pick([-1, 0, 50, 90, 100]),
    max_iv: pick([100, 100, 95]),
    min_cp: pick([0, 500, 1500]),
    max_level: pick([55, 30]),
    atk: pick([0, 10, 15]),
    gender: pick([0, 1, 2]),
    size: pick([-1, -1, 3, 5]),
    max_size: 5,
    pvp_ranking_league: pick([0, 0, 1500]),
    pvp_ranking_worst: pick([4096, 100, 10])
  })
  const spawn = (): Spawn => {
    const encountered = rnd() < 0.7
    const stat = () => (encountered ? Math.floor(rnd() * 16) : null)
    return {
      pokemonId: pick([1, 25]),
      form: pick([0, 598]),
      atk: stat(),
      def: stat(),
      sta: stat(),
      cp: encountered ? Math.floor(rnd() * 3000) : null,
      level: encountered ? 1 + Math.floor(rnd() * 35) : null,
      gender: pick([1, 2]),
      size: encountered ? 1 + Math.floor(rnd() * 5) : null,
      weight: 10,
      secondsLeft: 600,
      pvp: rnd() < 0.5 ? { great: [{ rank: 1 + Math.floor(rnd() * 200), cp: 1450, cap: 50, capped: false }] } : null
    }
  }
  const spawns = Array.from({ length: 400 }, spawn)
  let coveredPairs = 0
  let falseCovers = 0
  for (let i = 0; i < 3000; i++) {
    const a = full('pokemon', alarm())
    const b = full('pokemon', alarm())
    if (!covers('pokemon', a, b, AREAS)) continue
    coveredPairs++
    for (const s of spawns) if (pokemonMatches(b, s) && !pokemonMatches(a, s)) falseCovers++
  }
  t.ok(coveredPairs > 20, `the walk found covered pairs (${coveredPairs})`)
  t.equal(falseCovers, 0, 'no spawn matched by a covered alarm escapes its cover')
})
