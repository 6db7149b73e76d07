import { alarmTypesOf, areaLimit, type MemberState, type ScannerEvent } from './alarm-explain.js'
import { num } from './alarm-match.js'

/**
 * Which members an event can alert at all, so that the matcher (lib/alarm-explain.ts) runs for those only
 * instead of for every member with a push device. An alarm is filed by what it is for (a pokemon alarm:
 * its species, or any: 0; every other type: the type) and where (each of its areas; `*` when no area
 * limits it: a distance, a chosen gym or station). An event looks under its own species or type and the
 * fences it is in, and `*`. A member without an alarm there has no alarm the matcher could match, so
 * skipping them changes no answer (test/push-index.test.ts compares both ways on random alarms and events).
 */

const ANYWHERE = '*'
const pokemonKey = (id: number): string => `pokemon:${id}`

/** The keys a member's alarms are filed under. */
export function alarmKeys (state: MemberState): Set<string> {
  const keys = new Set<string>()
  const areasOf = new Map(state.profiles.map((p) => [p.profileNo, p.areas]))
  for (const { type, row } of state.alarms) {
    const what = type === 'pokemon' ? pokemonKey(num(row, 'pokemon_id')) : type
    const areas = areaLimit(type, row, areasOf.get(num(row, 'profile_no', state.currentProfileNo)) ?? [])
    for (const where of areas ?? [ANYWHERE]) keys.add(`${what}@${where}`)
  }
  return keys
}

/** The keys under which alarms that may match the event are filed (`areas`: the fences it is in, lower case). */
export function eventKeys (event: ScannerEvent, areas: Iterable<string>): string[] {
  const what = event.type === 'pokemon' ? [pokemonKey(event.spawn.pokemonId), pokemonKey(0)] : alarmTypesOf(event.type)
  const where = [ANYWHERE, ...areas]
  return what.flatMap((w) => where.map((area) => `${w}@${area}`))
}

/** Members filed under their alarms' keys; refiled whenever their alarms are read again. */
export class CandidateIndex<M> {
  private readonly byKey = new Map<string, Set<M>>()
  private readonly keysOf = new Map<M, Set<string>>()

  /** Files the member under `keys` (and under no other). */
  file (member: M, keys: Set<string>): void {
    this.remove(member)
    this.keysOf.set(member, keys)
    for (const key of keys) {
      let members = this.byKey.get(key)
      if (members === undefined) this.byKey.set(key, members = new Set())
      members.add(member)
    }
  }

  remove (member: M): void {
    for (const key of this.keysOf.get(member) ?? []) {
      const members = this.byKey.get(key)
      members?.delete(member)
      if (members?.size === 0) this.byKey.delete(key)
    }
    this.keysOf.delete(member)
  }

  /** The members filed under any of the keys, each once. */
  candidates (keys: readonly string[]): Set<M> {
    const found = new Set<M>()
    for (const key of keys) for (const member of this.byKey.get(key) ?? []) found.add(member)
    return found
  }
}
