import t from 'tap'
import { explain, readEvent, type MemberState } from '../lib/alarm-explain.js'
import { alarmKeys, CandidateIndex, eventKeys } from '../lib/push-index.js'
import type { EventType } from '../schemas/alarm-explanations.js'

/**
 * The push feed runs the matcher only for the members the index files under the event's keys
 * (lib/push-index.ts). On random members, alarms and events, that gives exactly the members that matching
 * every member alerts, and it does skip most members (else the test would prove nothing).
 */

function random (seed: number): () => number {
  let s = seed
  return () => { s = (s * 1_103_515_245 + 12_345) % 2 ** 31; return s / 2 ** 31 }
}
const rnd = random(7)
const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)] as T
const AREAS = ['north', 'south', 'east', 'west']
const AT_S = 1_800_000_000

function member (): MemberState {
  const alarms: MemberState['alarms'] = []
  for (let i = 0; i < 1 + Math.floor(rnd() * 8); i++) {
    const common = { profile_no: rnd() < 0.8 ? 1 : 2, distance: rnd() < 0.7 ? 0 : Math.floor(rnd() * 20_000) }
    switch (pick(['pokemon', 'pokemon', 'pokemon', 'raid', 'egg', 'lure'] as const)) {
      case 'pokemon': alarms.push({ type: 'pokemon', row: { ...common, pokemon_id: rnd() < 0.1 ? 0 : 1 + Math.floor(rnd() * 30), min_iv: pick([-1, 0, 50, 90, 100]) } }); break
      case 'raid': alarms.push({ type: 'raid', row: { ...common, pokemon_id: rnd() < 0.5 ? 9000 : 1 + Math.floor(rnd() * 30), level: pick([90, 1, 3, 5]), gym_id: rnd() < 0.2 ? 'g1' : null } }); break
      case 'egg': alarms.push({ type: 'egg', row: { ...common, level: pick([90, 1, 3, 5]), gym_id: rnd() < 0.2 ? 'g1' : null } }); break
      case 'lure': alarms.push({ type: 'lure', row: { ...common, lure_id: pick([0, 501, 502]) } }); break
    }
  }
  const profile = (profileNo: number) => ({ profileNo, name: `p${profileNo}`, areas: AREAS.filter(() => rnd() < 0.4), place: { latitude: 51 + rnd() * 0.2, longitude: 7 + rnd() * 0.2 }, activeHours: [] })
  return { language: 'en', enabled: rnd() < 0.9, adminDisabled: false, blockedAlerts: rnd() < 0.1 ? ['monster'] : [], currentProfileNo: 1, profiles: [profile(1), profile(2)], alarms }
}

function event (): { type: EventType, message: Record<string, unknown> } {
  const at = { latitude: 51 + rnd() * 0.2, longitude: 7 + rnd() * 0.2 }
  switch (pick(['pokemon', 'pokemon', 'raid', 'lure', 'quest'] as const)) {
    case 'pokemon': return { type: 'pokemon', message: { ...at, pokemon_id: 1 + Math.floor(rnd() * 30), form: 0, disappear_time: AT_S + 900, individual_attack: Math.floor(rnd() * 16), individual_defense: Math.floor(rnd() * 16), individual_stamina: Math.floor(rnd() * 16), cp: 500, pokemon_level: 20 } }
    case 'raid': return { type: 'raid', message: { ...at, gym_id: 'g1', level: pick([1, 3, 5]), pokemon_id: rnd() < 0.3 ? 0 : 1 + Math.floor(rnd() * 30), form: 0, team_id: 1, end: AT_S + 900 } }
    case 'lure': return { type: 'lure', message: { ...at, pokestop_id: 's1', lure_id: pick([501, 502]), lure_expiration: AT_S + 900 } }
    case 'quest': return { type: 'quest', message: { ...at, pokestop_id: 's2', rewards: [{ type: 2, info: { item_id: 1, amount: 1 } }] } }
  }
}

t.test('indexed matching alerts exactly the members plain matching alerts', async (t) => {
  const members = Array.from({ length: 400 }, member)
  const index = new CandidateIndex<number>()
  members.forEach((state, i) => index.file(i, alarmKeys(state)))
  let alerted = 0
  let candidates = 0
  for (let n = 0; n < 300; n++) {
    const { type, message } = event()
    const e = readEvent(type, message, AT_S, new Map())
    const fences = { at: new Set(AREAS.filter(() => rnd() < 0.5)), known: (name: string) => AREAS.includes(name) }
    const plain = members.flatMap((state, i) => explain(state, e, fences, 1).alerted ? [i] : [])
    const found = index.candidates(eventKeys(e, fences.at))
    const indexed = [...found].filter((i) => explain(members[i] as MemberState, e, fences, 1).alerted).sort((a, b) => a - b)
    if (JSON.stringify(indexed) !== JSON.stringify(plain)) t.fail(`event ${n} (${type} ${JSON.stringify(message)}): indexed ${indexed.length}, plain ${plain.length}`)
    alerted += plain.length
    candidates += found.size
  }
  t.ok(alerted > 100, `${alerted} alerts across the events: the comparison is about something`)
  t.ok(candidates < 0.3 * 300 * members.length, `${candidates} candidates of ${300 * members.length} member-events: the index skips most`)
})

t.test('refiling replaces a member\'s keys; removing forgets it', async (t) => {
  const index = new CandidateIndex<string>()
  index.file('a', new Set(['pokemon:1', 'raid']))
  index.file('b', new Set(['pokemon:0']))
  t.same([...index.candidates(['pokemon:1', 'pokemon:0'])].sort(), ['a', 'b'])
  index.file('a', new Set(['pokemon:2']))
  t.same([...index.candidates(['pokemon:1', 'raid'])], [])
  index.remove('b')
  t.same([...index.candidates(['pokemon:0', 'pokemon:2'])], ['a'])
})
